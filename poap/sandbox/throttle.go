package sandbox

import (
	"math"
	"time"
)

// bucket is a token bucket on the Server's clock, the gateway's throttle
// of one operation: it earns a token every interval and holds up to burst,
// and starts full. A zero interval is no limit. Tokens are counted whole
// and time in durations, so a test clock meets its boundaries exactly.
type bucket struct {
	interval time.Duration
	burst    int
	tokens   int
	since    time.Time // when the token being earned began; zero before first use
}

// newBucket returns a bucket of rate tokens a second holding up to burst
// (at least 1); a rate that is not above zero (NaN too) is no limit.
func newBucket(rate float64, burst int) bucket {
	if !(rate > 0) {
		return bucket{}
	}
	burst = max(burst, 1)
	interval := max(time.Duration(math.Round(float64(time.Second)/rate)), 1)
	return bucket{interval: interval, burst: burst, tokens: burst}
}

// take spends a token at now, or reports how long until the next one is
// earned.
func (b *bucket) take(now time.Time) (wait time.Duration, ok bool) {
	if b.interval == 0 {
		return 0, true
	}
	b.refill(now)
	if b.tokens == 0 {
		return b.since.Add(b.interval).Sub(now), false
	}
	b.tokens--
	return 0, true
}

// refill credits the tokens earned by now. A full bucket earns nothing, so
// the next token is earned from the first take; a clock set back (tests
// do) restarts the token being earned at now.
func (b *bucket) refill(now time.Time) {
	if b.since.IsZero() || now.Before(b.since) || b.tokens == b.burst {
		b.since = now
		return
	}
	earned := now.Sub(b.since) / b.interval
	if earned >= time.Duration(b.burst-b.tokens) {
		b.tokens, b.since = b.burst, now
		return
	}
	b.tokens += int(earned)
	b.since = b.since.Add(earned * b.interval)
}
