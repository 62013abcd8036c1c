package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
)

// A mint in flight is held by the process that sent it through a lease
// (mint_lease_until) rather than by the age of the row alone: the sender
// ends its hold as soon as it knows it can add nothing (FinishMint, or
// ReleaseMint when it could not tell the outcome), so the reconciler need
// not wait out a fixed age for those, and a sender's hold is stated by
// the sender itself. Each begun mint has a number (mint_attempt), so that
// an outcome is recorded for the attempt it is about: a reconciler never
// ends a newer attempt than the one it read, and a sender's late word
// about its attempt is not taken for a later one's.

// leaseOver is the condition that no process holds the link's mint at a
// time: its lease ran out, or, for a link begun before leases were
// recorded (mint_lease_until NULL), it was begun a whole core.MintLease
// ago. Its arguments are leaseArgs.
const leaseOver = `(mint_lease_until <= ? OR (mint_lease_until IS NULL AND updated_at <= ?))`

// leaseArgs are the arguments of leaseOver at at.
func leaseArgs(at time.Time) []any {
	return []any{dbTime(at), dbTime(at.Add(-core.MintLease))}
}

// BeginMint records, before the mint request is sent, that the link is
// being minted to wallet at at, as a new attempt (mint_attempt one more)
// held until at plus core.MintLease: one conditional UPDATE from
// handed_out only. A link already minting is refused, so two presses of
// Claim can never send two mint requests for one link: a mint in doubt is
// settled by reading its claim status (core's reconciliation), not by
// sending it again. The wallet replaces the one recorded at the hand-out,
// if any; wallets are compared without regard to case. It returns an error
// for an empty wallet, core.ErrNotFound when the link does not exist,
// core.ErrConflict when it belongs to no member (available, or its member
// was forgotten) or is in another state, and core.ErrWalletClaimed, which
// also matches core.ErrConflict, when another link of the drop went to
// wallet.
func (db *DB) BeginMint(ctx context.Context, linkID int64, wallet string, at time.Time) (core.MintLink, error) {
	const op = "begin mint"
	if wallet == "" {
		return core.MintLink{}, fmt.Errorf("%s: the wallet is empty", op)
	}
	g := db.gorm.WithContext(ctx)
	var row mintLinkRow
	err := g.Raw(`
		UPDATE mint_links
		SET state = 'minting', wallet = ?, updated_at = ?,
			mint_attempt = mint_attempt + 1, mint_lease_until = ?
		WHERE id = ? AND user_id IS NOT NULL AND state = 'handed_out'
		RETURNING `+linkColumns,
		wallet, dbTime(at), dbTime(at.Add(core.MintLease)), linkID).Scan(&row).Error
	switch {
	case err != nil && classify(err) == uniqueViolation:
		return core.MintLink{}, fmt.Errorf("%s: link #%d: %w (%w)", op, linkID, core.ErrWalletClaimed, core.ErrConflict)
	case err != nil:
		return core.MintLink{}, translate(op, err)
	case row.ID == 0:
		return core.MintLink{}, translate(op, mintLinkConflict(g, linkID))
	}
	return row.mintLink(), nil
}

// endSQL records a mint's outcome; the caller appends its condition. A
// link claimed elsewhere leaves its member and wallet, as neither got
// anything through it, so that the member's next claim takes another
// link. Its arguments are endArgs, then the condition's.
const endSQL = `
	UPDATE mint_links
	SET state = ?,
		user_id = CASE WHEN ? THEN NULL ELSE user_id END,
		wallet = CASE WHEN ? THEN NULL ELSE wallet END,
		transaction_id = COALESCE(?, transaction_id), updated_at = ?,
		mint_lease_until = NULL
	WHERE id = ? AND mint_attempt = ? AND mint_attempt > 0 AND `

// endArgs are the arguments of endSQL before its condition's.
func endArgs(linkID int64, attempt int, state core.MintLinkState, transactionID string, at time.Time) []any {
	elsewhere := state == core.MintLinkClaimedElsewhere
	return []any{string(state), elsewhere, elsewhere, nullString(transactionID), dbTime(at), linkID, attempt}
}

// checkOutcome refuses a state a mint cannot end in.
func checkOutcome(op string, state core.MintLinkState) error {
	switch state {
	case core.MintLinkMinted, core.MintLinkHandedOut, core.MintLinkClaimedElsewhere:
		return nil
	}
	return fmt.Errorf("%s: a mint cannot end in state %q", op, state)
}

