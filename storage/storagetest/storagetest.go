// Package storagetest gives tests databases of every dialect the bot runs
// on: a SQLite file always, and a PostgreSQL schema of its own when
// TEST_DATABASE_URL is set (CI sets it), so tests run in parallel and again
// without seeing each other's rows. They are empty, or with a Template,
// SQLite files already migrated.
package storagetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for creating schemas
)

// EnvURL names the variable that points the tests at a PostgreSQL database.
const EnvURL = "TEST_DATABASE_URL"

// Each runs f as subtest "sqlite" and as subtest "postgres", in parallel;
// the latter is skipped when TEST_DATABASE_URL is unset. f gets newURL,
// which returns the URL of a new empty database each time it is called.
func Each(t *testing.T, f func(t *testing.T, newURL func() string)) {
	t.Helper()
	each(t, f, SQLiteURL)
}

// each is Each with sqliteURL making the SQLite databases.
func each(t *testing.T, f func(t *testing.T, newURL func() string), sqliteURL func(testing.TB) string) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		f(t, func() string { return sqliteURL(t) })
	})
	t.Run("postgres", func(t *testing.T) {
		base := os.Getenv(EnvURL)
		if base == "" {
			t.Skip(EnvURL + " is not set")
		}
		t.Parallel()
		f(t, func() string { return PostgresURL(t, base) })
	})
}

// SQLiteURL returns the URL of a new SQLite file in a temporary directory.
func SQLiteURL(t testing.TB) string {
	t.Helper()
	return "sqlite:" + filepath.Join(t.TempDir(), "bot.db")
}

// PostgresURL creates an empty schema in the database at base, drops it
// when the test ends, and returns base with search_path set to it.
func PostgresURL(t testing.TB, base string) string {
	t.Helper()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	t.Cleanup(func() { admin.Close() })
	var b [8]byte
	rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(context.Background(), "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create test schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop test schema: %v", err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
