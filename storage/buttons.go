package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/poapbot/poapbot/core"
)

var _ core.ButtonStore = (*DB)(nil)

// buttonStatements are the buttons' statements in one dialect. A button is
// saved whenever a reply or a post that has one is sent, so they go through
// database/sql, with no gorm in between.
type buttonStatements struct {
	// save inserts an action or, for one stored with the same platform,
	// place, member and line, moves its expiry to the later (NULL, never,
	// wins) and returns the stored row: id, platform, place, member, line,
	// created, expires.
	save string
	// get reads one action by id.
	get string
	// prune deletes the actions expired before a time.
	prune string
}

var (
	buttonsPostgres = buttonStatements{
		save: `
			INSERT INTO buttons (id, platform, place, member, line, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (platform, place, member, line) DO UPDATE SET expires_at =
				CASE WHEN buttons.expires_at IS NULL OR excluded.expires_at IS NULL THEN NULL
				ELSE GREATEST(buttons.expires_at, excluded.expires_at) END
			RETURNING id, platform, place, member, line, created_at, expires_at`,
		get:   `SELECT id, platform, place, member, line, created_at, expires_at FROM buttons WHERE id = $1`,
		prune: `DELETE FROM buttons WHERE expires_at < $1`,
	}
	buttonsSQLite = buttonStatements{
		save: `
			INSERT INTO buttons (id, platform, place, member, line, created_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (platform, place, member, line) DO UPDATE SET expires_at =
				CASE WHEN buttons.expires_at IS NULL OR excluded.expires_at IS NULL THEN NULL
				ELSE max(buttons.expires_at, excluded.expires_at) END
			RETURNING id, platform, place, member, line, created_at, expires_at`,
		get:   `SELECT id, platform, place, member, line, created_at, expires_at FROM buttons WHERE id = ?`,
		prune: `DELETE FROM buttons WHERE expires_at < ?`,
	}
)

// buttons returns the buttons' statements in the database's dialect.
func (db *DB) buttons() *buttonStatements {
	if db.dialect == DialectPostgres {
		return &buttonsPostgres
	}
	return &buttonsSQLite
}

// buttonPruneAfter is how long an expired action is kept: a member who
// presses it meanwhile is told it expired rather than that it is unknown.
const buttonPruneAfter = 7 * 24 * time.Hour

// SaveButtonAction stores a, in one statement, and returns it as stored:
// an action with the same platform, place, member and line is stored once,
// its ID kept and its expiry moved to the later of the two (none wins). A
// zero CreatedAt is now. Then, at most once a prunePeriod per process, it
// deletes the actions expired more than buttonPruneAfter ago. It returns
// an error for an action without an ID, platform, place or line, or the
// database's, translated.
func (db *DB) SaveButtonAction(ctx context.Context, a core.ButtonAction) (core.ButtonAction, error) {
	const op = "save button"
	if a.ID == "" || a.Platform == "" || a.Place == "" || a.Line == "" {
		return core.ButtonAction{}, fmt.Errorf("%s: incomplete action", op)
	}
	var expires any
	if a.ExpiresAt != nil {
		expires = dbTime(*a.ExpiresAt)
	}
	at := createdAt(a.CreatedAt)
	row := db.sql.QueryRowContext(ctx, db.buttons().save, a.ID, string(a.Platform), a.Place, a.Member, a.Line, at, expires)
	saved, err := scanButton(row)
	if err != nil {
		return core.ButtonAction{}, db.failed(op, err)
	}
	db.pruneButtons(ctx, at)
	return saved, nil
}

// ButtonAction returns the action with that ID, or core.ErrNotFound. It
// returns the database's error, translated.
func (db *DB) ButtonAction(ctx context.Context, id string) (core.ButtonAction, error) {
	a, err := scanButton(db.sql.QueryRowContext(ctx, db.buttons().get, id))
	if errors.Is(err, sql.ErrNoRows) {
		return core.ButtonAction{}, fmt.Errorf("button: %w", core.ErrNotFound)
	}
	if err != nil {
		return core.ButtonAction{}, db.failed("button", err)
	}
	return a, nil
}

// scanButton reads a row of the save and get statements.
func scanButton(row *sql.Row) (core.ButtonAction, error) {
	var a core.ButtonAction
	var platform string
	var expires sql.NullTime
	if err := row.Scan(&a.ID, &platform, &a.Place, &a.Member, &a.Line, &a.CreatedAt, &expires); err != nil {
		return core.ButtonAction{}, err
	}
	a.Platform, a.CreatedAt = core.Platform(platform), a.CreatedAt.UTC()
	if expires.Valid {
		t := expires.Time.UTC()
		a.ExpiresAt = &t
	}
	return a, nil
}

// pruneButtons deletes the actions expired more than buttonPruneAfter
// before at, at most once a prunePeriod per process (the first call
// prunes). A failure is logged: it only delays the next.
func (db *DB) pruneButtons(ctx context.Context, at time.Time) {
	if !db.buttonsPruned.due(at) {
		return
	}
	if _, err := db.sql.ExecContext(ctx, db.buttons().prune, dbTime(at.Add(-buttonPruneAfter))); err != nil {
		db.log.Warn("deleting expired buttons failed", "err", db.failed("prune buttons", err))
	}
}

// forgetButtons deletes, within tx, the buttons made for the member with
// that platform id: their lines may name the member's wallets.
func forgetButtons(tx *gorm.DB, p core.Platform, externalID string) error {
	return tx.Exec(`DELETE FROM buttons WHERE platform = ? AND member = ? AND member <> ''`, string(p), externalID).Error
}
