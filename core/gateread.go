package core

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// holdingIndex is what a sweep read: for each address of interest, the
// gated drops it holds; the addresses whose scan failed; those answered
// from the holdings cache (up to HoldingsTTL old); the calls made.
type holdingIndex struct {
	held   map[string][]int64
	failed map[string]bool
	cached map[string]bool
	calls  int
	plan   string
}

// newIndex returns an empty index.
func newIndex() holdingIndex {
	return holdingIndex{held: map[string][]int64{}, failed: map[string]bool{}, cached: map[string]bool{}, plan: PlanNone}
}

// Which addresses a scan reads from the issuing service whatever the
// holdings cache keeps: none, or all.
var (
	noneFresh = func(string) bool { return false }
	allFresh  = func(string) bool { return true }
)

// holdingsLookup is a GateIssuer that keeps the holdings it reads
// (HoldingsCache): gating takes from it what may be cached, and asks it
// for fresh reads where a decision needs them.
type holdingsLookup interface {
	lookup(ctx context.Context, wallet string, fresh bool) ([]Holding, readSource, error)
}

// holdings reads an address's holdings: through the issuer's cache when
// it keeps one, else from the service.
func (s *GateService) holdings(ctx context.Context, addr string, fresh bool) ([]Holding, readSource, error) {
	if l, ok := s.issuer.(holdingsLookup); ok {
		return l.lookup(ctx, addr, fresh)
	}
	hs, err := s.issuer.Holdings(ctx, addr)
	return hs, readCalled, err
}

// scanWorkers bounds the scans of one sweep at once.
const scanWorkers = 4

// readHoldings reads which of drops the addresses hold, by the cheaper of
// two plans counted in calls to the issuing service: reading each drop's
// holders (a call per page of HoldersPageSize), or scanning each address
// (a call each). The holder counts of the last sweep are remembered; a
// drop never read costs its first page, which is needed anyway to learn
// its count. A failed holder page fails the sweep (no removal is decided
// on a partial list); a failed scan leaves that address's members as they
// are.
func (s *GateService) readHoldings(ctx context.Context, drops []int64, addrs []string) (holdingIndex, error) {
	idx := newIndex()
	if len(addrs) == 0 || len(drops) == 0 {
		return idx, nil
	}
	wanted := make(map[string]bool, len(addrs))
	for _, a := range addrs {
		wanted[a] = true
	}
	pages, known := s.estimatePages(drops)
	// A sweep's scans read the service, as its holder lists do (what it
	// reads is kept for /poaps and /why): a /gate sync applies the place
	// as it is now.
	if len(addrs) <= len(drops) || (known && len(addrs) < pages) {
		return s.scanAddresses(ctx, idx, drops, addrs, allFresh)
	}
	// Read every drop's first page: it gives the counts.
	type first struct {
		drop  int64
		total int
	}
	var firsts []first
	got := map[int64]map[string]bool{}
	for _, d := range drops {
		page, err := s.issuer.DropHolders(ctx, d, 0)
		idx.calls++
		if err != nil {
			return idx, fmt.Errorf("holders of drop %d: %w", d, err)
		}
		s.rememberTotal(d, page.Total)
		firsts = append(firsts, first{d, page.Total})
		got[d] = map[string]bool{}
		for _, a := range page.Addresses {
			if wanted[a] {
				got[d][a] = true
			}
		}
	}
	remaining := 0
	for _, f := range firsts {
		remaining += pagesOf(f.total) - 1
	}
	if len(addrs) < remaining {
		return s.scanAddresses(ctx, idx, drops, addrs, allFresh)
	}
	idx.plan = PlanHolders
	for _, f := range firsts {
		for off := HoldersPageSize; off < f.total; off += HoldersPageSize {
			page, err := s.issuer.DropHolders(ctx, f.drop, off)
			idx.calls++
			if err != nil {
				return idx, fmt.Errorf("holders of drop %d: %w", f.drop, err)
			}
			for _, a := range page.Addresses {
				if wanted[a] {
					got[f.drop][a] = true
				}
			}
		}
	}
	for _, d := range drops {
		for a := range got[d] {
			idx.held[a] = append(idx.held[a], d)
		}
	}
	return idx, nil
}

