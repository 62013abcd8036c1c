package poap

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLimiter_Reserve(t *testing.T) {
	l := newLimiter(2, 3) // one every 500 ms, 3 at once
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var got []time.Duration
	for range 5 {
		got = append(got, l.reserve(t0))
	}
	want := []time.Duration{0, 0, 0, 500 * time.Millisecond, time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("waits at one instant mismatch (-want +got):\n%s", diff)
	}
	// Ten seconds later the bucket is full again, and no fuller.
	got = got[:0]
	for range 4 {
		got = append(got, l.reserve(t0.Add(10*time.Second)))
	}
	want = []time.Duration{0, 0, 0, 500 * time.Millisecond}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("waits after a pause mismatch (-want +got):\n%s", diff)
	}
	l.unreserve()
	if got := l.reserve(t0.Add(10 * time.Second)); got != 500*time.Millisecond {
		t.Errorf("reserve() after unreserve = %v, want 500ms", got)
	}
	var none *limiter
	if got := none.reserve(t0); got != 0 {
		t.Errorf("nil limiter reserve() = %v, want 0", got)
	}
}

func TestClient_RateLimit(t *testing.T) {
	tests := []struct {
		name     string
		opts     Options
		requests int
		want     []time.Duration
	}{
		{"Default", Options{}, 14, slices.Repeat([]time.Duration{200 * time.Millisecond}, 4)},
		{"Custom", Options{RateLimit: 1, RateBurst: 2}, 4, []time.Duration{time.Second, time.Second}},
		{"Disabled", Options{RateLimit: -1}, 30, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{statuses: []int{200}}
			c, clock := newTestClient(t, s, tt.opts)
			for range tt.requests {
				if err := c.do(t.Context(), probe(t, true), nil); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tt.want, clock.Sleeps()); diff != "" {
				t.Errorf("waits mismatch (-want +got):\n%s", diff)
			}
			if got := len(s.requests()); got != tt.requests {
				t.Errorf("%d requests reached the server, want %d", got, tt.requests)
			}
		})
	}
}

func TestClient_RateLimitCanceled(t *testing.T) {
	s := &script{statuses: []int{200}}
	c, _ := newTestClient(t, s, Options{RateLimit: 1, RateBurst: 1})
	c.do(t.Context(), probe(t, true), nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := c.do(ctx, probe(t, true), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("do() canceled while rate limited = %v, want %v", err, context.Canceled)
	}
	if got := len(s.requests()); got != 1 {
		t.Errorf("%d requests reached the server, want 1", got)
	}
}
