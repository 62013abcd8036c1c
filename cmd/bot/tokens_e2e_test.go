package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
	"github.com/poapbot/poapbot/storage"
)

// testSecretKey is the BOT_SECRET_KEY of the token tests.
var testSecretKey = strings.Repeat("ab", 32)

// withDB opens the database at databaseURL with testSecretKey, runs fn and
// closes it (a SQLite file takes one process at a time).
func withDB(t *testing.T, databaseURL string, fn func(ctx context.Context, db *storage.DB)) {
	t.Helper()
	key, err := storage.LoadKey(databaseURL, core.Secret(testSecretKey))
	if err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(t.Context(), databaseURL, storage.WithKey(key))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fn(t.Context(), db)
}

// TestMain_SandboxRestarts starts the bot with -sandbox 10 times in a row
// on one database, each start a new sandbox at a new address, half of them
// with real client credentials configured, each making a protected call:
// every one gets its own token and goes through, and the real credential's
// token stored in the database, with its budget, is untouched.
func TestMain_SandboxRestarts(t *testing.T) {
	t.Parallel()
	for name, url := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			real := core.TokenClient{Service: "https://auth.accounts.poap.xyz", ID: "real-client-id"}
			const audience = "https://api.poap.tech"
			const realToken = core.Secret("eyJhbGciOiJSUzI1NiJ9.real-production-token")
			realExpires := time.Now().Add(20 * time.Hour).UTC().Truncate(time.Second)
			withDB(t, url, func(ctx context.Context, db *storage.DB) {
				if err := db.SaveServiceToken(ctx, real, audience, realToken, realExpires); err != nil {
					t.Fatal(err)
				}
				if err := db.RecordTokenIssue(ctx, real, audience, time.Now().Add(-10*time.Minute)); err != nil {
					t.Fatal(err)
				}
			})
			for i := range 10 {
				env := map[string]string{"DATABASE_URL": url, "BOT_SECRET_KEY": testSecretKey}
				if i%2 == 1 {
					env["POAP_CLIENT_ID"], env["POAP_CLIENT_SECRET"] = real.ID, "real-client-secret"
				}
				s := startMainWith(t, env, true)
				line, want := fmt.Sprintf("/drop refresh %d", sandbox.DemoLinksDropID), "Imported"
				if i == 0 {
					line, want = fmt.Sprintf("/drop add %d %s delivery:link", sandbox.DemoLinksDropID, sandbox.DemoEditCode), "is set up here"
				}
				fmt.Fprintln(s.stdin, line)
				s.stdin.Close()
				if err := s.wait(); err != nil {
					t.Fatalf("start %d: Run() = %v", i+1, err)
				}
				if out := s.out.String(); !strings.Contains(out, want) {
					t.Fatalf("start %d: %s got no %q:\n%s", i+1, line, want, out)
				}
				if n := s.m.SandboxAPI.Requests(wire.OpAccessToken); n != 1 {
					t.Errorf("start %d: %d token requests to its sandbox, want 1", i+1, n)
				}
				if err := s.m.Close(); err != nil {
					t.Fatal(err)
				}
			}
			withDB(t, url, func(ctx context.Context, db *storage.DB) {
				got, expires, err := db.ServiceToken(ctx, real, audience)
				if err != nil || got != realToken || !expires.Equal(realExpires) {
					t.Errorf("the real credential's token after the sandbox runs: %v, changed %v; want it untouched", err, got != realToken || !expires.Equal(realExpires))
				}
				if n, err := db.TokenIssuesSince(ctx, real, time.Now().Add(-time.Hour)); n != 1 || err != nil {
					t.Errorf("the real credential's requests in the hour = %d, %v, want its own 1", n, err)
				}
			})
		})
	}
}

// TestMain_MintWithoutToken mints to a member's wallet when no access token
// can be had (the token expired, and the hour's budget is spent): nothing
// is sent, and the link goes back to the member instead of staying minting.
func TestMain_MintWithoutToken(t *testing.T) {
	t.Parallel()
	for name, url := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startMainWith(t, map[string]string{"DATABASE_URL": url, "BOT_SECRET_KEY": testSecretKey}, true)
			fmt.Fprintf(s.stdin, "/drop add %d %s delivery:mint\n/as alice\n/link %s\n",
				sandbox.DemoLinksDropID, sandbox.DemoEditCode, coretest.TestAddress)
			waitOutput(t, s, "/verify")
			// The drop's set-up spent one token request of the hour; three
			// more spend the budget, and the token expires.
			client := core.TokenClient{Service: s.m.SandboxURL, ID: sandboxClientID}
			for range 3 {
				if err := s.m.DB.RecordTokenIssue(t.Context(), client, s.m.Config.POAPAudience, time.Now()); err != nil {
					t.Fatal(err)
				}
			}
			s.m.SandboxAPI.ExpireTokens()
			fmt.Fprintf(s.stdin, "%s\n", claimLine)
			s.stdin.Close()
			if err := s.wait(); err != nil {
				t.Fatal(err)
			}
			if n := s.m.SandboxAPI.Requests(wire.OpMint); n != 0 {
				t.Errorf("%d mints reached the sandbox, want 0", n)
			}
			pending, err := s.m.DB.PendingMints(t.Context(), time.Now().Add(core.MintLease))
			if err != nil || len(pending) != 0 {
				t.Errorf("PendingMints() = %d links, %v; want none minting", len(pending), err)
			}
			drops, err := s.m.DB.AllDrops(t.Context())
			if err != nil || len(drops) != 1 {
				t.Fatalf("AllDrops() = %v, %v", drops, err)
			}
			if st, err := s.m.DB.Stock(t.Context(), drops[0].ID); err != nil || st.HandedOut != 1 || st.Minting != 0 || st.Minted != 0 {
				t.Errorf("Stock() = %+v, %v; want the member's link handed out, none minted", st, err)
			}
		})
	}
}
