package core

import (
	"errors"
	"sync"
	"time"
)

// The budget of a member's smart-contract wallet checks: each check asks
// every configured chain an eth_call of up to 10 million gas, which a
// stream of signatures (on challenge after challenge) could otherwise
// repeat without end, a chain's outage counting nothing against them.
const (
	// ChainChecksBurst is how many checks a member may ask at once.
	ChainChecksBurst = 10
	// ChainCheckEvery is how often a member earns one more check.
	ChainCheckEvery = time.Minute
	// chainBudgetsKept bounds the members remembered; members whose
	// budget is full again are forgotten first.
	chainBudgetsKept = 1024
)

// ErrTooManyChainChecks means the member asked for more smart-contract
// wallet checks than ChainChecksBurst in a short time: the chains were not
// asked and nothing is known of the signature. It comes with
// ErrChainUnavailable, as an outage would, so it counts for nothing.
var ErrTooManyChainChecks = errors.New("too many smart-contract wallet checks")

// chainBudgets is a token bucket of chain checks per member, in memory.
type chainBudgets struct {
	mu    sync.Mutex
	users map[int64]chainBudget
}

// chainBudget is one member's: tokens left at a time.
type chainBudget struct {
	tokens float64
	at     time.Time
}

// take spends one check of user's at now, if one is left.
func (b *chainBudgets) take(user int64, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.users == nil {
		b.users = make(map[int64]chainBudget)
	}
	cur, ok := b.users[user]
	if !ok {
		b.forget(now)
		cur = chainBudget{tokens: ChainChecksBurst, at: now}
	}
	cur = cur.refill(now)
	if cur.tokens < 1 {
		b.users[user] = cur
		return false
	}
	cur.tokens--
	b.users[user] = cur
	return true
}

// refill refills the budget for the time since it was last seen.
func (c chainBudget) refill(now time.Time) chainBudget {
	if now.After(c.at) {
		c.tokens = min(ChainChecksBurst, c.tokens+float64(now.Sub(c.at))/float64(ChainCheckEvery))
		c.at = now
	}
	return c
}

// forget drops members whose budget is full again when too many are
// remembered, and everyone when still too many.
func (b *chainBudgets) forget(now time.Time) {
	if len(b.users) < chainBudgetsKept {
		return
	}
	for u, c := range b.users {
		if c.refill(now).tokens >= ChainChecksBurst {
			delete(b.users, u)
		}
	}
	if len(b.users) >= chainBudgetsKept {
		clear(b.users)
	}
}
