package poap_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
)

// testBearer is the access token fixedTokens hands out.
const testBearer = "test-bearer-7c1d0a"

// testAudience is the audience the operation tests configure.
const testAudience = "https://api.poap.tech"

// fixedTokens is a TokenSource that always returns testBearer.
type fixedTokens struct{}

func (fixedTokens) Token(context.Context, string) (core.Secret, error) { return testBearer, nil }

func (fixedTokens) Renew(context.Context, string, core.Secret) (core.Secret, error) {
	return testBearer, nil
}

// received is a request as the fake service saw it.
type received struct {
	Method, Path, Query string
	// APIKey and Authorization are the credential headers.
	APIKey, Authorization string
	ContentType           string
	Body                  []byte
}

// capture records the requests a handler serves.
type capture struct {
	mu   sync.Mutex
	reqs []received
}

// wrap returns h behind the recorder.
func (c *capture) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		c.mu.Lock()
		c.reqs = append(c.reqs, received{
			Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
			APIKey: r.Header.Get("X-API-Key"), Authorization: r.Header.Get("Authorization"),
			ContentType: r.Header.Get("Content-Type"), Body: body,
		})
		c.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// all returns the requests seen so far.
func (c *capture) all() []received {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]received(nil), c.reqs...)
}

// only returns the one request seen, failing the test otherwise.
func (c *capture) only(t *testing.T) received {
	t.Helper()
	reqs := c.all()
	if len(reqs) != 1 {
		t.Fatalf("requests = %d, want 1: %+v", len(reqs), reqs)
	}
	return reqs[0]
}

// opsClient serves h on loopback and returns a client with an API key,
// fixedTokens and testAudience, and the recorder of its requests.
func opsClient(t *testing.T, h http.Handler) (*poap.Client, *capture) {
	t.Helper()
	rec := &capture{}
	c := newClient(t, rec.wrap(h), poap.Options{
		Tokens:    fixedTokens{},
		Audience:  testAudience,
		Retry:     poap.RetryPolicy{MaxAttempts: -1},
		RateLimit: 1000,
	})
	return c, rec
}

// jsonValue decodes b into a generic value, for comparing request bodies.
func jsonValue(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("body %q is not JSON: %v", b, err)
	}
	return v
}

// day returns the Date of year, month and day.
func day(year int, month time.Month, d int) poap.Date {
	return poap.Date{Year: year, Month: month, Day: d}
}
