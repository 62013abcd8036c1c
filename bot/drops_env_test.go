package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/storage"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

// dropStore is what the drop tests need of a store: what the services
// consume, and a way to link a wallet straight in it.
type dropStore interface {
	coretest.Store
	AddWallet(ctx context.Context, w core.Wallet) (core.Wallet, error)
}

// dropEnv is a bot over a store, with the real poap client talking to the
// sandbox over loopback, and a fake clock both share.
type dropEnv struct {
	b        *Bot
	services Services
	drops    *core.DropService
	store    dropStore
	sb       *sandbox.Server
	calls    *linkCalls
	clock    *coretest.Clock
	obs      *lockedObserver
	poap     *poap.Client
}

// eachDropEnv runs f on a new environment over the in-memory store, and
// over each database dialect once storage implements core.DropStore.
func eachDropEnv(t *testing.T, f func(t *testing.T, e *dropEnv)) {
	t.Helper()
	t.Run("memory", func(t *testing.T) {
		t.Parallel()
		f(t, newDropEnv(t, coretest.NewMemStore()))
	})
	eachDBDropEnv(t, f)
}

// eachDBDropEnv runs f on a new environment over each database dialect,
// for what only storage implements (attendance).
func eachDBDropEnv(t *testing.T, f func(t *testing.T, e *dropEnv)) {
	t.Helper()
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		db, err := storage.Open(t.Context(), newURL(), storage.WithKey(storage.Key{7}))
		if err != nil {
			t.Fatalf("storage.Open() = %v", err)
		}
		t.Cleanup(func() { db.Close() })
		f(t, newDropEnv(t, db))
	})
}

func newDropEnv(t testing.TB, store dropStore) *dropEnv {
	t.Helper()
	e := &dropEnv{
		store: store, clock: coretest.NewClock(t0), obs: &lockedObserver{},
		calls: &linkCalls{byLink: map[string][]string{}},
	}
	e.sb = sandbox.New(sandbox.Options{APIKey: "test-key", Now: e.clock.Now})
	e.sb.SeedDemo()
	srv := httptest.NewServer(e.calls.wrap(e.sb))
	t.Cleanup(srv.Close)
	client, err := poap.NewClient(poap.Options{
		BaseURL: srv.URL, APIKey: "test-key", Tokens: sandboxTokens{e.sb}, Audience: sandbox.DefaultAudience,
		RateLimit: -1, Timeout: 5 * time.Second,
		// The tests fail status reads on purpose, more times in a row than
		// the circuit takes, and then reconcile at once: with the
		// circuit on, the reconciliation would be held for 30 s.
		Circuit: poap.CircuitPolicy{Failures: -1},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.poap = client
	deps := coretest.Deps{
		Store: store, Scanner: client, Issuer: poap.NewDropIssuer(client), MintURL: "https://poap.test", Clock: e.clock,
	}
	if networks, ok := store.(core.NetworkStore); ok {
		// The database records networks; the in-memory store does not.
		deps.Networks, deps.NetworkStore = poap.NewDropIssuer(client), networks
	}
	e.services = Services(coretest.NewServices(deps))
	e.drops = e.services.Drops
	e.b = New(e.services, Options{Observer: e.obs})
	return e
}

// sandboxTokens hands out the sandbox's tokens without the token service.
type sandboxTokens struct{ sb *sandbox.Server }

func (s sandboxTokens) Token(_ context.Context, audience string) (core.Secret, error) {
	return core.Secret(s.sb.IssueToken(audience)), nil
}

func (s sandboxTokens) Renew(ctx context.Context, audience string, _ core.Secret) (core.Secret, error) {
	return s.Token(ctx, audience)
}

// as runs a command line as the console member who, in the guild; mod
// gives moderator rights.
func (e *dropEnv) as(t *testing.T, who string, mod bool, line string, roles ...string) Reply {
	t.Helper()
	req := &Request{
		Place:  core.Place{Platform: core.Console, ExternalID: "guild", Name: "Guild"},
		Caller: Caller{ExternalID: who, Name: who, ManagesDrops: mod}, Roles: roles,
	}
	reply, ok := e.b.HandleLine(context.Background(), req, line, "")
	if !ok {
		t.Fatalf("HandleLine(%q) says not a command", line)
	}
	if !reply.Personal {
		t.Errorf("%s: reply is public, want personal: %q", line, reply.Text)
	}
	return reply
}

// mod runs a line as the moderator.
func (e *dropEnv) mod(t *testing.T, line string) Reply {
	t.Helper()
	return e.as(t, "mod", true, line)
}

// linkWallet links wallet to the console member who, straight in the store.
func (e *dropEnv) linkWallet(t *testing.T, who, wallet string) {
	t.Helper()
	u, err := e.store.UpsertUser(t.Context(), core.User{Platform: core.Console, ExternalID: who, Name: who})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.AddWallet(t.Context(), core.Wallet{UserID: u.ID, Kind: core.KindAddress, Value: wallet}); err != nil {
		t.Fatal(err)
	}
}

// createDrop creates a drop of n links at the sandbox and returns its id
// and edit code.
func (e *dropEnv) createDrop(t *testing.T, name string, n int) (int64, string) {
	t.Helper()
	d, code := e.sb.CreateDrop(sandbox.Drop{Name: name}, n)
	return d.ID, code
}

// linkCalls records, per mint link, the status reads and mints the sandbox
// received, in order. With statusDown set, status reads of links that got
// a mint fail with a 503, as when the service fails right after a mint.
type linkCalls struct {
	mu         sync.Mutex
	byLink     map[string][]string
	statusDown bool
}

// setStatusDown sets statusDown.
func (c *linkCalls) setStatusDown(down bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.statusDown = down
}

// wrap records the calls that reach h.
func (c *linkCalls) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/actions/claim-qr" {
			hash, call := r.URL.Query().Get("qr_hash"), "status"
			if r.Method == http.MethodPost {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				var in struct {
					QRHash string `json:"qr_hash"`
				}
				_ = json.Unmarshal(body, &in)
				hash, call = in.QRHash, "mint"
			}
			c.mu.Lock()
			down := call == "status" && c.statusDown && slices.Contains(c.byLink[hash], "mint")
			c.byLink[hash] = append(c.byLink[hash], call)
			c.mu.Unlock()
			if down {
				http.Error(w, `{"message":"Service Unavailable"}`, http.StatusServiceUnavailable)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// mints returns the number of mint requests per link.
func (c *linkCalls) mints() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for h, calls := range c.byLink {
		for _, call := range calls {
			if call == "mint" {
				out[h]++
			}
		}
	}
	return out
}

// reconciled counts the links whose mint was followed by a status read.
func (c *linkCalls) reconciled() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, calls := range c.byLink {
		if i := slices.Index(calls, "mint"); i >= 0 && slices.Contains(calls[i:], "status") {
			n++
		}
	}
	return n
}

// checkNoBlindRetry fails the test when a link got two mint requests
// without a status read in between.
func (c *linkCalls) checkNoBlindRetry(t *testing.T) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for h, calls := range c.byLink {
		for i := 1; i < len(calls); i++ {
			if calls[i] == "mint" && calls[i-1] == "mint" {
				t.Errorf("link %s: two mints without a status read between: %v", h, calls)
			}
		}
	}
}

// address returns a distinct test address.
func address(i int) string { return fmt.Sprintf("0x%040x", 0xa11ce000+i) }
