package storage

import (
	"fmt"
	"net/url"
	"strings"
)

// The dialects Open understands, as Dialect reports them.
const (
	DialectPostgres = "postgres"
	DialectSQLite   = "sqlite"
)

// defaultSQLitePath is the database used when DATABASE_URL is empty.
const defaultSQLitePath = "bot.db"

// sqlitePragmas are set on every SQLite connection: wait up to 20 s for a
// lock instead of failing at once (the file belongs to this one process,
// see ErrLocked, so the lock is only ever held by its own transactions: a
// burst of a thousand claims on a busy machine queues for it, and failing
// a member's claim after 5 s would be worse than waiting, within the 30 s
// a command has), write-ahead logging so readers never block the writer,
// foreign keys enforced (SQLite's default is off), and BEGIN IMMEDIATE so
// a transaction takes the write lock when it starts rather than failing to
// upgrade a read lock half-way through.
const sqlitePragmas = "_pragma=busy_timeout(20000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate"

// target is a parsed DATABASE_URL.
type target struct {
	dialect string
	dsn     string // what the driver opens
	path    string // the SQLite file; empty for Postgres
	display string // safe to print: no password, no query
}

// parseDatabaseURL reads DATABASE_URL: postgres:// or postgresql:// for
// PostgreSQL; sqlite:PATH, sqlite://PATH or empty (bot.db) for SQLite. It
// returns an error wrapping ErrDatabaseURL for anything else, without
// echoing the value, which may hold a password.
func parseDatabaseURL(s string) (target, error) {
	lower := strings.ToLower(s)
	switch {
	case s == "":
		return sqliteTarget(defaultSQLitePath)
	case strings.HasPrefix(lower, "postgres://"), strings.HasPrefix(lower, "postgresql://"):
		return postgresTarget(s)
	case strings.HasPrefix(lower, "sqlite://"):
		return sqliteTarget(s[len("sqlite://"):])
	case strings.HasPrefix(lower, "sqlite:"):
		return sqliteTarget(s[len("sqlite:"):])
	}
	return target{}, fmt.Errorf("open database: %w", ErrDatabaseURL)
}

// sqliteTarget builds the SQLite DSN for a file path. A query string is
// refused: the pragmas above are not negotiable, and a '?' in the path
// would be read as one.
func sqliteTarget(path string) (target, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return target{}, fmt.Errorf("open database: sqlite path %q: %w", path, ErrDatabaseURL)
	}
	return target{
		dialect: DialectSQLite,
		dsn:     path + "?" + sqlitePragmas,
		path:    path,
		display: "sqlite:" + path,
	}, nil
}

// postgresTarget checks a PostgreSQL URL and keeps a printable form of it
// without user, password or query (which may carry password=...).
func postgresTarget(s string) (target, error) {
	u, err := url.Parse(s)
	if err != nil {
		// url.Error would quote the whole URL, password included.
		return target{}, fmt.Errorf("open database: DATABASE_URL is not a valid URL: %w", ErrDatabaseURL)
	}
	display := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
	return target{dialect: DialectPostgres, dsn: s, display: display}, nil
}
