package poap

import (
	"context"
	"sync"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/internal/turns"
)

// limiter paces every request of a Client: one every interval on average,
// with up to burst at once after a quiet spell. It is a token bucket in
// its GCRA form, which keeps one time instead of a count, so waits come out
// exact. A nil limiter lets everything through.
//
// Requests that must wait are served in turn by requester (core.Requester
// of their context: a member, or the work done for no member): each free
// slot goes to the next requester in a round, and each requester's own
// requests go in the order they came. One member's fifty queued scans then
// delay another member's single request by about one slot, not fifty, and
// the total rate is the same. Only requesters with a request waiting are
// kept, and a request given up leaves the queue.
type limiter struct {
	interval time.Duration
	burst    int

	mu sync.Mutex
	// tat is the theoretical arrival time: when the bucket will be full
	// again, if nothing more is sent.
	tat time.Time
	// waiting are the requests waiting for a slot, by requester.
	waiting turns.Queue[*waiter]
	// dispatching is set while a goroutine hands the free slots out; it
	// ends when nothing waits.
	dispatching bool
}

// waiter is one request waiting for a slot; ready is closed when it gets
// one.
type waiter struct {
	requester string
	ready     chan struct{}
	granted   bool
}

// newLimiter returns a limiter for Options.RateLimit and RateBurst: nil for
// a negative rate, the defaults for zero values.
func newLimiter(rate float64, burst int) *limiter {
	if rate < 0 {
		return nil
	}
	if rate == 0 {
		rate = DefaultRateLimit
	}
	if burst <= 0 {
		burst = DefaultRateBurst
	}
	return &limiter{interval: time.Duration(float64(time.Second) / rate), burst: burst}
}

// wait returns once the request may be sent, or with ctx's error if the
// caller gives up first (its place is then given back). Waiting requests
// are handed their slots by a goroutine that sleeps with sleep between
// slots and ends when none waits.
func (l *limiter) wait(ctx context.Context, now func() time.Time, sleep func(context.Context, time.Duration) error) error {
	if l == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	w, start := l.enqueue(now(), core.Requester(ctx))
	if w == nil {
		return nil
	}
	if start {
		go l.dispatch(now, sleep)
	}
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		l.leave(w)
		return ctx.Err()
	}
}

// enqueue takes a slot at now when one is free and nothing waits (w is
// nil), or puts a waiter at the end of the requester's queue; start says
// the caller must start the dispatching goroutine.
func (l *limiter) enqueue(now time.Time, requester string) (w *waiter, start bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.waiting.Len() == 0 && l.due(now) == 0 {
		l.take(now)
		return nil, false
	}
	w = &waiter{requester: requester, ready: make(chan struct{})}
	l.waiting.Push(requester, w)
	start = !l.dispatching
	l.dispatching = true
	return w, start
}

// dispatch hands the free slots to the waiting requests until none waits.
func (l *limiter) dispatch(now func() time.Time, sleep func(context.Context, time.Duration) error) {
	for {
		next, more := l.grant(now())
		if !more {
			return
		}
		// Nothing to cancel: the sleep is at most one interval, and the
		// loop ends when nothing waits.
		_ = sleep(context.Background(), next)
	}
}

// grant gives every free slot at now to the waiting requests, in turn,
// and returns how long until the next slot; more is false (and the
// dispatching ends) when nothing waits any more.
func (l *limiter) grant(now time.Time) (next time.Duration, more bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.waiting.Len() > 0 && l.due(now) == 0 {
		w, _ := l.waiting.Pop()
		l.take(now)
		w.granted = true
		close(w.ready)
	}
	if l.waiting.Len() == 0 {
		l.dispatching = false
		return 0, false
	}
	return l.due(now), true
}

// leave takes a waiter out of its queue, or gives its slot back when it
// was granted one meanwhile.
func (l *limiter) leave(w *waiter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if w.granted {
		l.tat = l.tat.Add(-l.interval)
		return
	}
	l.waiting.Remove(w.requester, func(x *waiter) bool { return x == w })
}

// due returns how long from now until a slot is free: zero while the
// burst allows. The caller holds l.mu.
func (l *limiter) due(now time.Time) time.Duration {
	return max(0, l.tat.Add(l.interval-time.Duration(l.burst)*l.interval).Sub(now))
}

// take uses a slot at now. The caller holds l.mu.
func (l *limiter) take(now time.Time) {
	if l.tat.Before(now) {
		l.tat = now
	}
	l.tat = l.tat.Add(l.interval)
}

// limit waits for the rate limiter's leave to send one attempt, in the turn
// of ctx's requester. It returns the context's error if the caller gives up
// first.
func (c *Client) limit(ctx context.Context) error {
	return c.limiter.wait(ctx, c.now, c.sleep)
}
