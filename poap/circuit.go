package poap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// Defaults of the circuit that holds calls to a failing service.
const (
	// DefaultCircuitFailures failed attempts in a row, against one host,
	// open its circuit: with the retry policy's 4 attempts a call, two
	// calls that found the service down.
	DefaultCircuitFailures = 5
	// DefaultCircuitCooldown is how long an open circuit holds calls
	// before one is let through to probe the service.
	DefaultCircuitCooldown = 30 * time.Second
)

// ErrCircuitOpen means the client did not send the call: the service failed
// the calls before it again and again (no answer, or a 5xx), so calls are
// held until a probe finds it back. It matches ErrUnavailable.
var ErrCircuitOpen = fmt.Errorf("%w: it failed call after call, so calls are held for a while", ErrUnavailable)

// CircuitPolicy says when the client stops sending to a service that keeps
// failing. Zero fields take the defaults named on them; Failures below zero
// turns the circuit off.
type CircuitPolicy struct {
	Failures int
	Cooldown time.Duration
}

// circuit counts the failed attempts in a row against one host. Closed, it
// lets every call through; after Failures of them it opens and refuses
// calls at once, without a request, for Cooldown; then it lets one call
// through as a probe, and closes when the probe is answered, or opens again
// when it fails. An answer other than a 5xx, a 4xx included, means the
// service is up.
type circuit struct {
	mu       sync.Mutex
	host     string
	policy   CircuitPolicy
	log      *slog.Logger
	failures int
	open     bool
	until    time.Time
	probing  bool
}

// allow reports whether a call may go to the host at now, and whether it
// is the probe of an open circuit. Every allowed call must be followed by
// one record.
func (c *circuit) allow(now time.Time) (ok, probe bool) {
	if c == nil {
		return true, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case !c.open:
		return true, false
	case c.probing || now.Before(c.until):
		return false, false
	}
	c.probing = true
	return true, true
}

// record counts the outcome of an allowed call at now: no answer, or an
// answer of 500 and above, is a failure; a call that never left the
// process, or that its caller gave up, says nothing of the service and
// counts neither way (a probe's then goes to the next call).
func (c *circuit) record(o outcome, probe bool, now time.Time) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if o.unsent || errors.Is(o.err, context.Canceled) {
		if probe {
			c.probing = false
		}
		return
	}
	if !failed(o) {
		if c.open {
			c.log.Info("the issuing service answers again: calls go through", "host", c.host)
		}
		c.failures, c.open, c.probing = 0, false, false
		return
	}
	c.failures++
	if c.probing || c.failures >= c.policy.Failures {
		if !c.open {
			c.log.Warn("the issuing service keeps failing: calls are held", "host", c.host, "failures", c.failures, "for", c.policy.Cooldown)
		}
		c.open, c.probing, c.until = true, false, now.Add(c.policy.Cooldown)
	}
}

// circuits keeps one circuit per host the client calls.
type circuits struct {
	mu     sync.Mutex
	policy CircuitPolicy
	log    *slog.Logger
	byHost map[string]*circuit
}

// newCircuits fills the zero fields of p; nil when the circuit is off.
func newCircuits(p CircuitPolicy, log *slog.Logger) *circuits {
	if p.Failures < 0 {
		return nil
	}
	if p.Failures == 0 {
		p.Failures = DefaultCircuitFailures
	}
	if p.Cooldown <= 0 {
		p.Cooldown = DefaultCircuitCooldown
	}
	return &circuits{policy: p, log: log, byHost: map[string]*circuit{}}
}

// of returns the circuit of host, or nil when circuits are off.
func (cs *circuits) of(host string) *circuit {
	if cs == nil {
		return nil
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c := cs.byHost[host]
	if c == nil {
		c = &circuit{host: host, policy: cs.policy, log: cs.log}
		cs.byHost[host] = c
	}
	return c
}

// failed reports whether an attempt's outcome counts against its host's
// circuit: no answer at all, or an answer of 500 and above.
func failed(o outcome) bool {
	if o.res.Status != 0 {
		return o.res.Status >= http.StatusInternalServerError
	}
	return o.err != nil && o.transient
}
