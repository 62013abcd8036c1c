package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
)

// claimSQL is the whole claim on PostgreSQL, one statement: the member's
// link of the drop (mine, again true), or else the first available link,
// handed out by a conditional UPDATE ... RETURNING (taken, again false).
// The subquery looks for an available link only when mine is empty; %s is
// its row lock. Every part reads the statement's one snapshot, so a link
// the member got from a concurrent statement that commits meanwhile is not
// in mine: the unique index on (drop_id, user_id) then refuses the
// hand-out, and the caller reads the link back (see refused).
//
// Parameters: $1 drop, $2 user, $3 wallet or NULL, $4 time.
const claimSQL = `
WITH mine AS (
	SELECT ` + linkColumns + ` FROM mint_links WHERE drop_id = $1 AND user_id = $2
), taken AS (
	UPDATE mint_links
	SET state = 'handed_out', user_id = $2, wallet = $3, claimed_at = $4, updated_at = $4
	WHERE id = (
		SELECT id FROM mint_links
		WHERE drop_id = $1 AND state = 'available' AND NOT EXISTS (SELECT FROM mine)
		ORDER BY id LIMIT 1 %s)
	AND state = 'available'
	RETURNING ` + linkColumns + `
)
SELECT ` + linkColumns + `, false FROM taken
UNION ALL
SELECT ` + linkColumns + `, true FROM mine`

// The claim statements on PostgreSQL, by the row lock of their subquery.
var (
	// claimSkipLockedSQL lets concurrent claims take different links
	// instead of queueing on the first one.
	claimSkipLockedSQL = fmt.Sprintf(claimSQL, "FOR UPDATE SKIP LOCKED")
	// claimWaitLockedSQL waits for locked links: a claim that found every
	// link locked checks with it once whether one was released by a
	// rollback.
	claimWaitLockedSQL = fmt.Sprintf(claimSQL, "FOR UPDATE")
)

// SQLite updates in no WITH clause, so its claim is two statements: the
// look-up of the member's link, then the hand-out. The hand-out needs no
// row lock: it holds the database's write lock, which excludes every
// other writer while it picks and takes the link.
const (
	memberLinkSQLite = `SELECT ` + linkColumns + ` FROM mint_links WHERE drop_id = ? AND user_id = ?`
	takeSQLite       = `
		UPDATE mint_links
		SET state = 'handed_out', user_id = ?, wallet = ?, claimed_at = ?, updated_at = ?
		WHERE id = (
			SELECT id FROM mint_links
			WHERE drop_id = ? AND state = 'available'
			ORDER BY id LIMIT 1)
		AND state = 'available'
		RETURNING ` + linkColumns
)

// memberLinkPostgres is memberLinkSQLite in PostgreSQL's placeholders.
const memberLinkPostgres = `SELECT ` + linkColumns + ` FROM mint_links WHERE drop_id = $1 AND user_id = $2`

// ClaimMintLink gives the user one link of the drop, atomically: the link the
// user holds already (again true), whatever its state, or else the next
// available one, handed out at at. wallet, when not empty, is recorded as
// the link's wallet: it is where a direct mint will go, and it must be the
// drop's only link with that wallet (one POAP per wallet per drop). A plain
// hand-out, to be minted on the service's page, passes "" and records none.
//
// On PostgreSQL a claim is one statement and one round trip (claimSQL),
// sent through pgx on a connection of the pool; claims made at the same
// moment share one (claimBatchSQL, see claimBatcher). On SQLite it is the
// look-up, then the hand-out. The unique index on (drop_id, user_id) makes
// a second link per member impossible: when a member races himself, the
// losing statement fails and the winner's link is returned to both.
//
// It returns core.ErrWalletClaimed when another link of the drop went to
// wallet, core.ErrNoMintLinksLeft when no link is available,
// core.ErrDropRemoved when the drop was removed, core.ErrNotFound when it
// does not exist, and core.ErrConflict when the user does not exist.
func (db *DB) ClaimMintLink(ctx context.Context, dropID, userID int64, wallet string, at time.Time) (core.MintLink, bool, error) {
	const op = "claim link"
	at = dbTime(at)
	row, again, err := db.claimFirst(ctx, dropID, userID, wallet, at)
	if err == nil && row.ID == 0 {
		// SKIP LOCKED passes over a link locked by a claim that then rolls
		// back, so "none" is confirmed once, waiting for locked links.
		// This also returns the link a racing call of the same member
		// took meanwhile.
		row, again, err = db.claim(ctx, dropID, userID, wallet, at, claimWaitLockedSQL)
	}
	if err == nil && row.ID == 0 {
		err = soldOut(db.gorm.WithContext(ctx), dropID)
	}
	if err != nil {
		if unavailable(err) {
			// What watchOutages does for statements sent through gorm.
			db.dropIdle()
		}
		return core.MintLink{}, false, translate(op, err)
	}
	return row.mintLink(), again, nil
}

