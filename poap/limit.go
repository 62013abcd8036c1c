package poap

import (
	"context"
	"sync"
	"time"
)

// limiter paces every request of a Client: one every interval on average,
// with up to burst at once after a quiet spell. It is a token bucket in
// its GCRA form, which keeps one time instead of a count, so waits come out
// exact. A nil limiter lets everything through.
type limiter struct {
	interval time.Duration
	burst    int

	mu sync.Mutex
	// tat is the theoretical arrival time: when the bucket will be full
	// again, if nothing more is sent.
	tat time.Time
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

// reserve takes a place for a request at now and returns how long to wait
// before sending it: zero while the burst allows.
func (l *limiter) reserve(now time.Time) time.Duration {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tat.Before(now) {
		l.tat = now
	}
	l.tat = l.tat.Add(l.interval)
	return max(0, l.tat.Sub(now)-time.Duration(l.burst)*l.interval)
}

// unreserve gives back a place reserved and not used.
func (l *limiter) unreserve() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tat = l.tat.Add(-l.interval)
}

// limit waits for the rate limiter's leave to send one attempt. It returns
// the context's error if the caller gives up first.
func (c *Client) limit(ctx context.Context) error {
	wait := c.limiter.reserve(c.now())
	if wait <= 0 {
		return nil
	}
	if err := c.sleep(ctx, wait); err != nil {
		c.limiter.unreserve()
		return err
	}
	return nil
}
