package storage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	gosqlite "github.com/glebarez/go-sqlite"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
	sqlite3 "modernc.org/sqlite/lib"
)

// Errors of the storage package itself. Errors about stored rows are the
// core sentinels: core.ErrNotFound and core.ErrConflict.
var (
	// ErrDatabaseURL means DATABASE_URL names no database this program
	// can open.
	ErrDatabaseURL = errors.New("DATABASE_URL must be postgres://..., postgresql://..., sqlite:PATH or empty (bot.db)")
	// ErrSchemaTooNew means the database was migrated by a newer version
	// of the program; running an older one against it could corrupt data.
	ErrSchemaTooNew = errors.New("database schema is newer than this program")
	// ErrNoKey means a method needs the secret key but Open got none
	// (see WithKey).
	ErrNoKey = errors.New("no secret key configured")
	// ErrLocked means another bot process has the SQLite database open:
	// one process per SQLite file (replicas need PostgreSQL).
	ErrLocked = errors.New("another bot process is using this SQLite database (one process per SQLite file; run replicas on PostgreSQL)")
)

// The SQLSTATE codes that map to core sentinels.
const (
	pgUniqueViolation     = "23505"
	pgForeignKeyViolation = "23503"
)

// pgUnavailable are the SQLSTATE codes (or classes, two characters) of a
// server that cannot serve now: connection exceptions, a shutdown or a
// restart that ended the session, too many connections. (A database that
// accepts no connections refuses at connect time: a *pgconn.ConnectError.)
var pgUnavailable = []string{"08", "57P01", "57P02", "57P03", "53300"}

// violation is the kind of integrity rule a failed write broke.
type violation int

const (
	noViolation violation = iota
	uniqueViolation
	foreignKeyViolation
)

// translate is the one place where gorm and driver errors become core
// sentinels, prefixed by the operation op:
//
//   - no row: core.ErrNotFound;
//
//   - unique or primary key violation: core.ErrConflict;
//
//   - foreign key violation: core.ErrConflict as well, because for a caller
//     it means the same thing: the write contradicts rows that exist (or no
//     longer exist), and retrying it unchanged will fail again.
//
//   - a database that cannot serve now (unreachable, refusing
//     connections, shut down, out of connections, locked or full):
//     core.ErrStoreUnavailable.
//
// Other errors are wrapped unchanged.
func translate(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, gorm.ErrRecordNotFound) || errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s: %w", op, core.ErrNotFound)
	}
	if unavailable(err) {
		return fmt.Errorf("%s: %w: %w", op, err, core.ErrStoreUnavailable)
	}
	switch classify(err) {
	case uniqueViolation, foreignKeyViolation:
		return fmt.Errorf("%s: %v: %w", op, err, core.ErrConflict)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// classify says which integrity rule err reports. It checks gorm's
// translated errors and the raw driver codes both, because gorm translates
// only some paths: Raw(...).Scan on Postgres returns the bare *pgconn.PgError.
func classify(err error) violation {
	switch {
	case errors.Is(err, gorm.ErrDuplicatedKey):
		return uniqueViolation
	case errors.Is(err, gorm.ErrForeignKeyViolated):
		return foreignKeyViolation
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case pgUniqueViolation:
			return uniqueViolation
		case pgForeignKeyViolation:
			return foreignKeyViolation
		}
	}
	var liteErr *gosqlite.Error
	if errors.As(err, &liteErr) {
		switch liteErr.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return uniqueViolation
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return foreignKeyViolation
		}
	}
	return noViolation
}

// unavailable reports whether err says the database cannot serve now,
// rather than that the statement was wrong: every later step would fail
// alike until it is back. The caller's own deadline or cancellation is not
// the database's failure.
func unavailable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var (
		connectErr *pgconn.ConnectError
		pgErr      *pgconn.PgError
		netErr     net.Error
		liteErr    *gosqlite.Error
	)
	switch {
	case errors.As(err, &connectErr), errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, io.ErrUnexpectedEOF), errors.As(err, &netErr), pgconn.Timeout(err):
		return true
	case errors.As(err, &pgErr):
		for _, code := range pgUnavailable {
			if strings.HasPrefix(pgErr.Code, code) {
				return true
			}
		}
	case errors.As(err, &liteErr):
		switch liteErr.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_FULL:
			return true
		}
	}
	return false
}
