package storage

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
)

// The clients of the token tests: production's token service and a
// sandbox's, with the same client id, and another client id of production.
var (
	prodClient    = core.TokenClient{Service: "https://auth.accounts.poap.xyz", ID: "bot-client-7"}
	sandboxClient = core.TokenClient{Service: "http://127.0.0.1:41234", ID: "bot-client-7"}
	otherClient   = core.TokenClient{Service: "https://auth.accounts.poap.xyz", ID: "bot-client-8"}
)

func TestDB_ServiceToken(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		const secret = "eyJhbGciOiJSUzI1NiJ9.secret-bearer-token"
		expires := time.Date(2036, 12, 1, 10, 0, 0, 0, time.FixedZone("EST", -5*3600))
		if err := db.SaveServiceToken(t.Context(), prodClient, "api", secret, expires); err != nil {
			t.Fatalf("SaveServiceToken() = %v", err)
		}
		t.Run("RoundTrip", func(t *testing.T) {
			got, gotExpires, err := db.ServiceToken(t.Context(), prodClient, "api")
			if err != nil || got.Reveal() != secret || !gotExpires.Equal(expires) || gotExpires.Location() != time.UTC {
				t.Errorf("ServiceToken(api) = %q, %v, %v, want the token, %v in UTC", got.Reveal(), gotExpires, err, expires.UTC())
			}
		})
		t.Run("EncryptedAtRest", func(t *testing.T) {
			var raw []byte
			err := db.sql.QueryRowContext(t.Context(), "SELECT token FROM service_tokens WHERE audience = 'api'").Scan(&raw)
			if err != nil || len(raw) == 0 || bytes.Contains(raw, []byte("secret-bearer")) {
				t.Errorf("stored token = %q, %v, want ciphertext", raw, err)
			}
		})
		t.Run("Replaces", func(t *testing.T) {
			later := expires.Add(24 * time.Hour)
			if err := db.SaveServiceToken(t.Context(), prodClient, "replace", "one", expires); err != nil {
				t.Fatal(err)
			}
			if err := db.SaveServiceToken(t.Context(), prodClient, "replace", "two", later); err != nil {
				t.Fatalf("SaveServiceToken(again) = %v", err)
			}
			got, gotExpires, err := db.ServiceToken(t.Context(), prodClient, "replace")
			if err != nil || got.Reveal() != "two" || !gotExpires.Equal(later) {
				t.Errorf("ServiceToken(replace) = %q, %v, %v, want two, %v", got.Reveal(), gotExpires, err, later)
			}
		})
		t.Run("PerClient", func(t *testing.T) {
			// Another token service or client id with the same audience
			// neither reads nor replaces the token.
			for _, c := range []core.TokenClient{sandboxClient, otherClient} {
				if _, _, err := db.ServiceToken(t.Context(), c, "api"); !errors.Is(err, core.ErrNotFound) {
					t.Errorf("ServiceToken(%v, api) = %v, want %v", c, err, core.ErrNotFound)
				}
				if err := db.SaveServiceToken(t.Context(), c, "api", core.Secret("of "+c.Service+" "+c.ID), expires); err != nil {
					t.Fatal(err)
				}
			}
			got, _, err := db.ServiceToken(t.Context(), prodClient, "api")
			if err != nil || got.Reveal() != secret {
				t.Errorf("ServiceToken(production, api) after the others saved theirs = %q, %v, want the first token", got.Reveal(), err)
			}
			if got, _, err := db.ServiceToken(t.Context(), sandboxClient, "api"); err != nil || got.Reveal() != "of "+sandboxClient.Service+" bot-client-7" {
				t.Errorf("ServiceToken(sandbox, api) = %q, %v, want its own", got.Reveal(), err)
			}
		})
		t.Run("ErrNotFound", func(t *testing.T) {
			if _, _, err := db.ServiceToken(t.Context(), prodClient, "nobody"); !errors.Is(err, core.ErrNotFound) {
				t.Errorf("ServiceToken(nobody) = %v, want %v", err, core.ErrNotFound)
			}
		})
		t.Run("Incomplete", func(t *testing.T) {
			for _, c := range []core.TokenClient{{ID: "x"}, {Service: "https://x"}} {
				if err := db.SaveServiceToken(t.Context(), c, "api", "t", expires); err == nil {
					t.Errorf("SaveServiceToken(%+v) = nil, want an error", c)
				}
			}
			if err := db.SaveServiceToken(t.Context(), prodClient, "", "t", expires); err == nil {
				t.Error("SaveServiceToken(no audience) = nil, want an error")
			}
		})
		t.Run("ErrDecrypt", func(t *testing.T) {
			other := withKey(db, Key{31: 9})
			if _, _, err := other.ServiceToken(t.Context(), prodClient, "api"); !errors.Is(err, ErrDecrypt) {
				t.Errorf("ServiceToken(api) with another key = %v, want %v", err, ErrDecrypt)
			}
			// A token copied into another audience's or client's row
			// does not open.
			for _, row := range []struct {
				client   core.TokenClient
				audience string
			}{{prodClient, "replace"}, {sandboxClient, "api"}} {
				_, err := db.sql.ExecContext(t.Context(),
					`UPDATE service_tokens SET token = (SELECT token FROM service_tokens
						WHERE service = '`+prodClient.Service+`' AND client_id = 'bot-client-7' AND audience = 'api')
					WHERE service = '`+row.client.Service+`' AND client_id = 'bot-client-7' AND audience = '`+row.audience+`'`)
				if err != nil {
					t.Fatal(err)
				}
				if _, _, err := db.ServiceToken(t.Context(), row.client, row.audience); !errors.Is(err, ErrDecrypt) {
					t.Errorf("ServiceToken(%v, %s) holding production's api token = %v, want %v", row.client, row.audience, err, ErrDecrypt)
				}
			}
		})
	})
}

