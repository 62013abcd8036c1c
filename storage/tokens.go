package storage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
)

// serviceTokenRow is a row of service_tokens; Token is ciphertext.
type serviceTokenRow struct {
	Service   string `gorm:"primaryKey"`
	ClientID  string `gorm:"primaryKey"`
	Audience  string `gorm:"primaryKey"`
	Token     []byte
	ExpiresAt time.Time
	UpdatedAt time.Time
}

func (serviceTokenRow) TableName() string { return "service_tokens" }

// tokenIssueRow is a row of token_issues. Service and ClientID are empty
// on the rows recorded before they were kept (whose they were is unknown).
type tokenIssueRow struct {
	ID       int64
	Service  string
	ClientID string
	Audience string
	IssuedAt time.Time
}

func (tokenIssueRow) TableName() string { return "token_issues" }

// issueRetention is how long token_issues keeps a row: the budget looks at
// the last hour; a day leaves room for clocks that disagree.
const issueRetention = 24 * time.Hour

// tokenContext binds a sealed token to its row, so the ciphertext of one
// client's or audience's token cannot be copied into another's row. %q
// keeps the fields apart whatever they hold.
func tokenContext(client core.TokenClient, audience string) string {
	return fmt.Sprintf("service_token:%q:%q:%q", client.Service, client.ID, audience)
}

// checkClient refuses a client or audience with an empty part, which would
// mix tokens and counts of clients the database cannot tell apart.
func checkClient(op string, client core.TokenClient, audience ...string) error {
	if client.Service == "" || client.ID == "" || slices.Contains(audience, "") {
		return fmt.Errorf("%s: the token service, the client id and the audience are required", op)
	}
	return nil
}

// SaveServiceToken stores the access token client got for audience,
// encrypted with the key, replacing the client's previous one for that
// audience; the tokens of other clients (another token service, another
// client id) are never touched. It returns ErrNoKey without a key, or the
// database error.
func (db *DB) SaveServiceToken(ctx context.Context, client core.TokenClient, audience string, token core.Secret, expiresAt time.Time) error {
	const op = "save service token"
	if db.cipher == nil {
		return fmt.Errorf("%s: %w", op, ErrNoKey)
	}
	if err := checkClient(op, client, audience); err != nil {
		return err
	}
	sealed := db.cipher.Seal([]byte(token.Reveal()), tokenContext(client, audience))
	err := db.gorm.WithContext(ctx).Exec(`
		INSERT INTO service_tokens (service, client_id, audience, token, expires_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (service, client_id, audience) DO UPDATE
			SET token = excluded.token, expires_at = excluded.expires_at, updated_at = excluded.updated_at`,
		client.Service, client.ID, audience, sealed, dbTime(expiresAt), now()).Error
	return translate(op, err)
}

// ServiceToken returns the stored access token of client for audience and
// when it expires. It returns core.ErrNotFound when none is stored, ErrNoKey
// without a key, and ErrDecrypt when the stored token was sealed with
// another key or altered.
func (db *DB) ServiceToken(ctx context.Context, client core.TokenClient, audience string) (core.Secret, time.Time, error) {
	const op = "service token"
	if db.cipher == nil {
		return "", time.Time{}, fmt.Errorf("%s: %w", op, ErrNoKey)
	}
	var row serviceTokenRow
	err := db.gorm.WithContext(ctx).
		Where("service = ? AND client_id = ? AND audience = ?", client.Service, client.ID, audience).
		Take(&row).Error
	if err != nil {
		return "", time.Time{}, translate(op, err)
	}
	plain, err := db.cipher.Open(row.Token, tokenContext(client, audience))
	if err != nil {
		return "", time.Time{}, fmt.Errorf("%s %q: %w", op, audience, err)
	}
	return core.Secret(plain), row.ExpiresAt.UTC(), nil
}

// RecordTokenIssue notes that client asked for a token for audience at at.
// It also clears what no longer counts, whoever's it was: issues older than
// a day before at, and tokens that expired before at (a -sandbox run leaves
// one client behind each time, its sandbox's address being new). It
// returns the database error, if any.
func (db *DB) RecordTokenIssue(ctx context.Context, client core.TokenClient, audience string, at time.Time) error {
	const op = "record token issue"
	if err := checkClient(op, client, audience); err != nil {
		return err
	}
	return db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		row := tokenIssueRow{Service: client.Service, ClientID: client.ID, Audience: audience, IssuedAt: dbTime(at)}
		if err := tx.Create(&row).Error; err != nil {
			return translate(op, err)
		}
		if err := tx.Where("issued_at < ?", dbTime(at.Add(-issueRetention))).Delete(&tokenIssueRow{}).Error; err != nil {
			return translate(op, err)
		}
		return translate(op, tx.Where("expires_at < ?", dbTime(at)).Delete(&serviceTokenRow{}).Error)
	})
}

