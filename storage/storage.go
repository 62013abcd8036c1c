// Package storage keeps the bot's state in PostgreSQL or in an embedded
// SQLite file. It applies the schema from package migrations at Open,
// implements every store the core's services consume (core.MemberStore,
// core.AuditLog, core.WalletStore, core.ButtonStore, core.DropStore,
// core.MintLinkStore, core.WebsiteStore, core.DeliveryStore,
// core.NetworkStore, core.PostStore, core.GateStore, core.MomentStore,
// core.Inbox) and the locks replicas share (core.Exclusive), stores
// the issuing service's access token and drop edit codes encrypted, and
// translates driver errors into core sentinels in one place.
package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/glebarez/sqlite"
	"github.com/poapbot/poapbot/core"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// DB is an open database. It is safe for concurrent use.
type DB struct {
	gorm    *gorm.DB
	sql     *sql.DB
	dialect string
	cipher  *Cipher
	log     *slog.Logger
	lock    *sqliteLock // held while a SQLite database is open; nil on PostgreSQL

	// maxIdle is the pool's number of idle connections, for dropIdle.
	maxIdle int

	// pruned is when FinishUpdates last deleted the inbox's old rows;
	// shared by the copies of a DB (tests make some with another key).
	pruned *pruneClock
	// buttonsPruned is when SaveButtonAction last deleted expired
	// buttons.
	buttonsPruned *pruneClock
	// lockCheck spaces the checks that the session holding an advisory
	// lock of TryExclusive is alive; tests shorten it.
	lockCheck time.Duration
	// claims gathers concurrent claims on PostgreSQL; nil on SQLite,
	// whose writes go one at a time whatever their statements.
	claims *claimBatcher
}

// pruneClock is when old rows were last deleted.
type pruneClock struct {
	mu sync.Mutex
	at time.Time
}

// due reports whether a prunePeriod passed since the last pruning, and if
// so takes the turn: the pruning is then at at.
func (c *pruneClock) due(at time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if at.Sub(c.at) < prunePeriod {
		return false
	}
	c.at = at
	return true
}

// DB is every store the core's services consume.
var (
	_ core.MemberStore   = (*DB)(nil)
	_ core.AuditLog      = (*DB)(nil)
	_ core.MintLinkStore = (*DB)(nil)
)

// Option changes how Open sets up the database.
type Option func(*options)

type options struct {
	log *slog.Logger
	key *Key
}

// WithLogger sets the logger for migrations and other events; the default
// (and nil) discards.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.log = l
		}
	}
}

// WithKey sets the secret key that encrypts stored secrets (see LoadKey).
// Without it, methods that encrypt or decrypt return ErrNoKey.
func WithKey(k Key) Option {
	return func(o *options) { o.key = &k }
}

// Open connects to the database that databaseURL (DATABASE_URL) names and
// applies pending migrations. postgres:// and postgresql:// URLs open
// PostgreSQL; sqlite:PATH and sqlite://PATH open that SQLite file, and an
// empty URL opens bot.db in the working directory. It returns an error
// wrapping ErrDatabaseURL for any other URL, ErrSchemaTooNew when the
// database was migrated by a newer program, ErrLocked when the SQLite file
// is open in another process (or through another DB of this one: one
// process per SQLite file, held by an OS lock on PATH.lock until Close), or
// the connection or migration error. Errors never show the URL's password.
func Open(ctx context.Context, databaseURL string, opts ...Option) (*DB, error) {
	o := options{log: slog.New(slog.DiscardHandler)}
	for _, opt := range opts {
		opt(&o)
	}
	t, err := parseDatabaseURL(databaseURL)
	if err != nil {
		return nil, err
	}
	db, err := connect(t, o)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", t.display, err)
	}
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open database %s: %w", t.display, err)
	}
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open database %s: %w", t.display, err)
	}
	return db, nil
}

// connect builds the gorm and database/sql handles for t without touching
// the network. On SQLite it first takes the file's lock, before any
// connection: a refused process must not even run the migrations.
func connect(t target, o options) (*DB, error) {
	dialector, err := dialectorFor(t)
	if err != nil {
		return nil, err
	}
	var lock *sqliteLock
	if t.dialect == DialectSQLite {
		if lock, err = lockSQLite(t.path); err != nil {
			return nil, err
		}
	}
	db, err := connectGorm(t, dialector, o)
	if err != nil {
		lock.release()
		return nil, err
	}
	db.lock = lock
	return db, nil
}

