package poap

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/core"
)

// t0 is the instant the limiter tests start at.
var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func TestLimiter_Pace(t *testing.T) {
	l := newLimiter(2, 3) // one every 500 ms, 3 at once
	var queued []*waiter
	for range 5 {
		if w, _ := l.enqueue(t0, ""); w != nil {
			queued = append(queued, w)
		}
	}
	if len(queued) != 2 {
		t.Fatalf("%d of 5 requests at one instant wait, want 2 past the burst of 3", len(queued))
	}
	var waits []time.Duration
	for _, at := range []time.Duration{0, 500 * time.Millisecond, time.Second} {
		next, more := l.grant(t0.Add(at))
		if more {
			waits = append(waits, next)
		}
	}
	if diff := cmp.Diff([]time.Duration{500 * time.Millisecond, 500 * time.Millisecond}, waits); diff != "" {
		t.Errorf("waits between slots mismatch (-want +got):\n%s", diff)
	}
	if !queued[0].granted || !queued[1].granted || l.dispatching {
		t.Errorf("granted %v %v, dispatching %v; want both granted, dispatching over", queued[0].granted, queued[1].granted, l.dispatching)
	}
	// Ten seconds later the bucket is full again, and no fuller.
	free := 0
	for range 4 {
		if w, _ := l.enqueue(t0.Add(10*time.Second), ""); w == nil {
			free++
		}
	}
	if free != 3 {
		t.Errorf("%d requests went at once after a pause, want 3", free)
	}
}

// grantOrder grants one slot a second from start until nothing waits and
// returns the requesters served, in order.
func grantOrder(t *testing.T, l *limiter, start time.Time, ws []*waiter) []string {
	t.Helper()
	var order []string
	for at := start; ; at = at.Add(time.Second) {
		_, more := l.grant(at)
		for i, w := range ws {
			if w != nil && w.granted {
				order = append(order, w.requester)
				ws[i] = nil
			}
		}
		if !more {
			return order
		}
		if len(order) > len(ws) {
			t.Fatal("granted more than waited")
		}
	}
}

// TestLimiter_Turns: a member's four queued requests do not hold up
// another member's, which arrived after them: each free slot goes to the
// next requester in turn, each requester's requests in order.
func TestLimiter_Turns(t *testing.T) {
	l := newLimiter(1, 1)
	if w, _ := l.enqueue(t0, "a"); w != nil {
		t.Fatal("the first request waits")
	}
	var ws []*waiter
	for _, r := range []string{"a", "a", "a", "a", "b", "c"} {
		w, _ := l.enqueue(t0, r)
		ws = append(ws, w)
	}
	got := grantOrder(t, l, t0.Add(time.Second), ws)
	if diff := cmp.Diff([]string{"a", "b", "c", "a", "a", "a"}, got); diff != "" {
		t.Errorf("order served mismatch (-want +got):\n%s", diff)
	}
	if l.waiting.Len() != 0 {
		t.Errorf("after the queue emptied: %d waiting; want nothing kept", l.waiting.Len())
	}
}

// TestLimiter_Leave: a request given up leaves its queue (and its
// requester's turn, when it was the last), and one given up after its slot
// came gives the slot back.
func TestLimiter_Leave(t *testing.T) {
	l := newLimiter(1, 1)
	l.enqueue(t0, "a")
	a1, _ := l.enqueue(t0, "a")
	a2, _ := l.enqueue(t0, "a")
	b1, _ := l.enqueue(t0, "b")
	l.leave(a1)
	l.leave(b1)
	l.leave(b1) // twice changes nothing
	if l.waiting.Len() != 1 {
		t.Errorf("after leaving: %d waiting, want 1 (a2)", l.waiting.Len())
	}
	if got := grantOrder(t, l, t0.Add(time.Second), []*waiter{a1, a2, b1}); !slices.Equal(got, []string{"a"}) || !a2.granted || a1.granted {
		t.Errorf("served %v (a1 %v, a2 %v), want only a2", got, a1.granted, a2.granted)
	}
	// a2 gives up after its slot came: the slot is free again.
	l.leave(a2)
	if w, _ := l.enqueue(t0.Add(time.Second), "c"); w != nil {
		t.Errorf("the slot given back is not free")
	}
}

// TestLimiter_Wait runs the limiter as the client does, on synctest's
// clock: one member's burst and two single requests from others that come
// after it, one of them given up. The others are served after one of the
// burst, not after all of it; the rate stays one a second; the request
// given up is never served; nothing is left waiting and the dispatching
// goroutine ends (synctest fails the test on a goroutine left blocked).
func TestLimiter_Wait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(1, 1)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		start := time.Now()
		var (
			mu     sync.Mutex
			served []string
			wg     sync.WaitGroup
		)
		ask := func(ctx context.Context, r string) {
			wg.Go(func() {
				err := l.wait(core.WithRequester(ctx, r), time.Now, sleep)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					served = append(served, r+"@"+time.Since(start).String())
				case !errors.Is(err, context.Canceled):
					t.Errorf("wait(%s) = %v", r, err)
				}
			})
			synctest.Wait() // queued before the next one asks
		}
		for range 5 {
			ask(ctx, "member:a")
		}
		gone, leave := context.WithCancel(ctx)
		ask(gone, "member:c")
		ask(ctx, "member:b")
		leave()
		wg.Wait()
		want := []string{"member:a@0s", "member:a@1s", "member:b@2s", "member:a@3s", "member:a@4s", "member:a@5s"}
		if diff := cmp.Diff(want, served); diff != "" {
			t.Errorf("served mismatch (-want +got):\n%s", diff)
		}
		synctest.Wait()
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.waiting.Len() != 0 || l.dispatching {
			t.Errorf("left: %d waiting, dispatching %v", l.waiting.Len(), l.dispatching)
		}
	})
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
