package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
)

// BeginMint records, before the mint request is sent, that the link is
// being minted to wallet at at: one conditional UPDATE from handed_out only.
// A link already minting is refused, so two presses of Claim can never send
// two mint requests for one link: a mint in doubt is settled by reading its
// claim status (core's reconciliation), not by sending it again. The wallet
// replaces the one recorded at the hand-out, if
// any; wallets are compared without regard to case. It returns an error for an empty
// wallet, core.ErrNotFound when the link does not exist, core.ErrConflict
// when it belongs to no member (available, or its member was forgotten) or
// is in another state, and core.ErrWalletClaimed, which also matches
// core.ErrConflict, when another link of the drop went to wallet.
func (db *DB) BeginMint(ctx context.Context, linkID int64, wallet string, at time.Time) (core.MintLink, error) {
	const op = "begin mint"
	if wallet == "" {
		return core.MintLink{}, fmt.Errorf("%s: the wallet is empty", op)
	}
	g := db.gorm.WithContext(ctx)
	var row mintLinkRow
	err := g.Raw(`
		UPDATE mint_links
		SET state = 'minting', wallet = ?, updated_at = ?
		WHERE id = ? AND user_id IS NOT NULL AND state = 'handed_out'
		RETURNING `+linkColumns,
		wallet, dbTime(at), linkID).Scan(&row).Error
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

// FinishMint records, at at, the outcome of the link's mint, from state
// minting (or the same outcome again, which changes nothing but the time
// and a missing transaction id):
//   - core.MintLinkMinted, with the service's transactionID when known;
//   - core.MintLinkHandedOut: the mint did not go through (it was refused,
//     never sent, or its status read unclaimed), the member may retry;
//     the wallet stays recorded;
//   - core.MintLinkClaimedElsewhere: the link had been used; its member and
//     wallet are cleared, as neither got anything through it, so that the
//     member's next claim takes another link.
//
// It returns an error for another state, core.ErrNotFound when the link
// does not exist, and core.ErrConflict when it is not minting.
func (db *DB) FinishMint(ctx context.Context, linkID int64, state core.MintLinkState, transactionID string, at time.Time) error {
	const op = "finish mint"
	switch state {
	case core.MintLinkMinted, core.MintLinkHandedOut, core.MintLinkClaimedElsewhere:
	default:
		return fmt.Errorf("%s: a mint cannot end in state %q", op, state)
	}
	// A link claimed elsewhere leaves its member and wallet.
	elsewhere := state == core.MintLinkClaimedElsewhere
	g := db.gorm.WithContext(ctx)
	res := g.Exec(`
		UPDATE mint_links
		SET state = ?,
			user_id = CASE WHEN ? THEN NULL ELSE user_id END,
			wallet = CASE WHEN ? THEN NULL ELSE wallet END,
			transaction_id = COALESCE(?, transaction_id), updated_at = ?
		WHERE id = ? AND state IN ('minting', ?)`,
		string(state), elsewhere, elsewhere, nullString(transactionID), dbTime(at),
		linkID, string(state))
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
	if err := g.Select("id", "state").Where("id = ?", linkID).Take(&row).Error; err != nil {
		return err
	}
	return fmt.Errorf("link #%d is %s: %w", linkID, row.State, core.ErrConflict)
}

// PendingMints lists the links left minting, by any drop, oldest first,
// for reconciliation at start-up. It returns the database error, if any.
func (db *DB) PendingMints(ctx context.Context) ([]core.MintLink, error) {
	var rows []mintLinkRow
	err := db.gorm.WithContext(ctx).
		Where("state = 'minting'").
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