// FinishMint records, at at, the outcome of the caller's own mint attempt
// (the Attempt BeginMint returned), in one conditional UPDATE:
//   - core.MintLinkMinted, with the service's transactionID when known;
//   - core.MintLinkHandedOut: the mint did not go through (it was refused,
//     never sent, or its status read unclaimed), the member may retry;
//     the wallet stays recorded;
//   - core.MintLinkClaimedElsewhere: the link had been used; its member and
//     wallet are cleared.
//
// It is accepted from minting, for that attempt, and also from handed_out
// for minted and claimed elsewhere, for that attempt still: the sender's
// word wins over a reconciler that read the link unclaimed before the mint
// landed, as long as no later attempt was begun (the attempt number is
// then the same, and the link's member and wallet are those of the
// attempt: only BeginMint changes a handed-out link's wallet, and its
// member changes only to none, when forgotten). It reports whether the
// state changed: a link in the state already is left as it is, but for a
// missing transaction id, and reports false, so that an outcome is
// recorded (and audited) once. It returns an error for another state,
// core.ErrNotFound when the link does not exist, and core.ErrConflict
// otherwise.
func (db *DB) FinishMint(ctx context.Context, linkID int64, attempt int, state core.MintLinkState, transactionID string, at time.Time) (bool, error) {
	const op = "finish mint"
	if err := checkOutcome(op, state); err != nil {
		return false, err
	}
	g := db.gorm.WithContext(ctx)
	res := g.Exec(endSQL+`(state = 'minting' OR (state = 'handed_out' AND ? <> 'handed_out'))`,
		append(endArgs(linkID, attempt, state, transactionID, at), string(state))...)
	if res.Error != nil {
		return false, translate(op, res.Error)
	}
	if res.RowsAffected > 0 {
		return true, nil
	}
	// Someone recorded the outcome first (a reconciler, or a member's
	// next claim): only the transaction id may be added.
	res = g.Exec(`UPDATE mint_links SET transaction_id = COALESCE(transaction_id, ?) WHERE id = ? AND state = ?`,
		nullString(transactionID), linkID, string(state))
	if res.Error != nil {
		return false, translate(op, res.Error)
	}
	if res.RowsAffected > 0 {
		return false, nil
	}
	return false, translate(op, mintLinkConflict(g, linkID))
}

// SettleMint records, at at, the outcome a caller that did not send the
// link's mint attempt read from its claim status (the reconciler, or the
// member's next claim): one conditional UPDATE from minting, for that
// attempt, once its lease ran out (leaseOver). Minted is recorded even
// while the lease lasts: the status proves it, whoever reads it, and the
// sender's own FinishMint then changes nothing; and also from handed_out
// for that attempt still, over another settler that read the link
// unclaimed a moment before it landed. States and clearing are
// FinishMint's. It reports whether the state changed: a link of that
// attempt in the state already reports false. It returns an error for
// another state, core.ErrNotFound when the link does not exist, and
// core.ErrConflict when the link moved on (its sender finished, a later
// attempt began) or the lease still holds.
func (db *DB) SettleMint(ctx context.Context, linkID int64, attempt int, state core.MintLinkState, at time.Time) (bool, error) {
	const op = "settle mint"
	if err := checkOutcome(op, state); err != nil {
		return false, err
	}
	g := db.gorm.WithContext(ctx)
	args := append(endArgs(linkID, attempt, state, "", at), string(state))
	args = append(append(args, leaseArgs(at)...), string(state))
	res := g.Exec(endSQL+`((state = 'minting' AND (? = 'minted' OR `+leaseOver+`))
		OR (state = 'handed_out' AND ? = 'minted'))`, args...)
	if res.Error != nil {
		return false, translate(op, res.Error)
	}
	if res.RowsAffected > 0 {
		return true, nil
	}
	var row mintLinkRow
	err := g.Select("id", "state", "mint_attempt").Where("id = ?", linkID).Take(&row).Error
	switch {
	case err != nil:
		return false, translate(op, err)
	case row.State == string(state) && row.MintAttempt == attempt:
		return false, nil
	}
	return false, fmt.Errorf("%s: link #%d is %s, attempt %d: %w", op, linkID, row.State, row.MintAttempt, core.ErrConflict)
}

// ReleaseMint ends, at at, the caller's lease on its mint attempt while
// the link stays minting: the sender could not tell the outcome and
// leaves it to the reconciler, which need not wait for the lease to run
// out. It returns core.ErrNotFound when the link does not exist and
// core.ErrConflict when it is not minting that attempt.
func (db *DB) ReleaseMint(ctx context.Context, linkID int64, attempt int, at time.Time) error {
	const op = "release mint"
	g := db.gorm.WithContext(ctx)
	res := g.Exec(`
		UPDATE mint_links SET mint_lease_until = ?
		WHERE id = ? AND mint_attempt = ? AND state = 'minting'`,
		dbTime(at), linkID, attempt)
	if res.Error != nil {
		return translate(op, res.Error)
	}
	if res.RowsAffected == 0 {
		return translate(op, mintLinkConflict(g, linkID))
	}
	return nil
}

// mintLinkConflict says why a conditional update of the link matched nothing:
// gorm.ErrRecordNotFound when it does not exist, else core.ErrConflict
// naming its state.
func mintLinkConflict(g *gorm.DB, linkID int64) error {
	var row mintLinkRow
	if err := g.Select("id", "state", "mint_attempt").Where("id = ?", linkID).Take(&row).Error; err != nil {
		return err
	}
	return fmt.Errorf("link #%d is %s, attempt %d: %w", linkID, row.State, row.MintAttempt, core.ErrConflict)
}

// PendingMints lists the links left minting whose lease ran out by now
// (leaseOver), by any drop, oldest first, for reconciliation: a mint whose
// sender still holds it is not listed. It returns the database error, if
// any.
func (db *DB) PendingMints(ctx context.Context, now time.Time) ([]core.MintLink, error) {
	var rows []mintLinkRow
	err := db.gorm.WithContext(ctx).
		Where("state = 'minting' AND "+leaseOver, leaseArgs(now)...).
		Order("updated_at, id").
		Find(&rows).Error
	if err != nil {
		return nil, translate("pending mints", err)
	}
	links := make([]core.MintLink, len(rows))
	for i, r := range rows {
		links[i] = r.mintLink()
	}
	return links, nil
}
