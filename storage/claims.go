package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
)

// Row-lock clauses of the claim's "next available link" subquery.
const (
	// skipLocked lets concurrent claims take different links instead of
	// queueing on the first one.
	skipLocked = "FOR UPDATE SKIP LOCKED"
	// waitLocked waits for locked links: a claim that found every link
	// locked checks with it once whether one was released by a rollback.
	waitLocked = "FOR UPDATE"
)

// ClaimMintLink gives the user one link of the drop, atomically: the link the
// user holds already (again true), whatever its state, or else the next
// available one, handed out at at. wallet, when not empty, is recorded as
// the link's wallet: it is where a direct mint will go, and it must be the
// drop's only link with that wallet (one POAP per wallet per drop). A plain
// hand-out, to be minted on the service's page, passes "" and records none.
//
// The hand-out is one conditional UPDATE ... RETURNING of the first
// available link; on Postgres its subquery takes the row lock with SKIP
// LOCKED, on SQLite the statement holds the database's write lock. The
// unique index on (drop_id, user_id) makes a second link per member
// impossible: when a member races himself, the losing statement fails and
// the winner's link is returned to both.
//
// It returns core.ErrWalletClaimed when another link of the drop went to
// wallet, core.ErrNoMintLinksLeft when no link is available,
// core.ErrDropRemoved when the drop was removed, core.ErrNotFound when it
// does not exist, and core.ErrConflict when the user does not exist.
func (db *DB) ClaimMintLink(ctx context.Context, dropID, userID int64, wallet string, at time.Time) (core.MintLink, bool, error) {
	const op = "claim link"
	at = dbTime(at)
	g := db.gorm.WithContext(ctx)
	row, again, err := db.claim(g, dropID, userID, wallet, at, skipLocked)
	if err == nil && row.ID == 0 {
		// SKIP LOCKED passes over a link locked by a claim that then rolls
		// back, so "none" is confirmed once, waiting for locked links.
		// This also returns the link a racing call of the same member
		// took meanwhile.
		row, again, err = db.claim(g, dropID, userID, wallet, at, waitLocked)
	}
	if err != nil {
		return core.MintLink{}, false, translate(op, err)
	}
	if row.ID == 0 {
		return core.MintLink{}, false, translate(op, soldOut(g, dropID))
	}
	return row.mintLink(), again, nil
}

// claim returns the user's link of the drop (again true) or hands out the
// next available one (see take).
func (db *DB) claim(g *gorm.DB, dropID, userID int64, wallet string, at time.Time, lock string) (mintLinkRow, bool, error) {
	mine, err := memberMintLink(g, dropID, userID)
	if err != nil || mine.ID != 0 {
		return mine, mine.ID != 0, err
	}
	return db.take(g, dropID, userID, wallet, at, lock)
}

// take hands out the next available link of the drop to the user, locked
// with lock, or returns the user's link (again true) when a unique index
// says they hold one now; a zero row when none is available. It returns
// the raw database error, or core.ErrWalletClaimed.
func (db *DB) take(g *gorm.DB, dropID, userID int64, wallet string, at time.Time, lock string) (mintLinkRow, bool, error) {
	if db.dialect != DialectPostgres {
		// SQLite has no row locks: the statement's write lock excludes
		// every other writer while it picks and takes the link.
		lock = ""
	}
	var row mintLinkRow
	err := g.Raw(`
		UPDATE mint_links
		SET state = 'handed_out', user_id = ?, wallet = ?, claimed_at = ?, updated_at = ?
		WHERE id = (
			SELECT id FROM mint_links
			WHERE drop_id = ? AND state = 'available'
			ORDER BY id LIMIT 1 `+lock+`)
		AND state = 'available'
		RETURNING `+linkColumns,
		userID, nullString(wallet), at, at, dropID).Scan(&row).Error
	if err == nil || classify(err) != uniqueViolation {
		// gorm does not translate errors of Raw on Postgres; classify and
		// translate read the driver's codes as well.
		return row, false, err
	}
	// A unique index refused the hand-out: the member holds a link now (a
	// concurrent call of theirs won), or the wallet went with another link.
	mine, err2 := memberMintLink(g, dropID, userID)
	switch {
	case err2 != nil:
		return mintLinkRow{}, false, err2
	case mine.ID != 0:
		return mine, true, nil
	case wallet != "":
		return mintLinkRow{}, false, core.ErrWalletClaimed
	}
	return mintLinkRow{}, false, err
}

// memberMintLink returns the user's link of the drop, or a zero row.
func memberMintLink(g *gorm.DB, dropID, userID int64) (mintLinkRow, error) {
	var row mintLinkRow
	err := g.Raw(`SELECT `+linkColumns+` FROM mint_links WHERE drop_id = ? AND user_id = ?`,
		dropID, userID).Scan(&row).Error
	return row, err
}

// soldOut says why the drop had no link to give: core.ErrNoMintLinksLeft,
// core.ErrDropRemoved, or gorm.ErrRecordNotFound for an unknown drop.
func soldOut(g *gorm.DB, dropID int64) error {
	var d dropRow
	if err := g.Select("id", "removed_at").Where("id = ?", dropID).Take(&d).Error; err != nil {
		return err
	}
	if d.RemovedAt != nil {
		return core.ErrDropRemoved
	}
	return fmt.Errorf("drop #%d: %w", dropID, core.ErrNoMintLinksLeft)
}
