package auth

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/internal/testlog"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
	"github.com/poapbot/poapbot/storage"
)

// The client credentials of the token tests; the secret must never appear
// in a log or an error.
const (
	testClientID     = "bot-client-7"
	testClientSecret = "client-secret-9d41e"
)

// audience is the issuing service's audience in the token tests.
const audience = sandbox.DefaultAudience

// tokenEnv is the sandbox's token service on loopback, on a test clock,
// with the logs of the Tokens made for it.
type tokenEnv struct {
	sb    *sandbox.Server
	url   string
	clock *coretest.Clock
	logs  *testlog.Buffer
}

// newTokenEnv starts a sandbox that knows the test credentials. When the
// test ends it checks that the client was not banned and that the logs do
// not hold the client secret.
func newTokenEnv(t *testing.T) *tokenEnv {
	t.Helper()
	clock := newClock()
	sb := sandbox.New(sandbox.Options{ClientID: testClientID, ClientSecret: testClientSecret, Now: clock.Now})
	srv := httptest.NewServer(sb)
	t.Cleanup(srv.Close)
	e := &tokenEnv{sb: sb, url: srv.URL, clock: clock, logs: &testlog.Buffer{}}
	t.Cleanup(func() {
		if sb.Banned() {
			t.Error("the sandbox banned the client")
		}
		if strings.Contains(e.logs.String(), testClientSecret) {
			t.Errorf("logs hold the client secret:\n%s", e.logs)
		}
	})
	return e
}

// newTokens returns Tokens for the env's token service on store, with the
// options opts sets.
func (e *tokenEnv) newTokens(t *testing.T, store Store, opts Options) *Tokens {
	t.Helper()
	opts.AuthURL = e.url
	opts.ClientID = testClientID
	if opts.ClientSecret == "" {
		opts.ClientSecret = testClientSecret
	}
	opts.Store = store
	opts.Now = e.clock.Now
	opts.Logger = e.logs.Logger()
	tk, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// client is the client the env's Tokens are, in the store.
func (e *tokenEnv) client() core.TokenClient {
	return core.TokenClient{Service: e.url, ID: testClientID}
}

// tokenRequests is how many requests the token service got.
func (e *tokenEnv) tokenRequests() int {
	return e.sb.Requests(wire.OpAccessToken)
}

// openStore opens the database at databaseURL with a test key and closes
// it when the test ends.
func openStore(t *testing.T, databaseURL string) *storage.DB {
	t.Helper()
	db, err := storage.Open(t.Context(), databaseURL, storage.WithKey(storage.Key{0: 7, 31: 1}))
	if err != nil {
		t.Fatalf("storage.Open() = %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// newClock returns a hand-moved clock set to the real time, so deadlines of
// real contexts still compare sensibly with it.
func newClock() *coretest.Clock {
	return coretest.NewClock(time.Now().UTC().Truncate(time.Second))
}
