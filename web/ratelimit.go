package web

import (
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// The per-address limit of the verification page's POST: each address has
// a bucket of submitBurst signatures that refills by one every
// submitEvery (60 a minute). A member sends one signature, a few after
// mistakes, so no member meets it; someone trying signatures by the
// thousand does, and each challenge locks after core.MaxWrongSignatures
// anyway. Behind a reverse proxy every request comes from the proxy's
// address, so the limit is then shared by all members: 60 verifications a
// minute, with bursts of 30.
const (
	submitBurst = 30
	submitEvery = time.Second
	// maxAddresses bounds the buckets kept: past it, the full ones (of
	// addresses idle long enough to have refilled) are dropped, then
	// others at random.
	maxAddresses = 10000
)

// addressLimiter is a token bucket per remote address, in memory.
type addressLimiter struct {
	burst float64
	every time.Duration
	max   int

	mu      sync.Mutex
	buckets map[netip.Prefix]bucket
}

// bucket is an address's tokens as counted at at.
type bucket struct {
	tokens float64
	at     time.Time
}

func newAddressLimiter(burst int, every time.Duration, maxAddresses int) *addressLimiter {
	return &addressLimiter{burst: float64(burst), every: every, max: maxAddresses, buckets: map[netip.Prefix]bucket{}}
}

// allow takes a token from the bucket of r's remote address at now. When
// there is none it takes nothing and returns false and how long until
// there is one.
func (l *addressLimiter) allow(r *http.Request, now time.Time) (bool, time.Duration) {
	key := addressKey(r.RemoteAddr)
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok {
		l.makeRoom(now)
		b = bucket{tokens: l.burst, at: now}
	}
	b = l.refill(b, now)
	if b.tokens < 1 {
		l.buckets[key] = b
		return false, time.Duration((1 - b.tokens) * float64(l.every))
	}
	b.tokens--
	l.buckets[key] = b
	return true, 0
}

// refill adds the tokens earned since b.at, up to the burst.
func (l *addressLimiter) refill(b bucket, now time.Time) bucket {
	if now.After(b.at) {
		b.tokens = min(l.burst, b.tokens+float64(now.Sub(b.at))/float64(l.every))
		b.at = now
	}
	return b
}

// makeRoom drops buckets when l.max are kept: the full ones first, which
// would be made again just as they are, then others at random (map order),
// so that many addresses cannot grow the memory without bound.
func (l *addressLimiter) makeRoom(now time.Time) {
	if len(l.buckets) < l.max {
		return
	}
	for k, b := range l.buckets {
		if l.refill(b, now).tokens >= l.burst {
			delete(l.buckets, k)
		}
	}
	for k := range l.buckets {
		if len(l.buckets) < l.max {
			return
		}
		delete(l.buckets, k)
	}
}

// addressKey is what the limit counts by: the IPv4 address, or the /64 of
// an IPv6 address (one subscriber's usual share, which they can walk
// through at will). A remote address that does not parse counts as one.
func addressKey(remote string) netip.Prefix {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Prefix{}
	}
	a = a.Unmap().WithZone("")
	bits := 32
	if a.Is6() {
		bits = 64
	}
	p, _ := a.Prefix(bits)
	return p
}
