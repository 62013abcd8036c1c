package storage

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/poapbot/poapbot/migrations"
)

// migrationLockID is the Postgres advisory lock that serialises migrations
// between replicas starting at the same time ("poapbot" in ASCII).
const migrationLockID = 0x706f6170626f74

// migration is one numbered SQL file.
type migration struct {
	version int
	name    string
	sql     string
}

// migrate applies the migrations the database lacks, each in its own
// transaction together with its schema_migrations row. It returns an error
// wrapping ErrSchemaTooNew when the database knows a version this program
// does not.
func (db *DB) migrate(ctx context.Context) error {
	all, err := loadMigrations(migrations.FS, db.dialect)
	if err != nil {
		return err
	}
	if err := db.createMigrationTable(ctx); err != nil {
		return err
	}
	current, err := db.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	latest := len(all)
	if current > latest {
		return fmt.Errorf("migrate: the database is at version %d, this program knows up to %d; run a newer program: %w",
			current, latest, ErrSchemaTooNew)
	}
	for _, m := range all[current:] {
		applied, err := db.apply(ctx, m)
		if err != nil {
			return fmt.Errorf("migrate to %04d_%s: %w", m.version, m.name, err)
		}
		if applied {
			db.log.InfoContext(ctx, "applied database migration", "version", m.version, "name", m.name, "dialect", db.dialect)
		}
	}
	return nil
}

// SchemaVersion returns the number of the last migration applied to the
// database, 0 for none. It returns the database error, if any.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := db.sql.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("schema version: %w", err)
	}
	return v, nil
}

// createMigrationTable creates schema_migrations if it is missing, under
// the lock, because two Postgres sessions running CREATE TABLE IF NOT EXISTS
// at once can still collide.
func (db *DB) createMigrationTable(ctx context.Context) error {
	timeType := "TIMESTAMP"
	if db.dialect == DialectPostgres {
		timeType = "TIMESTAMPTZ"
	}
	ddl := `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at ` + timeType + ` NOT NULL)`
	return db.inMigrationTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, ddl)
		return err
	})
}

// apply runs one migration unless another process applied it first. It
// reports whether it applied it.
func (db *DB) apply(ctx context.Context, m migration) (bool, error) {
	applied := false
	err := db.inMigrationTx(ctx, func(tx *sql.Tx) error {
		var current int
		err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current)
		if err != nil || current >= m.version {
			return err
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return err
		}
		insert := `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`
		if db.dialect == DialectPostgres {
			insert = `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`
		}
		if _, err := tx.ExecContext(ctx, insert, m.version, m.name, now()); err != nil {
			return err
		}
		applied = true
		return nil
	})
	return applied, err
}

// inMigrationTx runs fn in a transaction that, on Postgres, first takes the
// migration advisory lock; it is released at commit or rollback. SQLite
// needs no lock: its transactions begin IMMEDIATE, which already excludes
// other writers.
func (db *DB) inMigrationTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if db.dialect == DialectPostgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(`+strconv.Itoa(migrationLockID)+`)`); err != nil {
			return err
		}
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// loadMigrations reads the folder dir of fsys (in production, the
// dialect's folder of migrations.FS), sorted by number. The numbers must
// run 1, 2, 3... without gaps or repeats, so that a version is also a count.
func loadMigrations(fsys fs.FS, dir string) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("load migrations: %w", err)
	}
	var all []migration
	for _, e := range entries {
		m, err := readMigration(fsys, dir, e.Name())
		if err != nil {
			return nil, err
		}
		all = append(all, m)
	}
	slices.SortFunc(all, func(a, b migration) int { return a.version - b.version })
	for i, m := range all {
		if m.version != i+1 {
			return nil, fmt.Errorf("load migrations: %s: want version %d, found %d", dir, i+1, m.version)
		}
	}
	return all, nil
}

// readMigration reads one file named NNNN_name.sql.
func readMigration(fsys fs.FS, dir, file string) (migration, error) {
	number, name, ok := strings.Cut(strings.TrimSuffix(file, ".sql"), "_")
	version, err := strconv.Atoi(number)
	if !ok || err != nil || version < 1 || name == "" {
		return migration{}, fmt.Errorf("load migrations: %s/%s: want a name like 0001_init.sql", dir, file)
	}
	body, err := fs.ReadFile(fsys, path.Join(dir, file))
	if err != nil {
		return migration{}, fmt.Errorf("load migrations: %w", err)
	}
	return migration{version: version, name: name, sql: string(body)}, nil
}
