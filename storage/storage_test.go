package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/poapbot/poapbot/migrations"
	"github.com/poapbot/poapbot/storage/storagetest"
)

// testKey is the secret key of every test database.
var testKey = Key{0: 1, 31: 2}

// eachDialect runs f on each dialect (see storagetest.Each).
func eachDialect(t *testing.T, f func(t *testing.T, newURL func() string)) {
	t.Helper()
	storagetest.Each(t, f)
}

// migrated makes the SQLite databases of eachMigrated: copies of a file
// Open migrated once.
var migrated = storagetest.NewTemplate(func(ctx context.Context, databaseURL string) (io.Closer, error) {
	return Open(ctx, databaseURL)
})

// eachMigrated is eachDialect for tests that are not about migrating: the
// SQLite databases newURL returns are already migrated (see
// storagetest.Template), and opening them finds nothing to apply.
func eachMigrated(t *testing.T, f func(t *testing.T, newURL func() string)) {
	t.Helper()
	migrated.Each(t, f)
}

// eachDB runs f on a new database of each dialect, opened and migrated
// (see eachMigrated).
func eachDB(t *testing.T, f func(t *testing.T, db *DB)) {
	t.Helper()
	eachMigrated(t, func(t *testing.T, newURL func() string) {
		f(t, openTest(t, newURL()))
	})
}

// openTest opens the database with the test key and closes it when the
// test ends.
func openTest(t *testing.T, databaseURL string, opts ...Option) *DB {
	t.Helper()
	db, err := Open(t.Context(), databaseURL, append([]Option{WithKey(testKey)}, opts...)...)
	if err != nil {
		t.Fatalf("Open(%q) = %v", databaseURL, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// replicas returns n handles on the database at databaseURL standing for n
// replicas: on PostgreSQL each opened on its own; on SQLite, which one
// process holds (see ErrLocked), the one handle n times, as the goroutines
// of that process.
func replicas(t *testing.T, databaseURL string, n int) []*DB {
	t.Helper()
	dbs := []*DB{openTest(t, databaseURL)}
	for len(dbs) < n {
		if dbs[0].Dialect() == DialectSQLite {
			dbs = append(dbs, dbs[0])
		} else {
			dbs = append(dbs, openTest(t, databaseURL))
		}
	}
	return dbs
}

// withKey returns db as read with the key k instead: the same connections,
// another cipher, as a process with another BOT_SECRET_KEY would read the
// database (a test cannot open a SQLite file twice).
func withKey(db *DB, k Key) *DB {
	other := *db
	other.cipher, other.lock = NewCipher(k), nil
	return &other
}

// migrationCount is the number of migrations of the dialect.
func migrationCount(t *testing.T, dialect string) int {
	t.Helper()
	entries, err := fs.ReadDir(migrations.FS, dialect)
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// appliedCount counts the rows of schema_migrations.
func appliedCount(t *testing.T, db *DB) int {
	t.Helper()
	var n int
	if err := db.sql.QueryRowContext(t.Context(), "SELECT count(*) FROM schema_migrations").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestOpen(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, newURL func() string) {
		t.Run("Migrates", func(t *testing.T) {
			db := openTest(t, newURL())
			want := migrationCount(t, db.Dialect())
			if got, err := db.SchemaVersion(t.Context()); err != nil || got != want {
				t.Errorf("SchemaVersion() = %d, %v, want %d", got, err, want)
			}
			if err := db.Ping(t.Context()); err != nil {
				t.Errorf("Ping() = %v", err)
			}
		})
		t.Run("AppliesNothingTwice", func(t *testing.T) {
			databaseURL := newURL()
			openTest(t, databaseURL).Close()
			db := openTest(t, databaseURL)
			want := migrationCount(t, db.Dialect())
			if got := appliedCount(t, db); got != want {
				t.Errorf("rows in schema_migrations = %d, want %d", got, want)
			}
			if got, err := db.SchemaVersion(t.Context()); err != nil || got != want {
				t.Errorf("SchemaVersion() = %d, %v, want %d", got, err, want)
			}
		})
		t.Run("ErrSchemaTooNew", func(t *testing.T) {
			databaseURL := newURL()
			db := openTest(t, databaseURL)
			_, err := db.sql.ExecContext(t.Context(),
				"INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', CURRENT_TIMESTAMP)")
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
			_, err = Open(t.Context(), databaseURL, WithKey(testKey))
			if !errors.Is(err, ErrSchemaTooNew) {
				t.Fatalf("Open(newer schema) = %v, want %v", err, ErrSchemaTooNew)
			}
			// The message names both versions, for the operator.
			want := migrationCount(t, db.Dialect())
			if msg := err.Error(); !strings.Contains(msg, "9999") || !strings.Contains(msg, fmt.Sprint(want)) {
				t.Errorf("Open(newer schema) = %q, want both versions 9999 and %d named", msg, want)
			}
		})
	})
}

func TestOpen_Concurrent(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, newURL func() string) {
		databaseURL := newURL()
		const n = 4
		dbs := make([]*DB, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { dbs[i], errs[i] = Open(t.Context(), databaseURL, WithKey(testKey)) })
		}
		wg.Wait()
		// PostgreSQL takes them all; a SQLite file takes one process, so
		// one of the four.
		var opened *DB
		locked := 0
		for i, err := range errs {
			switch {
			case err == nil:
				opened = dbs[i]
				t.Cleanup(func() { dbs[i].Close() })
			case errors.Is(err, ErrLocked):
				locked++
			default:
				t.Fatalf("Open #%d = %v", i, err)
			}
		}
		if opened == nil {
			t.Fatal("no Open succeeded")
		}
		if want := map[string]int{DialectPostgres: 0, DialectSQLite: n - 1}[opened.Dialect()]; locked != want {
			t.Errorf("%d of %d Opens refused with ErrLocked, want %d", locked, n, want)
		}
		if got, want := appliedCount(t, opened), migrationCount(t, opened.Dialect()); got != want {
			t.Errorf("rows in schema_migrations = %d, want %d", got, want)
		}
	})
}

