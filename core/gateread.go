package core

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// holdingIndex is what a sweep read: for each address of interest, the
// gated drops it holds; the addresses whose scan failed; the calls made.
type holdingIndex struct {
	held   map[string][]int64
	failed map[string]bool
	calls  int
	plan   string
}

// newIndex returns an empty index.
func newIndex() holdingIndex {
	return holdingIndex{held: map[string][]int64{}, failed: map[string]bool{}, plan: PlanNone}
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
	if len(addrs) <= len(drops) || (known && len(addrs) < pages) {
		return s.scanAddresses(ctx, idx, drops, addrs)
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
		scanned, err := s.scanAddresses(ctx, idx, drops, addrs)
		return scanned, err
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

// scanAddresses fills idx by scanning each address once.
func (s *GateService) scanAddresses(ctx context.Context, idx holdingIndex, drops []int64, addrs []string) (holdingIndex, error) {
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
				hs, err := s.issuer.Holdings(ctx, a)
				mu.Lock()
				idx.calls++
				if err != nil {
					idx.failed[a] = true
					s.log.Warn("scan of a verified address failed", "address", a, "err", err)
				} else {
					for _, h := range hs {
						if slices.Contains(drops, h.DropID) && !slices.Contains(idx.held[a], h.DropID) {
							idx.held[a] = append(idx.held[a], h.DropID)
						}
					}
				}
				mu.Unlock()
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
