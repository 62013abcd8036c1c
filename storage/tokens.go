package storage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"sync"
	"time"

	"github.com/poapbot/poapbot/core"
)

// serviceTokenRow is a row of service_tokens; Token is ciphertext.
type serviceTokenRow struct {
	Audience  string `gorm:"primaryKey"`
	Token     []byte
	ExpiresAt time.Time
	UpdatedAt time.Time
}

func (serviceTokenRow) TableName() string { return "service_tokens" }

// tokenIssueRow is a row of token_issues.
type tokenIssueRow struct {
	ID       int64
	Audience string
	IssuedAt time.Time
}

func (tokenIssueRow) TableName() string { return "token_issues" }

// tokenContext binds a sealed token to its row, so the ciphertext of one
// audience's token cannot be copied into another's row.
func tokenContext(audience string) string {
	return "service_token:" + audience
}

// SaveServiceToken stores the issuing service's access token for audience,
// encrypted with the key, replacing the previous one. It returns ErrNoKey
// without a key, or the database error.
func (db *DB) SaveServiceToken(ctx context.Context, audience string, token core.Secret, expiresAt time.Time) error {
	const op = "save service token"
	if db.cipher == nil {
		return fmt.Errorf("%s: %w", op, ErrNoKey)
	}
	if audience == "" {
		return fmt.Errorf("%s: the audience is empty", op)
	}
	sealed := db.cipher.Seal([]byte(token.Reveal()), tokenContext(audience))
	err := db.gorm.WithContext(ctx).Exec(`
		INSERT INTO service_tokens (audience, token, expires_at, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (audience) DO UPDATE
			SET token = excluded.token, expires_at = excluded.expires_at, updated_at = excluded.updated_at`,
		audience, sealed, dbTime(expiresAt), now()).Error
	return translate(op, err)
}

// ServiceToken returns the stored access token for audience and when it
// expires. It returns core.ErrNotFound when none is stored, ErrNoKey
// without a key, and ErrDecrypt when the stored token was sealed with
// another key or altered.
func (db *DB) ServiceToken(ctx context.Context, audience string) (core.Secret, time.Time, error) {
	const op = "service token"
	if db.cipher == nil {
		return "", time.Time{}, fmt.Errorf("%s: %w", op, ErrNoKey)
	}
	var row serviceTokenRow
	err := db.gorm.WithContext(ctx).Where("audience = ?", audience).Take(&row).Error
	if err != nil {
		return "", time.Time{}, translate(op, err)
	}
	plain, err := db.cipher.Open(row.Token, tokenContext(audience))
	if err != nil {
		return "", time.Time{}, fmt.Errorf("%s %q: %w", op, audience, err)
	}
	return core.Secret(plain), row.ExpiresAt.UTC(), nil
}

// RecordTokenIssue notes that a token for audience was issued at at. It
// returns the database error, if any.
func (db *DB) RecordTokenIssue(ctx context.Context, audience string, at time.Time) error {
	const op = "record token issue"
	if audience == "" {
		return fmt.Errorf("%s: the audience is empty", op)
	}
	row := tokenIssueRow{Audience: audience, IssuedAt: dbTime(at)}
	return translate(op, db.gorm.WithContext(ctx).Create(&row).Error)
}

// TokenIssuesSince counts the tokens issued for audience at or after since:
// with since an hour ago, the rolling window the issuing service limits.
// Times are compared to the microsecond; since is truncated, which can only
// widen the window. It returns the database error, if any.
func (db *DB) TokenIssuesSince(ctx context.Context, audience string, since time.Time) (int, error) {
	var n int64
	err := db.gorm.WithContext(ctx).Model(&tokenIssueRow{}).
		Where("audience = ? AND issued_at >= ?", audience, dbTime(since)).
		Count(&n).Error
	if err != nil {
		return 0, translate("token issues since", err)
	}
	return int(n), nil
}

// LockTokens runs fn while holding the lock on audience's access token, so
// that one caller at a time reads, requests and saves that token: across
// the replicas that share a PostgreSQL database, and across the goroutines
// and handles of one process on SQLite. Different audiences do not block
// each other. It returns fn's error, the context's error when the lock could
// not be had in time, or the database error.
func (db *DB) LockTokens(ctx context.Context, audience string, fn func(ctx context.Context) error) error {
	if db.dialect == DialectPostgres {
		return db.advisoryLock(ctx, audience, fn)
	}
	return db.fileLock(ctx, audience, fn)
}

// lockKey names the lock of audience's token.
func lockKey(audience string) string {
	return "poapbot.service_token:" + audience
}

// advisoryLock holds a session-level advisory lock, on a connection taken
// out of the pool for the purpose, while fn runs. The key hashes the schema
// too, so bots sharing a database but not a schema do not wait on each
// other. pg_advisory_lock is strict: a NULL schema would skip the lock
// silently, hence the coalesce.
func (db *DB) advisoryLock(ctx context.Context, audience string, fn func(ctx context.Context) error) error {
	const op = "lock tokens"
	const lock = `SELECT pg_advisory_lock(hashtextextended(coalesce(current_schema(), '') || ':' || $1, 0))`
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return translate(op, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, lock, lockKey(audience)); err != nil {
		// A cancellation can land after the lock was granted; only
		// closing the session is sure to release it.
		discard(conn)
		return translate(op, err)
	}
	defer db.advisoryUnlock(conn, audience)
	return fn(ctx)
}

// advisoryUnlock releases the lock advisoryLock took, even when the caller's
// context is done; if that fails, it closes the session, which releases it.
func (db *DB) advisoryUnlock(conn *sql.Conn, audience string) {
	const unlock = `SELECT pg_advisory_unlock(hashtextextended(coalesce(current_schema(), '') || ':' || $1, 0))`
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var released bool
	if err := conn.QueryRowContext(ctx, unlock, lockKey(audience)).Scan(&released); err != nil || !released {
		db.log.Warn("release token lock: closing the connection instead", "audience", audience, "error", err)
		discard(conn)
	}
}

// discard makes database/sql close conn rather than return it to the pool.
func discard(conn *sql.Conn) {
	conn.Raw(func(any) error { return driver.ErrBadConn })
}

// fileLocks holds one lock per SQLite file and audience, as a channel of
// capacity one, so that waiting can be abandoned with the context.
var fileLocks sync.Map

// fileLock runs fn under a lock of this process keyed by the database file.
// That is enough on SQLite: Open lets one process at a time have the file
// (ErrLocked); replicas need PostgreSQL. Keying by file rather than by
// handle makes the handles of successive opens (a restart within a test)
// share the lock.
func (db *DB) fileLock(ctx context.Context, audience string, fn func(ctx context.Context) error) error {
	const op = "lock tokens"
	var file string
	err := db.sql.QueryRowContext(ctx, `SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&file)
	if err != nil {
		return translate(op, err)
	}
	v, _ := fileLocks.LoadOrStore(file+"\x00"+audience, make(chan struct{}, 1))
	sem := v.(chan struct{})
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", op, ctx.Err())
	}
	defer func() { <-sem }()
	return fn(ctx)
}