// claimFirst is the claim's first try: on PostgreSQL it goes with the
// claims made meanwhile (claimBatcher), and alone when its batch failed;
// on SQLite it is claim.
func (db *DB) claimFirst(ctx context.Context, dropID, userID int64, wallet string, at time.Time) (mintLinkRow, bool, error) {
	if db.claims == nil {
		return db.claim(ctx, dropID, userID, wallet, at, claimSkipLockedSQL)
	}
	row, again, err := db.claims.claim(ctx, dropID, userID, wallet, at)
	if errors.Is(err, errBatchRefused) {
		return db.claim(ctx, dropID, userID, wallet, at, claimSkipLockedSQL)
	}
	return row, again, err
}

// claim returns the user's link of the drop (again true) or hands out the
// next available one; a zero row when none is available. On PostgreSQL it
// runs query, claimSkipLockedSQL or claimWaitLockedSQL. It returns the raw
// database error, or core.ErrWalletClaimed.
func (db *DB) claim(ctx context.Context, dropID, userID int64, wallet string, at time.Time, query string) (mintLinkRow, bool, error) {
	if db.dialect != DialectPostgres {
		mine, err := db.memberMintLink(ctx, dropID, userID)
		if err != nil || mine.ID != 0 {
			return mine, mine.ID != 0, err
		}
		return db.take(ctx, dropID, userID, wallet, at)
	}
	var row mintLinkRow
	var again bool
	err := db.withPgx(ctx, func(c *pgx.Conn) error {
		return c.QueryRow(ctx, query, dropID, userID, nullString(wallet), at).Scan(row.dest(&again)...)
	})
	if err == nil || errors.Is(err, sql.ErrNoRows) {
		return row, again, nil
	}
	return db.refused(ctx, dropID, userID, wallet, err)
}

// withPgx runs f with the pgx connection of a connection from the pool.
// pgx's own query path costs the claim less than database/sql's, which
// converts every value and starts a goroutine per query to watch ctx; pgx
// caches the prepared statement per connection either way.
func (db *DB) withPgx(ctx context.Context, f func(*pgx.Conn) error) error {
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("the PostgreSQL connection is a %T, not pgx's", dc)
		}
		return f(c.Conn())
	})
}

// take hands out the next available link of the drop to the user on
// SQLite, without looking for the user's link first; a zero row when none
// is available. When a unique index refuses the hand-out, it returns what
// refused does.
func (db *DB) take(ctx context.Context, dropID, userID int64, wallet string, at time.Time) (mintLinkRow, bool, error) {
	var row mintLinkRow
	err := db.sql.QueryRowContext(ctx, takeSQLite, userID, nullString(wallet), at, at, dropID).Scan(row.dest()...)
	if err == nil || errors.Is(err, sql.ErrNoRows) {
		return row, false, nil
	}
	return db.refused(ctx, dropID, userID, wallet, err)
}

// refused reads back why a hand-out failed with err. When a unique index
// refused it, the member holds a link now (a concurrent call of theirs
// won), returned with again true, or else the wallet went with another
// link: core.ErrWalletClaimed. Otherwise it returns err. gorm translates
// none of these errors: classify reads the driver's codes.
func (db *DB) refused(ctx context.Context, dropID, userID int64, wallet string, err error) (mintLinkRow, bool, error) {
	if classify(err) != uniqueViolation {
		return mintLinkRow{}, false, err
	}
	mine, err2 := db.memberMintLink(ctx, dropID, userID)
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

// MemberMintLink returns the user's link of the drop, whatever its state,
// or core.ErrNotFound, or the database error.
func (db *DB) MemberMintLink(ctx context.Context, dropID, userID int64) (core.MintLink, error) {
	row, err := db.memberMintLink(ctx, dropID, userID)
	if err == nil && row.ID == 0 {
		err = sql.ErrNoRows
	}
	if err != nil {
		return core.MintLink{}, translate("member's link", err)
	}
	return row.mintLink(), nil
}

// memberMintLink returns the user's link of the drop, or a zero row.
func (db *DB) memberMintLink(ctx context.Context, dropID, userID int64) (mintLinkRow, error) {
	query := memberLinkSQLite
	if db.dialect == DialectPostgres {
		query = memberLinkPostgres
	}
	var row mintLinkRow
	err := db.sql.QueryRowContext(ctx, query, dropID, userID).Scan(row.dest()...)
	if errors.Is(err, sql.ErrNoRows) {
		return mintLinkRow{}, nil
	}
	return row, err
}

// dest returns the scan destinations of linkColumns in r, then more.
func (r *mintLinkRow) dest(more ...any) []any {
	return append([]any{&r.ID, &r.DropID, &r.QRHash, &r.State, &r.UserID, &r.Wallet, &r.TransactionID, &r.ClaimedAt, &r.UpdatedAt, &r.MintAttempt, &r.MintLeaseUntil}, more...)
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
