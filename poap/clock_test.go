package poap

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// testClock is a clock for tests: it moves only when told to or when
// something sleeps on it, and it remembers the sleeps instead of waiting.
type testClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

// newTestClock returns a clock set to the real time, so deadlines of real
// contexts still compare sensibly with it.
func newTestClock() *testClock {
	return &testClock{now: time.Now().UTC().Truncate(time.Second)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Add moves the clock forward by d.
func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Sleep records d and moves the clock by it, or returns ctx's error.
func (c *testClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return nil
}

// Sleeps returns the sleeps so far.
func (c *testClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// newTestClient serves h on loopback and returns a client for it that runs
// on a test clock.
func newTestClient(t *testing.T, h http.Handler, opts Options) (*Client, *testClock) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	opts.BaseURL = srv.URL
	c, err := NewClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	clock := newTestClock()
	c.now, c.sleep = clock.Now, clock.Sleep
	return c, clock
}

// observations is an Observer that remembers the statuses it is told.
type observations struct {
	mu       sync.Mutex
	statuses []string
}

func (o *observations) ObserveRequest(operation, status string, elapsed time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.statuses = append(o.statuses, operation+" "+status)
}

func (o *observations) get() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.statuses...)
}
