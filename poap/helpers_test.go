package poap_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/poap"
)

// testKey is the API key the test clients send.
const testKey = "test-key-5f2b9c"

// fixture returns the content of testdata/name.
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// serveFixture answers every request with status and the fixture name, as
// JSON unless the fixture is a .txt file, plus the given header pairs.
func serveFixture(t *testing.T, status int, name string, header ...string) http.HandlerFunc {
	t.Helper()
	body := fixture(t, name)
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		if strings.HasSuffix(name, ".txt") {
			w.Header().Set("Content-Type", "text/plain")
		}
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(status)
		w.Write(body)
	}
}

// newClient serves h on loopback and returns a client for it, sending
// testKey unless opts names another key.
func newClient(t testing.TB, h http.Handler, opts poap.Options) *poap.Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	opts.BaseURL = srv.URL
	if opts.APIKey == "" {
		opts.APIKey = testKey
	}
	c, err := poap.NewClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// observation is one call to an Observer.
type observation struct {
	Operation, Status string
}

// recorder is an Observer that remembers the calls.
type recorder struct {
	mu    sync.Mutex
	calls []observation
}

func (r *recorder) ObserveRequest(operation, status string, elapsed time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, observation{operation, status})
}

func (r *recorder) observations() []observation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]observation(nil), r.calls...)
}

// noRetry makes a client show each failure as it is, for tests of one
// failure's shape.
var noRetry = poap.RetryPolicy{MaxAttempts: 1}