func TestOpen_LogsMigrations(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	openTest(t, "sqlite:"+filepath.Join(t.TempDir(), "bot.db"), WithLogger(log))
	if !strings.Contains(buf.String(), "name=init") {
		t.Errorf("log = %q, want the applied migration init", buf.String())
	}
}

func TestOpen_ForeignKeysOn(t *testing.T) {
	t.Parallel()
	db := openTest(t, "sqlite:"+filepath.Join(t.TempDir(), "bot.db"))
	// Ask on several connections at once: the pragma is per connection.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			tx, err := db.sql.BeginTx(t.Context(), nil)
			if err != nil {
				t.Error(err)
				return
			}
			defer tx.Rollback()
			var on int
			if err := tx.QueryRowContext(t.Context(), "PRAGMA foreign_keys").Scan(&on); err != nil || on != 1 {
				t.Errorf("PRAGMA foreign_keys = %d, %v, want 1", on, err)
			}
		})
	}
	wg.Wait()
}

func TestOpen_DatabaseURL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		in      string
		dialect string
		path    string
	}{
		{"", DialectSQLite, "bot.db"},
		{"sqlite:" + dir + "/a.db", DialectSQLite, dir + "/a.db"},
		{"sqlite://" + dir + "/b.db", DialectSQLite, dir + "/b.db"},
		{"postgres://u:p@h/db", DialectPostgres, ""},
		{"postgresql://u:p@h/db?sslmode=disable", DialectPostgres, ""},
	}
	for _, tt := range tests {
		got, err := parseDatabaseURL(tt.in)
		if err != nil || got.dialect != tt.dialect || got.path != tt.path {
			t.Errorf("parseDatabaseURL(%q) = %q, %q, %v, want %q, %q", tt.in, got.dialect, got.path, err, tt.dialect, tt.path)
		}
	}
}

func TestOpen_ErrDatabaseURL(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"mysql://root:hunter2@localhost/db",
		"host=localhost password=hunter2",
		"sqlite:",
		"sqlite:bot.db?mode=memory",
	} {
		_, err := Open(t.Context(), in)
		if !errors.Is(err, ErrDatabaseURL) {
			t.Errorf("Open(%q) = %v, want %v", in, err, ErrDatabaseURL)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Open(%q) = %q, which shows the password", in, err)
		}
	}
}

func TestOpen_HidesPassword(t *testing.T) {
	t.Parallel()
	// Nothing listens on port 1: the connection fails at once.
	in := "postgres://bot:hunter2@127.0.0.1:1/db?sslmode=disable&password=hunter2"
	_, err := Open(t.Context(), in)
	if err == nil {
		t.Fatalf("Open(%q) = nil, want a connection error", in)
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("Open(%q) = %q, which shows the password", in, err)
	}
}
