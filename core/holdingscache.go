package core

import (
	"container/list"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// HoldingsTTL is how long the holdings of a wallet read from the issuing
// service are reused (HoldingsCache): a POAP that arrives meanwhile shows
// in /poaps and /why, and counts for gates, at most this much later (a mint
// by the bot at once).
const HoldingsTTL = time.Minute

// DefaultMaxCachedHoldings bounds the POAPs a HoldingsCache keeps in all,
// each wallet counting one more than its POAPs: a few hundred bytes a POAP,
// so about 15 MB at most. A wallet holding more than a tenth of it is read
// each time rather than crowd out everyone else's.
const DefaultMaxCachedHoldings = 50_000

// HoldingsCache is a GateIssuer that keeps the holdings it reads for a
// short time (HoldingsTTL), so that /poaps, /why and the evaluation of a
// member's gates share one read of a wallet: it is the CollectionService's
// Scanner and the GateService's Issuer. Reads of the same wallet at the
// same time share one request. Drops' holders and details are read from
// the issuing service each time. Gating takes what it may from the cache
// and reads fresh what a decision needs (the wallet just verified, the
// wallets of a member about to lose a role); a mint by the bot forgets the
// wallet (ForgetMinted). It is safe for concurrent use.
type HoldingsCache struct {
	issuer GateIssuer
	clock  Clock
	ttl    time.Duration
	max    int

	mu      sync.Mutex
	entries map[string]*list.Element // of *cachedHoldings, by holdingsKey
	order   *list.List               // most recently used first
	size    int
	flights map[flightKey]*flight
	// forgets counts the calls of Forget: a read that saw one happen
	// while it ran does not keep its answer, which may predate a mint.
	forgets uint64
}

// cachedHoldings is one wallet's holdings and when they were read.
type cachedHoldings struct {
	key      string
	holdings []Holding
	at       time.Time
}

// weight is what an entry counts against the bound.
func (c *cachedHoldings) weight() int { return len(c.holdings) + 1 }

// flightKey names a read under way: of a wallet, for a requester. Only the
// requester's own readers share it: the read waits for the issuing
// service's budget in its requester's turn (WithRequester), where another
// member's read of the wallet must not wait behind them.
type flightKey struct{ wallet, requester string }

// flight is a read of a wallet that the readers arriving meanwhile share;
// it is cancelled when every one of them has given up.
type flight struct {
	done     chan struct{}
	holdings []Holding
	err      error
	readers  int
	cancel   context.CancelFunc
}

// HoldingsCacheDeps are the dependencies of a HoldingsCache: Issuer is
// required; TTL defaults to HoldingsTTL, MaxHoldings to
// DefaultMaxCachedHoldings, Clock to the system clock.
type HoldingsCacheDeps struct {
	Issuer      GateIssuer
	TTL         time.Duration
	MaxHoldings int
	Clock       Clock
}

// NewHoldingsCache returns an empty cache over d.Issuer. It returns an
// error wrapping ErrMissingDependency when Issuer is nil.
func NewHoldingsCache(d HoldingsCacheDeps) (*HoldingsCache, error) {
	if err := missing("holdings cache", "Issuer", d.Issuer); err != nil {
		return nil, err
	}
	c := &HoldingsCache{issuer: d.Issuer, clock: d.Clock, ttl: d.TTL, max: d.MaxHoldings,
		entries: map[string]*list.Element{}, order: list.New(), flights: map[flightKey]*flight{}}
	if c.clock == nil {
		c.clock = SystemClock{}
	}
	if c.ttl <= 0 {
		c.ttl = HoldingsTTL
	}
	if c.max <= 0 {
		c.max = DefaultMaxCachedHoldings
	}
	return c, nil
}

var _ GateIssuer = (*HoldingsCache)(nil)

// Holdings lists the POAPs the wallet holds, as read at most the cache's
// TTL ago; the caller owns the slice. Errors are the issuer's (they are not
// kept: the next read asks again).
func (c *HoldingsCache) Holdings(ctx context.Context, wallet string) ([]Holding, error) {
	hs, _, err := c.lookup(ctx, wallet, false)
	return hs, err
}

// DropHolders reads a page of the drop's holders from the issuer.
func (c *HoldingsCache) DropHolders(ctx context.Context, dropID int64, offset int) (HolderPage, error) {
	return c.issuer.DropHolders(ctx, dropID, offset)
}

// DropDetails reads a drop's name from the issuer.
func (c *HoldingsCache) DropDetails(ctx context.Context, eventID int64) (DropDetails, error) {
	return c.issuer.DropDetails(ctx, eventID)
}

// Forget drops what the cache keeps of wallet, and keeps no read that is
// under way: the next read asks the issuing service.
func (c *HoldingsCache) Forget(wallet string) {
	key := holdingsKey(wallet)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forgets++
	if e, ok := c.entries[key]; ok {
		c.remove(e)
	}
	for fk := range c.flights {
		if fk.wallet == key {
			delete(c.flights, fk)
		}
	}
}

// ForgetMinted returns issuer with its Mint forgetting the wallet minted
// to, whatever the outcome (a mint that failed may have happened all the
// same): the member's next /poaps reads it anew.
func (c *HoldingsCache) ForgetMinted(issuer DropIssuer) DropIssuer {
	return mintForgetting{DropIssuer: issuer, cache: c}
}

// mintForgetting is a DropIssuer whose Mint forgets the wallet.
type mintForgetting struct {
	DropIssuer
	cache *HoldingsCache
}

// Mint is the issuer's Mint, then Forget of the wallet.
func (m mintForgetting) Mint(ctx context.Context, qrHash, wallet string) (string, error) {
	tx, err := m.DropIssuer.Mint(ctx, qrHash, wallet)
	m.cache.Forget(wallet)
	return tx, err
}

// readSource says where a read of a wallet's holdings came from.
type readSource int

const (
	// readCalled: a request of this read.
	readCalled readSource = iota
	// readShared: the request of another read of the wallet under way.
	readShared
	// readCached: kept from an earlier read, up to the TTL old.
	readCached
)

// lookup reads the wallet's holdings: from what is kept unless fresh,
// else sharing a read under way (unless fresh: one that began earlier may
// predate what the caller needs to see), else from the issuer.
func (c *HoldingsCache) lookup(ctx context.Context, wallet string, fresh bool) ([]Holding, readSource, error) {
	key := holdingsKey(wallet)
	fk := flightKey{wallet: key, requester: Requester(ctx)}
	c.mu.Lock()
	if !fresh {
		if hs, ok := c.get(key); ok {
			c.mu.Unlock()
			return hs, readCached, nil
		}
		if f, ok := c.flights[fk]; ok {
			f.readers++
			c.mu.Unlock()
			hs, err := c.await(ctx, fk, f)
			return hs, readShared, err
		}
	}
	forgets, start := c.forgets, c.clock.Now()
	if fresh {
		c.mu.Unlock()
		hs, err := c.issuer.Holdings(ctx, wallet)
		c.keep(key, hs, err, forgets, start)
		return slices.Clone(hs), readCalled, err
	}
	// The read outlives the reader who began it while others wait for it;
	// it keeps that reader's values (the requester, which all of them
	// share), not its end.
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	f := &flight{done: make(chan struct{}), readers: 1, cancel: cancel}
	c.flights[fk] = f
	c.mu.Unlock()
	go func() {
		defer cancel()
		hs, err := c.issuer.Holdings(fctx, wallet)
		c.keep(key, hs, err, forgets, start)
		c.mu.Lock()
		if c.flights[fk] == f {
			delete(c.flights, fk)
		}
		f.holdings, f.err = hs, err
		c.mu.Unlock()
		close(f.done)
	}()
	hs, err := c.await(ctx, fk, f)
	return hs, readCalled, err
}

// await waits for the flight's answer, or for ctx; the last reader to give
// up cancels the read.
func (c *HoldingsCache) await(ctx context.Context, key flightKey, f *flight) ([]Holding, error) {
	select {
	case <-f.done:
		return slices.Clone(f.holdings), f.err
	case <-ctx.Done():
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if f.readers--; f.readers == 0 {
		f.cancel()
		if c.flights[key] == f {
			delete(c.flights, key)
		}
	}
	return nil, fmt.Errorf("holdings: %w", ctx.Err())
}

// get returns a copy of the wallet's holdings when they are kept and
// younger than the TTL. The caller holds c.mu.
func (c *HoldingsCache) get(key string) ([]Holding, bool) {
	e, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	ch := e.Value.(*cachedHoldings)
	if c.clock.Now().Sub(ch.at) >= c.ttl {
		c.remove(e)
		return nil, false
	}
	c.order.MoveToFront(e)
	return slices.Clone(ch.holdings), true
}

// keep stores a successful read begun at start, unless Forget was called
// meanwhile or the wallet holds too many POAPs to keep, and drops the
// least recently used wallets past the bound.
func (c *HoldingsCache) keep(key string, hs []Holding, err error, forgets uint64, start time.Time) {
	if err != nil || len(hs)+1 > c.max/10 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.forgets != forgets {
		return
	}
	if e, ok := c.entries[key]; ok {
		if e.Value.(*cachedHoldings).at.After(start) {
			return // a later read is kept already
		}
		c.remove(e)
	}
	ch := &cachedHoldings{key: key, holdings: slices.Clone(hs), at: start}
	c.entries[key] = c.order.PushFront(ch)
	c.size += ch.weight()
	for c.size > c.max {
		c.remove(c.order.Back())
	}
}

// remove drops an entry. The caller holds c.mu.
func (c *HoldingsCache) remove(e *list.Element) {
	ch := c.order.Remove(e).(*cachedHoldings)
	delete(c.entries, ch.key)
	c.size -= ch.weight()
}

// holdingsKey is the key of a wallet: a 0x address in lower case (as
// gating reads them), an ENS name or an e-mail as ParseWallet leaves it.
func holdingsKey(wallet string) string {
	if len(wallet) == 42 && strings.HasPrefix(strings.ToLower(wallet), "0x") {
		return strings.ToLower(wallet)
	}
	return wallet
}