func TestDB_ServiceToken_ErrNoKey(t *testing.T) {
	t.Parallel()
	db, err := Open(t.Context(), "sqlite:"+filepath.Join(t.TempDir(), "bot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.SaveServiceToken(t.Context(), prodClient, "api", "x", time.Now()); !errors.Is(err, ErrNoKey) {
		t.Errorf("SaveServiceToken() without key = %v, want %v", err, ErrNoKey)
	}
	if _, _, err := db.ServiceToken(t.Context(), prodClient, "api"); !errors.Is(err, ErrNoKey) {
		t.Errorf("ServiceToken() without key = %v, want %v", err, ErrNoKey)
	}
	if db.Cipher() != nil {
		t.Errorf("Cipher() without key = %v, want nil", db.Cipher())
	}
}

func TestDB_TokenIssuesSince(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		// Issues at 12:00, 12:20, 12:40.5, 13:00, 13:30, for two
		// audiences of one client; one time is given in another zone.
		issues := []struct {
			audience string
			at       time.Time
		}{
			{"api", base},
			{"moments", base.Add(20 * time.Minute)},
			{"api", base.Add(40*time.Minute + 500*time.Millisecond)},
			{"moments", base.Add(time.Hour).In(time.FixedZone("UTC+9", 9*3600))},
			{"api", base.Add(90 * time.Minute)},
		}
		for _, is := range issues {
			if err := db.RecordTokenIssue(t.Context(), prodClient, is.audience, is.at); err != nil {
				t.Fatalf("RecordTokenIssue(%v) = %v", is.at, err)
			}
		}
		// Other clients' issues do not count.
		for _, c := range []core.TokenClient{sandboxClient, otherClient} {
			if err := db.RecordTokenIssue(t.Context(), c, "api", base.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		tests := []struct {
			since time.Time
			want  int
		}{
			{base.Add(-time.Hour), 5},
			{base, 5},
			{base.Add(time.Microsecond), 4},
			{base.Add(40 * time.Minute), 3},
			{base.Add(40*time.Minute + 500*time.Millisecond), 3},
			{base.Add(40*time.Minute + 501*time.Millisecond), 2},
			{base.Add(30 * time.Minute).In(time.FixedZone("UTC-7", -7*3600)), 3},
			{base.Add(2 * time.Hour), 0},
		}
		for _, tt := range tests {
			got, err := db.TokenIssuesSince(t.Context(), prodClient, tt.since)
			if err != nil || got != tt.want {
				t.Errorf("TokenIssuesSince(production, %v) = %d, %v, want %d", tt.since, got, err, tt.want)
			}
		}
		if got, err := db.TokenIssuesSince(t.Context(), sandboxClient, base); got != 1 || err != nil {
			t.Errorf("TokenIssuesSince(sandbox) = %d, %v, want 1", got, err)
		}
	})
}

// TestDB_RecordTokenIssue_Prunes checks that recording an issue clears the
// issues older than a day and the expired tokens, of every client.
func TestDB_RecordTokenIssue_Prunes(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		at := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
		for _, ago := range []time.Duration{25 * time.Hour, 23 * time.Hour} {
			if err := db.RecordTokenIssue(t.Context(), sandboxClient, "api", at.Add(-ago)); err != nil {
				t.Fatal(err)
			}
		}
		for client, expires := range map[core.TokenClient]time.Time{sandboxClient: at.Add(-time.Second), prodClient: at.Add(time.Hour)} {
			if err := db.SaveServiceToken(t.Context(), client, "api", "t", expires); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.RecordTokenIssue(t.Context(), prodClient, "api", at); err != nil {
			t.Fatalf("RecordTokenIssue() = %v", err)
		}
		if n, err := db.TokenIssuesSince(t.Context(), sandboxClient, at.Add(-48*time.Hour)); n != 1 || err != nil {
			t.Errorf("sandbox issues left = %d, %v, want the one of the last day", n, err)
		}
		if _, _, err := db.ServiceToken(t.Context(), sandboxClient, "api"); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("ServiceToken(expired) = %v, want %v", err, core.ErrNotFound)
		}
		if _, _, err := db.ServiceToken(t.Context(), prodClient, "api"); err != nil {
			t.Errorf("ServiceToken(alive) = %v, want it kept", err)
		}
	})
}

