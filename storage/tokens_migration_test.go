package storage

import (
	"log/slog"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/migrations"
)

// openAt opens the database at databaseURL migrated up to version only,
// as an older program left it, and closes it when the test ends.
func openAt(t *testing.T, databaseURL string, version int) *DB {
	t.Helper()
	target, err := parseDatabaseURL(databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	db, err := connect(target, options{log: slog.New(slog.DiscardHandler), key: &testKey})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	all, err := loadMigrations(migrations.FS, db.dialect)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.createMigrationTable(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, m := range all[:version] {
		if _, err := db.apply(t.Context(), m); err != nil {
			t.Fatalf("apply %04d_%s: %v", m.version, m.name, err)
		}
	}
	return db
}

// TestMigrate_TokenClients upgrades a database whose tokens and issues
// were keyed by audience alone: the tokens, whose client is unknown, are
// gone; the issues still in the hour count against every client, so the
// upgrade cannot earn a ban.
func TestMigrate_TokenClients(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, newURL func() string) {
		databaseURL := newURL()
		old := openAt(t, databaseURL, 5)
		at := time.Now().UTC().Truncate(time.Second)
		exec := func(query string, args ...any) {
			t.Helper()
			if err := old.gorm.Exec(query, args...).Error; err != nil {
				t.Fatalf("%s: %v", query, err)
			}
		}
		exec(`INSERT INTO service_tokens (audience, token, expires_at, updated_at) VALUES ('api', ?, ?, ?)`,
			[]byte{1, 2, 3}, at.Add(time.Hour), at)
		for _, ago := range []time.Duration{10 * time.Minute, 20 * time.Minute, 2 * time.Hour} {
			exec(`INSERT INTO token_issues (audience, issued_at) VALUES ('api', ?)`, at.Add(-ago))
		}
		old.Close()

		db := openTest(t, databaseURL)
		if n := count(t, db, "service_tokens", "1 = 1"); n != 0 {
			t.Errorf("%d tokens after the upgrade, want the unattributed one gone", n)
		}
		for _, c := range []core.TokenClient{prodClient, sandboxClient} {
			if n, err := db.TokenIssuesSince(t.Context(), c, at.Add(-time.Hour)); n != 2 || err != nil {
				t.Errorf("TokenIssuesSince(%v) = %d, %v, want the 2 earlier issues of the hour", c, n, err)
			}
		}
		if err := db.SaveServiceToken(t.Context(), prodClient, "api", "t", at.Add(time.Hour)); err != nil {
			t.Errorf("SaveServiceToken() after the upgrade = %v", err)
		}
		err := db.gorm.Exec(`INSERT INTO token_issues (service, client_id, audience, issued_at) VALUES ('', 'x', 'api', ?)`, at).Error
		if err == nil {
			t.Error("an issue with a client id but no service was stored, want a CHECK violation")
		}
	})
}
