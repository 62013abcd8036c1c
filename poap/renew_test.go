package poap_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/internal/testlog"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/auth"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
	"github.com/poapbot/poapbot/storage"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

// The client credentials of the renewal tests; the secret must never appear
// in a log.
const (
	renewClientID = "bot-client-7"
	renewSecret   = "client-secret-9d41e"
)

// protected serves the sandbox's token service and /protected, which
// answers 200 to a valid bearer token of the sandbox and 401 otherwise, and
// /refuse, which always answers 401. It counts the calls to each.
func protected(t *testing.T, sb *sandbox.Server) (string, func(path string) int) {
	t.Helper()
	var mu sync.Mutex
	calls := map[string]int{}
	count := func(path string) int {
		mu.Lock()
		defer mu.Unlock()
		return calls[path]
	}
	mux := http.NewServeMux()
	mux.Handle("/oauth/token", sb)
	guard := func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls[r.URL.Path]++
		mu.Unlock()
		token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if r.URL.Path == "/refuse" || !sb.ValidToken(token, sandbox.DefaultAudience) {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"message":"Unauthorized"}`))
			return
		}
		w.Write([]byte(`{}`))
	}
	mux.HandleFunc("/protected", guard)
	mux.HandleFunc("/refuse", guard)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, count
}

// newRenewClient returns a client of base whose tokens come from the real
// token manager on a SQLite database, asking base's token service on clock.
// When the test ends it checks that the client was not banned and that the
// logs do not hold the client secret.
func newRenewClient(t *testing.T, sb *sandbox.Server, base string, clock *coretest.Clock, apiKey core.Secret) *poap.Client {
	t.Helper()
	db, err := storage.Open(t.Context(), migrated.SQLiteURL(t), storage.WithKey(storage.Key{0: 7, 31: 1}))
	if err != nil {
		t.Fatalf("storage.Open() = %v", err)
	}
	t.Cleanup(func() { db.Close() })
	logs := &testlog.Buffer{}
	t.Cleanup(func() {
		if sb.Banned() {
			t.Error("the sandbox banned the client")
		}
		if strings.Contains(logs.String(), renewSecret) {
			t.Errorf("logs hold the client secret:\n%s", logs)
		}
	})
	tk, err := auth.New(auth.Options{
		AuthURL: base, ClientID: renewClientID, ClientSecret: renewSecret,
		Store: db, Now: clock.Now, Logger: logs.Logger(),
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := poap.NewClient(poap.Options{BaseURL: base, APIKey: apiKey, Tokens: tk, Audience: sandbox.DefaultAudience, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestClient_RenewOn401(t *testing.T) {
	clock := coretest.NewClock(time.Now().UTC().Truncate(time.Second))
	sb := sandbox.New(sandbox.Options{ClientID: renewClientID, ClientSecret: renewSecret, Now: clock.Now})
	base, calls := protected(t, sb)
	c := newRenewClient(t, sb, base, clock, "")
	tokenRequests := func() int { return sb.Requests(wire.OpAccessToken) }
	// A mint-like request: never retried, but sent again after a 401.
	mint := func(ctx context.Context) error { return c.Probe(ctx, http.MethodPost, "/protected", false) }
	if err := mint(t.Context()); err != nil || tokenRequests() != 1 {
		t.Fatalf("do() = %v, %d token requests, want nil and 1", err, tokenRequests())
	}
	for name, spoil := range map[string]func(){"Revoked": sb.RevokeTokens, "Expired": sb.ExpireTokens} {
		before := tokenRequests()
		spoil()
		if err := mint(t.Context()); err != nil || tokenRequests() != before+1 {
			t.Errorf("%s: do() = %v, %d token requests, want nil and one more", name, err, tokenRequests()-before)
		}
	}
	t.Run("Concurrent", func(t *testing.T) {
		before := tokenRequests()
		sb.RevokeTokens()
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				if err := mint(t.Context()); err != nil {
					t.Errorf("do() = %v", err)
				}
			})
		}
		wg.Wait()
		if n := tokenRequests() - before; n != 1 {
			t.Errorf("20 callers refused at once made %d token requests, want 1", n)
		}
	})
	t.Run("Second401", func(t *testing.T) {
		clock.Add(time.Hour + time.Second) // four tokens were requested: the budget
		before := tokenRequests()
		err := c.Probe(t.Context(), http.MethodGet, "/refuse", true)
		var apiErr *poap.APIError
		if !errors.As(err, &apiErr) || apiErr.Status != http.StatusUnauthorized || !errors.Is(err, poap.ErrUnauthorized) {
			t.Errorf("do(always 401) = %v, want the second 401", err)
		}
		if calls("/refuse") != 2 || tokenRequests() != before+1 {
			t.Errorf("always 401: %d calls, %d token requests, want 2 and 1", calls("/refuse"), tokenRequests()-before)
		}
	})
}

func TestClient_NoTokens(t *testing.T) {
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"ok":true}`)) }), poap.Options{})
	if err := c.Probe(t.Context(), http.MethodGet, "/protected", false); !errors.Is(err, poap.ErrUnauthorized) {
		t.Errorf("do() without a TokenSource = %v, want %v", err, poap.ErrUnauthorized)
	}
}