// TokenIssuesSince counts the token requests client made at or after since,
// for every audience: with since an hour ago, the rolling window in which
// the token service bans a client past its budget. Requests recorded before
// the database kept whose they were count for every client. Times are
// compared to the microsecond; since is truncated, which can only widen the
// window. It returns the database error, if any.
func (db *DB) TokenIssuesSince(ctx context.Context, client core.TokenClient, since time.Time) (int, error) {
	var n int64
	err := db.gorm.WithContext(ctx).Model(&tokenIssueRow{}).
		Where("((service = ? AND client_id = ?) OR service = '') AND issued_at >= ?", client.Service, client.ID, dbTime(since)).
		Count(&n).Error
	if err != nil {
		return 0, translate("token issues since", err)
	}
	return int(n), nil
}

// LockTokens runs fn while holding client's token lock, so that one caller
// at a time reads, requests and saves client's tokens, for any audience
// (the budget is the client's): across the replicas that share a
// PostgreSQL database, and across the goroutines of the one process that
// holds a SQLite file. Different clients do not block each other. It
// returns fn's error, the context's error when the lock could not be had in
// time, or the database error.
func (db *DB) LockTokens(ctx context.Context, client core.TokenClient, fn func(ctx context.Context) error) error {
	if db.dialect == DialectPostgres {
		return db.advisoryLock(ctx, lockKey(client), fn)
	}
	return db.fileLock(ctx, lockKey(client), fn)
}

// lockKey names the lock of client's tokens.
func lockKey(client core.TokenClient) string {
	return fmt.Sprintf("poapbot.service_token:%q:%q", client.Service, client.ID)
}

// advisoryLock holds a session-level advisory lock, on a connection taken
// out of the pool for the purpose, while fn runs. The key hashes the schema
// too, so bots sharing a database but not a schema do not wait on each
// other. pg_advisory_lock is strict: a NULL schema would skip the lock
// silently, hence the coalesce.
func (db *DB) advisoryLock(ctx context.Context, key string, fn func(ctx context.Context) error) error {
	const op = "lock tokens"
	const lock = `SELECT pg_advisory_lock(hashtextextended(coalesce(current_schema(), '') || ':' || $1, 0))`
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return translate(op, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, lock, key); err != nil {
		// A cancellation can land after the lock was granted; only
		// closing the session is sure to release it.
		discard(conn)
		return translate(op, err)
	}
	defer db.advisoryUnlock(conn, key)
	return fn(ctx)
}

// advisoryUnlock releases the lock advisoryLock took, even when the caller's
// context is done; if that fails, it closes the session, which releases it.
func (db *DB) advisoryUnlock(conn *sql.Conn, key string) {
	const unlock = `SELECT pg_advisory_unlock(hashtextextended(coalesce(current_schema(), '') || ':' || $1, 0))`
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var released bool
	if err := conn.QueryRowContext(ctx, unlock, key).Scan(&released); err != nil || !released {
		db.log.Warn("release token lock: closing the connection instead", "lock", key, "error", err)
		discard(conn)
	}
}

// discard makes database/sql close conn rather than return it to the pool.
func discard(conn *sql.Conn) {
	conn.Raw(func(any) error { return driver.ErrBadConn })
}

// fileLocks holds one lock per SQLite file and key, as a channel of
// capacity one, so that waiting can be abandoned with the context.
var fileLocks sync.Map

// fileLock runs fn under a lock of this process keyed by the database file.
// That is enough on SQLite: Open lets one process at a time have the file
// (ErrLocked); replicas need PostgreSQL. Keying by file rather than by
// handle makes the handles of successive opens (a restart within a test)
// share the lock.
func (db *DB) fileLock(ctx context.Context, key string, fn func(ctx context.Context) error) error {
	const op = "lock tokens"
	var file string
	err := db.sql.QueryRowContext(ctx, `SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&file)
	if err != nil {
		return translate(op, err)
	}
	v, _ := fileLocks.LoadOrStore(file+"\x00"+key, make(chan struct{}, 1))
	sem := v.(chan struct{})
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", op, ctx.Err())
	}
	defer func() { <-sem }()
	return fn(ctx)
}
