package storage

import (
	"database/sql"
	"errors"
	"fmt"

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

// violation is the kind of integrity rule a failed write broke.
type violation int

const (
	noViolation violation = iota
	uniqueViolation
	foreignKeyViolation
)

// translate is the one place where gorm and driver errors become core
// sentinels, prefixed by the operation op:
//   - no row: core.ErrNotFound;
//   - unique or primary key violation: core.ErrConflict;
//   - foreign key violation: core.ErrConflict as well, because for a caller
//     it means the same thing: the write contradicts rows that exist (or no
//     longer exist), and retrying it unchanged will fail again.
//
// Other errors are wrapped unchanged.
func translate(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, gorm.ErrRecordNotFound) || errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s: %w", op, core.ErrNotFound)
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