func TestDB_LockTokens(t *testing.T) {
	t.Parallel()
	eachMigrated(t, func(t *testing.T, newURL func() string) {
		databaseURL := newURL()
		replicas := replicas(t, databaseURL, 2)
		t.Run("NoOverlap", func(t *testing.T) {
			var inside, overlaps, done atomic.Int32
			var wg sync.WaitGroup
			for i := range 20 {
				wg.Go(func() {
					err := replicas[i%2].LockTokens(t.Context(), prodClient, func(context.Context) error {
						if inside.Add(1) != 1 {
							overlaps.Add(1)
						}
						time.Sleep(time.Millisecond) // widens the window an overlap would need
						inside.Add(-1)
						done.Add(1)
						return nil
					})
					if err != nil {
						t.Errorf("LockTokens(production) = %v", err)
					}
				})
			}
			wg.Wait()
			if overlaps.Load() != 0 || done.Load() != 20 {
				t.Errorf("%d overlaps in %d runs, want 0 in 20", overlaps.Load(), done.Load())
			}
		})
		t.Run("ClientsIndependent", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			err := replicas[0].LockTokens(ctx, prodClient, func(ctx context.Context) error {
				return replicas[1].LockTokens(ctx, sandboxClient, func(ctx context.Context) error {
					return replicas[1].LockTokens(ctx, otherClient, func(context.Context) error { return nil })
				})
			})
			if err != nil {
				t.Errorf("LockTokens(other clients) inside LockTokens(production) = %v, want nil", err)
			}
		})
		t.Run("ReturnsFnError", func(t *testing.T) {
			errFn := errors.New("fn failed")
			if err := replicas[0].LockTokens(t.Context(), prodClient, func(context.Context) error { return errFn }); !errors.Is(err, errFn) {
				t.Errorf("LockTokens() = %v, want %v", err, errFn)
			}
			assertFree(t, replicas[1], prodClient)
		})
		t.Run("ContextDone", func(t *testing.T) {
			held, release := make(chan struct{}), make(chan struct{})
			holder := make(chan error)
			go func() {
				holder <- replicas[0].LockTokens(context.Background(), prodClient, func(context.Context) error {
					close(held)
					<-release
					return nil
				})
			}()
			<-held
			ctx, cancel := context.WithCancel(t.Context())
			waiter := make(chan error)
			go func() {
				waiter <- replicas[1].LockTokens(ctx, prodClient, func(context.Context) error { return errors.New("ran while held") })
			}()
			waitLockWaiter(t, replicas[1], prodClient) // cancel while it waits, not before
			cancel()
			if err := <-waiter; !errors.Is(err, context.Canceled) {
				t.Errorf("LockTokens() while held, canceled = %v, want %v", err, context.Canceled)
			}
			close(release)
			if err := <-holder; err != nil {
				t.Errorf("LockTokens() holder = %v", err)
			}
			assertFree(t, replicas[1], prodClient)
		})
	})
}

// assertFree checks that db can take client's lock at once.
func assertFree(t *testing.T, db *DB, client core.TokenClient) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := db.LockTokens(ctx, client, func(context.Context) error { return nil }); err != nil {
		t.Errorf("LockTokens(%v) after release = %v, want nil", client, err)
	}
}

// waitLockWaiter waits until a caller of db.LockTokens waits for client's
// lock: on PostgreSQL a session whose advisory lock on the key is not
// granted, on SQLite a goroutine parked in fileLock's wait. It polls what
// the database or the runtime shows, without sleeping.
func waitLockWaiter(t *testing.T, db *DB, client core.TokenClient) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	waiting := func() (bool, error) { return fileLockWaiter(), nil }
	if db.dialect == DialectPostgres {
		waiting = func() (bool, error) { return advisoryWaiter(ctx, db, client) }
	}
	for {
		ok, err := waiting()
		switch {
		case err != nil:
			t.Fatalf("looking for a waiter on the %s lock: %v", client.ID, err)
		case ok:
			return
		case ctx.Err() != nil:
			t.Fatalf("no caller waits for the %s lock: %v", client.ID, ctx.Err())
		}
		runtime.Gosched()
	}
}

// advisoryWaiter reports whether a session waits for the advisory lock
// advisoryLock takes for client in db's schema.
func advisoryWaiter(ctx context.Context, db *DB, client core.TokenClient) (bool, error) {
	var n int
	err := db.sql.QueryRowContext(ctx, `
		SELECT count(*) FROM pg_locks
		WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
			AND (classid::bigint << 32 | objid::bigint) =
				hashtextextended(coalesce(current_schema(), '') || ':' || $1, 0)`, lockKey(client)).Scan(&n)
	return n > 0, err
}

// fileLockWaiter reports whether a goroutine is parked in fileLock's
// select, waiting for the lock or its context: its state is select and
// fileLock is its first frame (the runtime's frames are not shown).
func fileLockWaiter() bool {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		head, rest, _ := bytes.Cut(g, []byte("\n"))
		if bytes.Contains(head, []byte("[select")) && bytes.HasPrefix(rest, []byte("github.com/poapbot/poapbot/storage.(*DB).fileLock(")) {
			return true
		}
	}
	return false
}