// connectGorm builds the handles of connect.
func connectGorm(t target, dialector gorm.Dialector, o options) (*DB, error) {
	g, err := gorm.Open(dialector, &gorm.Config{
		// Errors are returned to the caller, who logs them once with
		// context; gorm's logger would log expected conflicts as errors
		// a second time, with the SQL.
		Logger:                 logger.Discard,
		TranslateError:         true,
		SkipDefaultTransaction: true,
		DisableAutomaticPing:   true,
		NowFunc:                now,
	})
	if err != nil {
		return nil, err
	}
	sqlDB, err := g.DB()
	if err != nil {
		return nil, err
	}
	idle := configurePool(sqlDB, t.dialect)
	db := &DB{gorm: g, sql: sqlDB, dialect: t.dialect, log: o.log, maxIdle: idle, pruned: &pruneClock{}, buttonsPruned: &pruneClock{}, lockCheck: lockCheckEvery}
	if o.key != nil {
		db.cipher = NewCipher(*o.key)
	}
	if t.dialect == DialectPostgres {
		db.claims = &claimBatcher{run: db.claimBatch}
	}
	if err := db.watchOutages(); err != nil {
		return nil, err
	}
	return db, nil
}

// watchOutages drops the pool's idle connections whenever a statement finds
// the database unavailable: a server that restarted, or terminated its
// sessions, leaves every pooled connection dead, and each would otherwise
// fail one more command once the server is back.
func (db *DB) watchOutages() error {
	check := func(tx *gorm.DB) {
		if tx.Error != nil && unavailable(tx.Error) {
			db.dropIdle()
		}
	}
	cb := db.gorm.Callback()
	for _, err := range []error{
		cb.Create().After("*").Register("poapbot:outage", check),
		cb.Query().After("*").Register("poapbot:outage", check),
		cb.Update().After("*").Register("poapbot:outage", check),
		cb.Delete().After("*").Register("poapbot:outage", check),
		cb.Row().After("*").Register("poapbot:outage", check),
		cb.Raw().After("*").Register("poapbot:outage", check),
	} {
		if err != nil {
			return fmt.Errorf("open database: %w", err)
		}
	}
	return nil
}

// dropIdle closes the idle connections of the pool; new ones are opened as
// they are needed.
func (db *DB) dropIdle() {
	db.sql.SetMaxIdleConns(0)
	db.sql.SetMaxIdleConns(db.maxIdle)
}

// dialectorFor returns the gorm dialector for t.
func dialectorFor(t target) (gorm.Dialector, error) {
	if t.dialect == DialectPostgres {
		return postgres.Open(t.dsn), nil
	}
	// SQLite would report a missing directory as "out of memory".
	if _, err := os.Stat(filepath.Dir(t.path)); err != nil {
		return nil, err
	}
	return sqlite.Open(t.dsn), nil
}

// configurePool bounds the connection pool and returns how many idle
// connections it keeps.
func configurePool(db *sql.DB, dialect string) int {
	if dialect == DialectSQLite {
		// WAL lets readers run beside the one writer, so a few connections
		// help; many would only queue on SQLite's write lock, where the
		// busy handler's sleeps are less fair than database/sql's queue.
		// Connections are kept: each new one re-runs the pragmas.
		db.SetMaxOpenConns(4)
		db.SetMaxIdleConns(4)
		db.SetConnMaxLifetime(0)
		return 4
	}
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(8)
	db.SetConnMaxIdleTime(5 * time.Minute)
	db.SetConnMaxLifetime(30 * time.Minute)
	return 8
}

// Close closes the database's connections and, on SQLite, then releases
// the file's lock.
func (db *DB) Close() error {
	return errors.Join(db.sql.Close(), db.lock.release())
}

// Ping checks that the database answers, for readiness probes. It returns
// the connection error, prefixed "ping database".
func (db *DB) Ping(ctx context.Context) error {
	if err := db.sql.PingContext(ctx); err != nil {
		if unavailable(err) {
			db.dropIdle()
		}
		return fmt.Errorf("ping database: %w", err)
	}
	return nil
}

// Dialect returns DialectPostgres or DialectSQLite.
func (db *DB) Dialect() string {
	return db.dialect
}

// Cipher returns the cipher built from the key given to Open with WithKey,
// for features that store other secrets (drop edit codes). It returns nil
// when Open was given no key.
func (db *DB) Cipher() *Cipher {
	return db.cipher
}

// now returns the time to store: UTC, because SQLite compares times as
// text, and truncated to the microsecond, the precision of Postgres, so a
// value reads back equal on both dialects.
func now() time.Time {
	return dbTime(time.Now())
}

// dbTime normalises t as now does.
func dbTime(t time.Time) time.Time {
	return t.UTC().Truncate(time.Microsecond)
}
