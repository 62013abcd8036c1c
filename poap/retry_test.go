package poap

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// script answers its requests with statuses in turn, repeating the last,
// with Retry-After on every non-2xx answer when retryAfter is set. It
// remembers the bodies it got.
type script struct {
	statuses   []int
	retryAfter string

	mu     sync.Mutex
	bodies []string
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, string(body))
	s.mu.Unlock()
	status := s.statuses[min(n, len(s.statuses)-1)]
	if s.retryAfter != "" && status != http.StatusOK {
		w.Header().Set("Retry-After", s.retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if status == http.StatusOK {
		w.Write([]byte(`{"ok":true}`))
		return
	}
	w.Write([]byte(`{"message":"` + http.StatusText(status) + `"}`))
}

func (s *script) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

// probe returns a POST request with a JSON body.
func probe(t *testing.T, idempotent bool) request {
	t.Helper()
	body, err := jsonBody(map[string]int{"n": 1})
	if err != nil {
		t.Fatal(err)
	}
	return request{op: "probe", method: http.MethodPost, path: "/probe", body: body,
		contentType: "application/json", idempotent: idempotent}
}

func TestClient_Retry(t *testing.T) {
	t.Run("429RetryAfter", func(t *testing.T) {
		s := &script{statuses: []int{429, 200}, retryAfter: "3"}
		c, clock := newTestClient(t, s, Options{})
		var out struct{ OK bool }
		if err := c.do(t.Context(), probe(t, true), &out); err != nil || !out.OK {
			t.Fatalf("do() = %v, %+v, want ok", err, out)
		}
		if diff := cmp.Diff([]time.Duration{3 * time.Second}, clock.Sleeps()); diff != "" {
			t.Errorf("sleeps mismatch (-want +got):\n%s", diff)
		}
		want := []string{`{"n":1}`, `{"n":1}`}
		if diff := cmp.Diff(want, s.requests()); diff != "" {
			t.Errorf("bodies mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("503Backoff", func(t *testing.T) {
		s := &script{statuses: []int{503, 502, 504, 200}}
		obs := &observations{}
		c, clock := newTestClient(t, s, Options{Observer: obs})
		if err := c.do(t.Context(), probe(t, true), nil); err != nil {
			t.Fatalf("do() = %v, want nil", err)
		}
		sleeps := clock.Sleeps()
		if len(sleeps) != 3 {
			t.Fatalf("sleeps = %v, want 3", sleeps)
		}
		for i, d := range sleeps {
			full := DefaultBaseDelay << i
			if d < full/2 || d > full {
				t.Errorf("sleep %d = %v, want between %v and %v", i, d, full/2, full)
			}
		}
		want := []string{"probe 503", "probe 502", "probe 504", "probe 200"}
		if diff := cmp.Diff(want, obs.get()); diff != "" {
			t.Errorf("observations mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("NotIdempotent", func(t *testing.T) {
		s := &script{statuses: []int{503, 200}}
		c, clock := newTestClient(t, s, Options{})
		err := c.do(t.Context(), probe(t, false), nil)
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.Status != 503 || !errors.Is(err, ErrUnavailable) {
			t.Errorf("do(not idempotent) = %v, want the first 503", err)
		}
		if len(s.requests()) != 1 || len(clock.Sleeps()) != 0 {
			t.Errorf("%d requests, sleeps %v, want 1 and none", len(s.requests()), clock.Sleeps())
		}
	})
	t.Run("GivesUp", func(t *testing.T) {
		s := &script{statuses: []int{503}}
		c, _ := newTestClient(t, s, Options{})
		if err := c.do(t.Context(), probe(t, true), nil); !errors.Is(err, ErrUnavailable) {
			t.Errorf("do() = %v, want %v", err, ErrUnavailable)
		}
		if got := len(s.requests()); got != DefaultMaxAttempts {
			t.Errorf("%d requests, want %d", got, DefaultMaxAttempts)
		}
	})
	t.Run("MaxAttempts", func(t *testing.T) {
		s := &script{statuses: []int{503}}
		c, _ := newTestClient(t, s, Options{Retry: RetryPolicy{MaxAttempts: 2}})
		c.do(t.Context(), probe(t, true), nil)
		if got := len(s.requests()); got != 2 {
			t.Errorf("%d requests, want 2", got)
		}
	})
	t.Run("NotTransient", func(t *testing.T) {
		for _, status := range []int{400, 404, 500} {
			s := &script{statuses: []int{status, 200}}
			c, _ := newTestClient(t, s, Options{})
			if err := c.do(t.Context(), probe(t, true), nil); err == nil || len(s.requests()) != 1 {
				t.Errorf("do() after %d = %v in %d requests, want the error in 1", status, err, len(s.requests()))
			}
		}
	})
}

func TestClient_RetryAfterTooLong(t *testing.T) {
	tests := []struct {
		name       string
		retryAfter string
		deadline   time.Duration
	}{
		{"OverMaxRetryAfter", "120", 0},
		{"PastDeadline", "20", 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{statuses: []int{429, 200}, retryAfter: tt.retryAfter}
			c, clock := newTestClient(t, s, Options{})
			ctx := t.Context()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, clock.Now().Add(tt.deadline))
				defer cancel()
			}
			err := c.do(ctx, probe(t, true), nil)
			var apiErr *APIError
			if !errors.As(err, &apiErr) || !errors.Is(err, ErrRateLimited) || apiErr.RetryAfter <= 0 {
				t.Errorf("do() = %v, want the 429 with its RetryAfter", err)
			}
			if len(s.requests()) != 1 || len(clock.Sleeps()) != 0 {
				t.Errorf("%d requests, sleeps %v, want 1 and none", len(s.requests()), clock.Sleeps())
			}
		})
	}
}

func TestClient_RetryNetworkError(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		first := calls == 1
		mu.Unlock()
		if first {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		w.Write([]byte(`{}`))
	})
	obs := &observations{}
	c, _ := newTestClient(t, h, Options{Observer: obs})
	if err := c.do(t.Context(), probe(t, true), nil); err != nil {
		t.Fatalf("do() after a dropped connection = %v, want nil", err)
	}
	if diff := cmp.Diff([]string{"probe " + StatusError, "probe 200"}, obs.get()); diff != "" {
		t.Errorf("observations mismatch (-want +got):\n%s", diff)
	}
}

func TestClient_RetryTimeoutPerAttempt(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body) // so the server notices when the client hangs up
		mu.Lock()
		calls++
		first := calls == 1
		mu.Unlock()
		if first {
			select {
			case <-r.Context().Done(): // the client gave up on this attempt
			case <-release:
			}
			return
		}
		w.Write([]byte(`{}`))
	})
	obs := &observations{}
	c, _ := newTestClient(t, h, Options{Observer: obs, Timeout: 50 * time.Millisecond})
	t.Cleanup(func() { close(release) })
	if err := c.do(t.Context(), probe(t, true), nil); err != nil {
		t.Fatalf("do() after a timed-out attempt = %v, want nil", err)
	}
	if diff := cmp.Diff([]string{"probe " + StatusTimeout, "probe 200"}, obs.get()); diff != "" {
		t.Errorf("observations mismatch (-want +got):\n%s", diff)
	}
	// A non-idempotent request returns its timeout.
	mu.Lock()
	calls = 0
	mu.Unlock()
	err := c.do(t.Context(), probe(t, false), nil)
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("do(not idempotent) timing out = %v, want unavailable and a deadline", err)
	}
}

func TestClient_RetryCanceled(t *testing.T) {
	s := &script{statuses: []int{503, 200}}
	c, _ := newTestClient(t, s, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	c.sleep = func(context.Context, time.Duration) error {
		cancel()
		return context.Canceled
	}
	err := c.do(ctx, probe(t, true), nil)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrUnavailable) {
		t.Errorf("do() canceled while waiting to retry = %v, want the 503 and context.Canceled", err)
	}
}

func TestRetryPolicy_Backoff(t *testing.T) {
	p := RetryPolicy{BaseDelay: time.Second, MaxDelay: 5 * time.Second}.withDefaults()
	for n, full := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second} {
		for range 20 {
			if d := p.backoff(n + 1); d < full/2 || d > full {
				t.Errorf("backoff(%d) = %v, want between %v and %v", n+1, d, full/2, full)
			}
		}
	}
	if got := (RetryPolicy{MaxAttempts: -1}).withDefaults().MaxAttempts; got != 1 {
		t.Errorf("MaxAttempts -1 became %d, want 1", got)
	}
}
