package poap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"time"
)

// Defaults of RetryPolicy. Four attempts with waits of about 0.2, 0.4 and
// 0.8 s ride out a gateway hiccup or a deploy within a couple of seconds,
// which is as long as a chat user waits for an answer; the 10 s cap only
// matters to callers who raise MaxAttempts.
const (
	DefaultMaxAttempts   = 4
	DefaultBaseDelay     = 200 * time.Millisecond
	DefaultMaxDelay      = 10 * time.Second
	DefaultMaxRetryAfter = 30 * time.Second
)

// RetryPolicy says how the client retries an idempotent request after a
// failure that may pass: a network error, a timeout, or an answer of 429,
// 502, 503 or 504. Requests that are not idempotent, such as a mint, are
// never retried, since the service may have acted on them. Zero fields take
// the defaults named on them.
type RetryPolicy struct {
	// MaxAttempts bounds the attempts of one call, the first included;
	// zero means DefaultMaxAttempts and 1 (or a negative value) disables
	// retries.
	MaxAttempts int
	// BaseDelay is the wait before the first retry, doubled before each
	// next one up to MaxDelay, each wait then jittered to between half and
	// all of itself; zero means DefaultBaseDelay and DefaultMaxDelay.
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// MaxRetryAfter is the longest Retry-After the client waits for; an
	// answer asking for longer is returned, its APIError carrying the
	// wait. Zero means DefaultMaxRetryAfter.
	MaxRetryAfter time.Duration
}

// withDefaults fills the zero fields of p.
func (p RetryPolicy) withDefaults() RetryPolicy {
	switch {
	case p.MaxAttempts == 0:
		p.MaxAttempts = DefaultMaxAttempts
	case p.MaxAttempts < 0:
		p.MaxAttempts = 1
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultMaxDelay
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = DefaultMaxRetryAfter
	}
	return p
}

// backoff is the jittered wait before retry n (1 for the first retry).
// Jitter spreads the retries of many callers failed by one outage.
func (p RetryPolicy) backoff(n int) time.Duration {
	d := p.BaseDelay
	for i := 1; i < n && d < p.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, p.MaxDelay)
	return d/2 + rand.N(d/2+1)
}

// retryable reports whether an answer with status may pass on a retry.
func retryable(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// retryWait decides whether r, whose attempt (counted from 1) just failed
// as o says, is tried again, and after which wait. The wait is the
// service's Retry-After when it gave one, else the backoff; a wait that
// would outlast the caller's deadline, or a Retry-After over MaxRetryAfter,
// means giving up.
func (c *Client) retryWait(ctx context.Context, r request, attempt int, o outcome) (time.Duration, bool) {
	if !r.idempotent || !o.transient || attempt >= c.retry.MaxAttempts || ctx.Err() != nil {
		return 0, false
	}
	wait := c.retry.backoff(attempt)
	var apiErr *APIError
	if errors.As(o.err, &apiErr) && apiErr.RetryAfter > 0 {
		if apiErr.RetryAfter > c.retry.MaxRetryAfter {
			return 0, false
		}
		wait = apiErr.RetryAfter
	}
	if deadline, ok := ctx.Deadline(); ok && c.now().Add(wait).After(deadline) {
		return 0, false
	}
	return wait, true
}

// pause logs the coming retry of r and waits. It returns the failure that
// led to it, wrapped with the context's error, if the caller gives up first.
func (c *Client) pause(ctx context.Context, r request, attempt int, wait time.Duration, failure error) error {
	c.log.LogAttrs(ctx, slog.LevelDebug, "poap retry",
		slog.String("operation", r.op),
		slog.Int("attempt", attempt+1),
		slog.Duration("wait", wait),
		slog.String("after", failure.Error()))
	if err := c.sleep(ctx, wait); err != nil {
		return fmt.Errorf("%w (retry abandoned: %w)", failure, err)
	}
	return nil
}

// sleep waits d, or until ctx is done and then returns its error.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
