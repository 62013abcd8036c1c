package storage

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
)

var _ core.WebsiteStore = (*DB)(nil)

// websiteClaimRow is a row of website_claims.
type websiteClaimRow struct {
	ID            int64
	DropID        int64
	UserID        *int64
	Wallet        string
	State         string
	Reason        string
	Sent          bool
	Tries         int
	DueAt         time.Time
	QRHash        string
	TransactionID string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

const websiteClaimColumns = "id, drop_id, user_id, wallet, state, reason, sent, tries, due_at, qr_hash, transaction_id, created_at, updated_at"

func (r websiteClaimRow) claim() core.WebsiteClaim {
	return core.WebsiteClaim{
		ID: r.ID, DropID: r.DropID, UserID: r.UserID, Wallet: r.Wallet, State: core.WebsiteClaimState(r.State),
		Reason: r.Reason, Sent: r.Sent, Tries: r.Tries, DueAt: r.DueAt.UTC(), QRHash: r.QRHash,
		TransactionID: r.TransactionID, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}

// SetDropWebsite makes the drop mint through the website claim name,
// requested by the bot at requestedAt (nil when the drop had it already).
// It returns core.ErrNotFound when the drop does not exist.
func (db *DB) SetDropWebsite(ctx context.Context, dropID int64, name string, requestedAt *time.Time) error {
	const op = "set drop website"
	name = strings.TrimSpace(name)
	if name == "" {
		return fmt.Errorf("%s: the website name is empty", op)
	}
	res := db.gorm.WithContext(ctx).Exec(`UPDATE drops SET method = ?, website = ?, website_requested_at = ? WHERE id = ?`,
		methodWebsite, name, nullTime(requestedAt), dropID)
	if res.Error != nil {
		return translate(op, res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("%s: drop #%d: %w", op, dropID, core.ErrNotFound)
	}
	return nil
}

// QueueWebsiteClaim queues the user's mint of the drop to wallet, due at
// at, in one conditional INSERT: the unique indexes on (drop, user) and
// (drop, lower(wallet)) make a second claim per member or per wallet
// impossible, however many race. When the user has a claim of the drop it
// is returned (again true), queued again to wallet when it was refused.
// It returns core.ErrWalletClaimed when another member's claim of the drop
// has that wallet, and an error for an empty wallet.
func (db *DB) QueueWebsiteClaim(ctx context.Context, dropID, userID int64, wallet string, at time.Time) (core.WebsiteClaim, bool, error) {
	const op = "queue website claim"
	if wallet = strings.TrimSpace(wallet); wallet == "" {
		return core.WebsiteClaim{}, false, fmt.Errorf("%s: the wallet is empty", op)
	}
	at = dbTime(at)
	g := db.gorm.WithContext(ctx)
	var row websiteClaimRow
	err := g.Raw(`
		INSERT INTO website_claims (drop_id, user_id, wallet, state, due_at, created_at, updated_at)
		VALUES (?, ?, ?, 'queued', ?, ?, ?)
		ON CONFLICT DO NOTHING
		RETURNING `+websiteClaimColumns, dropID, userID, wallet, at, at, at).Scan(&row).Error
	if err != nil {
		return core.WebsiteClaim{}, false, translate(op, err)
	}
	if row.ID != 0 {
		return row.claim(), false, nil
	}
	mine, err := db.MemberWebsiteClaim(ctx, dropID, userID)
	switch {
	case err == nil && mine.State == core.WebsiteRefused:
		return db.requeueWebsite(ctx, mine.ID, wallet, at)
	case err == nil:
		return mine, true, nil
	case errors.Is(err, core.ErrNotFound):
		// The wallet's claim is another member's.
		return core.WebsiteClaim{}, false, fmt.Errorf("%s: %w", op, core.ErrWalletClaimed)
	}
	return core.WebsiteClaim{}, false, err
}

// requeueWebsite queues a refused claim again, to wallet.
func (db *DB) requeueWebsite(ctx context.Context, id int64, wallet string, at time.Time) (core.WebsiteClaim, bool, error) {
	const op = "queue website claim"
	var row websiteClaimRow
	err := db.gorm.WithContext(ctx).Raw(`
		UPDATE website_claims SET state = 'queued', reason = '', sent = FALSE, wallet = ?, due_at = ?, updated_at = ?
		WHERE id = ? AND state = 'refused'
		RETURNING `+websiteClaimColumns, wallet, at, at, id).Scan(&row).Error
	switch {
	case err != nil && classify(err) == uniqueViolation:
		return core.WebsiteClaim{}, false, fmt.Errorf("%s: %w", op, core.ErrWalletClaimed)
	case err != nil:
		return core.WebsiteClaim{}, false, translate(op, err)
	case row.ID == 0:
		// Queued again by a racing claim of the member's meanwhile.
		c, err := db.WebsiteClaim(ctx, id)
		return c, true, err
	}
	return row.claim(), true, nil
}

// WebsiteClaim returns the claim, or core.ErrNotFound.
func (db *DB) WebsiteClaim(ctx context.Context, id int64) (core.WebsiteClaim, error) {
	return db.websiteClaimWhere(ctx, "website claim", "id = ?", id)
}

// MemberWebsiteClaim returns the user's claim of the drop, or
// core.ErrNotFound.
func (db *DB) MemberWebsiteClaim(ctx context.Context, dropID, userID int64) (core.WebsiteClaim, error) {
	return db.websiteClaimWhere(ctx, "member website claim", "drop_id = ? AND user_id = ?", dropID, userID)
}

func (db *DB) websiteClaimWhere(ctx context.Context, op, where string, args ...any) (core.WebsiteClaim, error) {
	var row websiteClaimRow
	err := db.gorm.WithContext(ctx).Raw(`SELECT `+websiteClaimColumns+` FROM website_claims WHERE `+where, args...).Scan(&row).Error
	switch {
	case err != nil:
		return core.WebsiteClaim{}, translate(op, err)
	case row.ID == 0:
		return core.WebsiteClaim{}, fmt.Errorf("%s: %w", op, core.ErrNotFound)
	}
	return row.claim(), nil
}

// TakeWebsiteClaims takes up to limit claims due at now, oldest due first:
// queued ones, and sending ones whose lease ended (their taker died, or
// its request outlived the lease). Each becomes sending until now+lease,
// with one more try, in one UPDATE that hands a claim to one taker only
// (SKIP LOCKED on PostgreSQL; SQLite's write lock on SQLite); the Tries
// each comes back with is the taker's to present to MarkWebsiteSent and
// FinishWebsiteClaim.
func (db *DB) TakeWebsiteClaims(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]core.WebsiteClaim, error) {
	const op = "take website claims"
	if limit <= 0 {
		return nil, nil
	}
	lock := ""
	if db.dialect == DialectPostgres {
		lock = "FOR UPDATE SKIP LOCKED"
	}
	now = dbTime(now)
	var rows []websiteClaimRow
	err := db.gorm.WithContext(ctx).Raw(`
		UPDATE website_claims SET state = 'sending', due_at = ?, tries = tries + 1, updated_at = ?
		WHERE id IN (
			SELECT id FROM website_claims
			WHERE state IN ('queued', 'sending') AND due_at <= ?
			ORDER BY due_at, id LIMIT ? `+lock+`)
		RETURNING `+websiteClaimColumns, now.Add(lease), now, now, limit).Scan(&rows).Error
	if err != nil {
		return nil, translate(op, err)
	}
	slices.SortFunc(rows, func(a, b websiteClaimRow) int { return int(a.ID - b.ID) })
	out := make([]core.WebsiteClaim, len(rows))
	for i, r := range rows {
		out[i] = r.claim()
	}
	return out, nil
}

// MarkWebsiteSent records that a request for the claim c, as its taker
// took it, is about to leave: from then on it is settled before anything
// is sent again. It returns core.ErrConflict unless the claim is sending
// by that take (c.Tries): a taker whose lease ran out and was taken again
// sends nothing.
func (db *DB) MarkWebsiteSent(ctx context.Context, c core.WebsiteClaim, at time.Time) error {
	res := db.gorm.WithContext(ctx).Exec(`UPDATE website_claims SET sent = TRUE, updated_at = ? WHERE id = ? AND state = 'sending' AND tries = ?`,
		dbTime(at), c.ID, c.Tries)
	return websiteChanged(db.gorm.WithContext(ctx), "mark website claim sent", c.ID, res)
}

// FinishWebsiteClaim records what became of the claim c the dispatcher took,
// from sending by that take (c.Tries) only: minted (with the claim record's
// code and transaction when the service gave them), refused (with its
// reason; nothing was minted, so it is no longer sent), or queued again, due
// at out.DueAt (the service asked to slow down, or the outcome is unknown:
// out.Sent). It returns core.ErrConflict unless the claim is sending by that
// take (a taker whose lease ran out records nothing over the next taker's),
// and an error for an unknown outcome.
func (db *DB) FinishWebsiteClaim(ctx context.Context, c core.WebsiteClaim, out core.WebsiteOutcome, at time.Time) error {
	const op = "finish website claim"
	g := db.gorm.WithContext(ctx)
	id, tries := c.ID, c.Tries
	at = dbTime(at)
	var res *gorm.DB
	switch out.State {
	case core.WebsiteMinted:
		res = g.Exec(`
			UPDATE website_claims SET state = 'minted', reason = '',
				qr_hash = CASE WHEN ? = '' THEN qr_hash ELSE ? END,
				transaction_id = CASE WHEN ? = '' THEN transaction_id ELSE ? END, updated_at = ?
			WHERE id = ? AND state = 'sending' AND tries = ?`,
			out.Mint.QRHash, out.Mint.QRHash, out.Mint.TransactionID, out.Mint.TransactionID, at, id, tries)
	case core.WebsiteRefused:
		if out.Reason == "" {
			return fmt.Errorf("%s: a refusal without a reason", op)
		}
		res = g.Exec(`
			UPDATE website_claims SET state = 'refused', reason = ?, sent = FALSE, updated_at = ?
			WHERE id = ? AND state = 'sending' AND tries = ?`,
			out.Reason, at, id, tries)
	case core.WebsiteQueued:
		res = g.Exec(`
			UPDATE website_claims SET state = 'queued', sent = ?, due_at = ?, updated_at = ?
			WHERE id = ? AND state = 'sending' AND tries = ?`,
			out.Sent, dbTime(out.DueAt), at, id, tries)
	default:
		return fmt.Errorf("%s: unknown outcome %q", op, out.State)
	}
	return websiteChanged(g, op, id, res)
}

// websiteChanged turns a conditional UPDATE of one claim into an error:
// core.ErrNotFound when the claim does not exist, core.ErrConflict when it
// was not in the state, or at the take, the UPDATE required.
func websiteChanged(g *gorm.DB, op string, id int64, res *gorm.DB) error {
	if res.Error != nil {
		return translate(op, res.Error)
	}
	if res.RowsAffected == 1 {
		return nil
	}
	var n int64
	if err := g.Raw(`SELECT count(*) FROM website_claims WHERE id = ?`, id).Scan(&n).Error; err != nil {
		return translate(op, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: claim #%d: %w", op, id, core.ErrNotFound)
	}
	return fmt.Errorf("%s: claim #%d is not being sent by this taker: %w", op, id, core.ErrConflict)
}

// WebsiteQueueAhead counts the claims, of every drop, queued or being sent
// and queued before the claim.
func (db *DB) WebsiteQueueAhead(ctx context.Context, id int64) (int, error) {
	var n int64
	err := db.gorm.WithContext(ctx).Raw(`SELECT count(*) FROM website_claims WHERE state IN ('queued', 'sending') AND id < ?`, id).
		Scan(&n).Error
	if err != nil {
		return 0, translate("website queue", err)
	}
	return int(n), nil
}

// WebsiteStats counts the drop's website claims by state; claims being
// sent count as queued.
func (db *DB) WebsiteStats(ctx context.Context, dropID int64) (core.WebsiteStats, error) {
	var rows []struct {
		State string
		N     int
	}
	err := db.gorm.WithContext(ctx).Raw(`SELECT state, count(*) AS n FROM website_claims WHERE drop_id = ? GROUP BY state`, dropID).
		Scan(&rows).Error
	if err != nil {
		return core.WebsiteStats{}, translate("website stats", err)
	}
	var st core.WebsiteStats
	for _, r := range rows {
		switch core.WebsiteClaimState(r.State) {
		case core.WebsiteQueued, core.WebsiteSending:
			st.Queued += r.N
		case core.WebsiteMinted:
			st.Minted += r.N
		case core.WebsiteRefused:
			st.Refused += r.N
		}
	}
	return st, nil
}