// TestClient_RenewOn403 runs the client against the sandbox, whose gateway
// answers an expired or revoked token with its authorizer's 403 deny, as
// production's does: the client renews once and the call goes through,
// a mint included, which is applied once.
func TestClient_RenewOn403(t *testing.T) {
	clock := coretest.NewClock(time.Now().UTC().Truncate(time.Second))
	sb := sandbox.New(sandbox.Options{APIKey: testKey, ClientID: renewClientID, ClientSecret: renewSecret, Now: clock.Now})
	sb.SeedDemo()
	srv := httptest.NewServer(sb)
	t.Cleanup(srv.Close)
	c := newRenewClient(t, sb, srv.URL, clock, testKey)
	tokenRequests := func() int { return sb.Requests(wire.OpAccessToken) }
	if _, err := c.ClaimStatus(t.Context(), "sbx006"); err != nil || tokenRequests() != 1 {
		t.Fatalf("ClaimStatus() = %v, %d token requests, want nil and 1", err, tokenRequests())
	}
	for _, spoil := range []struct {
		name string
		do   func()
	}{{"Expired", sb.ExpireTokens}, {"Revoked", sb.RevokeTokens}} {
		before := tokenRequests()
		spoil.do()
		if _, err := c.ClaimStatus(t.Context(), "sbx006"); err != nil || tokenRequests() != before+1 {
			t.Errorf("%s: ClaimStatus() = %v, %d token requests, want nil and one more", spoil.name, err, tokenRequests()-before)
		}
	}
	sb.ExpireTokens()
	const wallet = "0x00000000000000000000000000000000000a11ce"
	if _, err := c.MintWithSecret(t.Context(), poap.MintInput{QRHash: "sbx006", Address: wallet}, ""); err != nil {
		t.Errorf("MintWithSecret() with an expired token = %v, want nil", err)
	}
	if n := sb.Requests(wire.OpMint); n != 2 || !sb.LinkClaimed("sbx006") {
		t.Errorf("%d mint requests (claimed: %v), want the denied one and one applied", n, sb.LinkClaimed("sbx006"))
	}
}

// TestClient_403NotRenewed checks that a 403 other than the gateway's
// refusal of the token (a refused API key, an operation the backend
// forbids) spends no token request: the budget is for tokens that stopped
// working.
func TestClient_403NotRenewed(t *testing.T) {
	tests := []struct {
		name, body string
		renew      bool
	}{
		{"APIKey", `{"message":"Forbidden"}`, false},
		{"Backend", `{"statusCode":403,"error":"Forbidden","message":"FORBIDDEN"}`, false},
		{"Text", `Forbidden`, false},
		{"AuthorizerDeny", `{"Message":"User is not authorized to access this resource with an explicit deny"}`, true},
		{"ExpiredToken", `{"message":"The incoming token has expired"}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := coretest.NewClock(time.Now().UTC().Truncate(time.Second))
			sb := sandbox.New(sandbox.Options{ClientID: renewClientID, ClientSecret: renewSecret, Now: clock.Now})
			mux := http.NewServeMux()
			mux.Handle("/oauth/token", sb)
			calls := 0
			mux.HandleFunc("/forbidden", func(w http.ResponseWriter, r *http.Request) {
				calls++
				w.WriteHeader(http.StatusForbidden)
				w.Write([]byte(tt.body))
			})
			srv := httptest.NewServer(mux)
			t.Cleanup(srv.Close)
			c := newRenewClient(t, sb, srv.URL, clock, "")
			err := c.Probe(t.Context(), http.MethodPost, "/forbidden", false)
			var apiErr *poap.APIError
			if !errors.As(err, &apiErr) || apiErr.Status != http.StatusForbidden || !errors.Is(err, poap.ErrUnauthorized) {
				t.Errorf("do(403) = %v, want the 403", err)
			}
			wantCalls, wantTokens := 1, 1
			if tt.renew {
				wantCalls, wantTokens = 2, 2
			}
			if n := sb.Requests(wire.OpAccessToken); calls != wantCalls || n != wantTokens {
				t.Errorf("403 %s: %d calls, %d token requests, want %d and %d", tt.body, calls, n, wantCalls, wantTokens)
			}
		})
	}
}