// scanAddresses fills idx by reading each address once: from the holdings
// cache when the issuer keeps one, except the addresses fresh names, which
// are read from the service whatever it keeps. Only requests made count as
// calls.
func (s *GateService) scanAddresses(ctx context.Context, idx holdingIndex, drops []int64, addrs []string, fresh func(string) bool) (holdingIndex, error) {
	idx.plan = PlanScans
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		next = make(chan string)
	)
	for range min(scanWorkers, len(addrs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for a := range next {
				hs, src, err := s.holdings(ctx, a, fresh(a))
				mu.Lock()
				idx.record(a, drops, hs, src, err)
				mu.Unlock()
				if err != nil {
					s.log.Warn("scan of a verified address failed", "address", a, "err", err)
				}
			}
		}()
	}
	for _, a := range addrs {
		next <- a
	}
	close(next)
	wg.Wait()
	return idx, nil
}

// record notes one address's read: the drops of drops it holds, or its
// failure, and where the answer came from.
func (idx *holdingIndex) record(a string, drops []int64, hs []Holding, src readSource, err error) {
	if src == readCalled {
		idx.calls++
	}
	delete(idx.failed, a)
	delete(idx.cached, a)
	delete(idx.held, a)
	if err != nil {
		idx.failed[a] = true
		return
	}
	if src == readCached {
		idx.cached[a] = true
	}
	for _, h := range hs {
		if slices.Contains(drops, h.DropID) && !slices.Contains(idx.held[a], h.DropID) {
			idx.held[a] = append(idx.held[a], h.DropID)
		}
	}
}

// refresh reads again from the service the addresses idx took from the
// holdings cache: before a decision that takes something from a member.
func (s *GateService) refresh(ctx context.Context, idx holdingIndex, drops []int64) holdingIndex {
	if len(idx.cached) == 0 {
		return idx
	}
	var stale []string
	for a := range idx.cached {
		stale = append(stale, a)
	}
	slices.Sort(stale)
	again, _ := s.scanAddresses(ctx, newIndex(), drops, stale, allFresh)
	for _, a := range stale {
		delete(idx.cached, a)
		delete(idx.held, a)
		delete(idx.failed, a)
		if again.failed[a] {
			idx.failed[a] = true
		}
		if held, ok := again.held[a]; ok {
			idx.held[a] = held
		}
	}
	idx.calls += again.calls
	return idx
}

// estimatePages returns the holder pages the drops cost by the counts of
// the last sweep, and whether every count is known.
func (s *GateService) estimatePages(drops []int64) (pages int, known bool) {
	s.totalsMu.Lock()
	defer s.totalsMu.Unlock()
	known = true
	for _, d := range drops {
		t, ok := s.totals[d]
		if !ok {
			known = false
			pages++
			continue
		}
		pages += pagesOf(t)
	}
	return pages, known
}

func (s *GateService) rememberTotal(drop int64, total int) {
	s.totalsMu.Lock()
	defer s.totalsMu.Unlock()
	s.totals[drop] = total
}

// pagesOf is the number of holder pages of a drop with total POAPs: at
// least one, the call that tells the count.
func pagesOf(total int) int { return max(1, (total+HoldersPageSize-1)/HoldersPageSize) }

// verdictOf evaluates g on the holdings of addresses; ok is false when one
// of them could not be read.
func verdictOf(g Gate, addresses []string, idx holdingIndex) (v GateVerdict, wallets []string, ok bool) {
	ids := g.DropIDs()
	var hs []Holding
	for _, a := range addresses {
		if idx.failed[a] {
			return GateVerdict{}, nil, false
		}
		held := false
		for _, d := range idx.held[a] {
			if slices.Contains(ids, d) {
				hs = append(hs, Holding{DropID: d, Owner: a})
				held = true
			}
		}
		if held {
			wallets = append(wallets, a)
		}
	}
	return EvaluateGate(ids, g.Mode, hs), wallets, true
}
