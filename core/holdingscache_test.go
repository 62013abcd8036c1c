package core_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

// newCache returns a cache over a fresh holdersFake, on a test clock.
func newCache(t *testing.T, maxHoldings int) (*core.HoldingsCache, *holdersFake, *coretest.Clock) {
	t.Helper()
	f := newHoldersFake()
	clock := coretest.NewClock(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))
	c, err := core.NewHoldingsCache(core.HoldingsCacheDeps{Issuer: f, Clock: clock, MaxHoldings: maxHoldings})
	if err != nil {
		t.Fatal(err)
	}
	return c, f, clock
}

// read reads wallet through c, failing the test on an error.
func read(t *testing.T, c *core.HoldingsCache, wallet string) []core.Holding {
	t.Helper()
	hs, err := c.Holdings(context.Background(), wallet)
	if err != nil {
		t.Fatalf("Holdings(%s) = %v", wallet, err)
	}
	return hs
}

// TestHoldingsCache_TTL: a wallet is read once within the TTL, whatever
// the case of its address, and again after it; a caller's changes to what
// it got do not reach the next caller; failures are not kept.
func TestHoldingsCache_TTL(t *testing.T) {
	c, f, clock := newCache(t, 0)
	f.give(addrA, 12, 13)
	hs := read(t, c, addrA)
	hs[0].DropID = 99
	clock.Add(core.HoldingsTTL - time.Second)
	again := read(t, c, "0xAAAA000000000000000000000000000000000001")
	if scans, _ := f.counts(); scans != 1 {
		t.Errorf("%d scans for two reads within the TTL, want 1", scans)
	}
	if len(again) != 2 || again[0].DropID != 12 {
		t.Errorf("second read = %+v, want drops 12 and 13 as the service said", again)
	}
	clock.Add(time.Second)
	read(t, c, addrA)
	if scans, _ := f.counts(); scans != 2 {
		t.Errorf("%d scans after the TTL, want 2", scans)
	}

	f.mu.Lock()
	f.failing = true
	f.mu.Unlock()
	if _, err := c.Holdings(context.Background(), addrB); !errors.Is(err, core.ErrIssuerUnavailable) {
		t.Fatalf("Holdings during an outage = %v, want ErrIssuerUnavailable", err)
	}
	f.mu.Lock()
	f.failing = false
	f.mu.Unlock()
	read(t, c, addrB)
	if scans, _ := f.counts(); scans != 4 {
		t.Errorf("%d scans, want 4: a failure is not kept", scans)
	}
}

// TestHoldingsCache_Bound: past its bound the cache drops the wallets
// used least recently, and never keeps a wallet over a tenth of it.
func TestHoldingsCache_Bound(t *testing.T) {
	c, f, _ := newCache(t, 100) // a wallet of 9 POAPs at most is kept
	addr := func(i int) string { return fmt.Sprintf("0x%040x", i+1) }
	for i := range 30 {
		f.give(addr(i), 1, 2, 3) // each counts 4
	}
	for i := range 30 {
		read(t, c, addr(i))
		read(t, c, addr(0)) // kept in use
	}
	before, _ := f.counts()
	read(t, c, addr(0))
	read(t, c, addr(29))
	if scans, _ := f.counts(); scans != before {
		t.Errorf("the wallets in use were read again: %d scans, want %d", scans, before)
	}
	read(t, c, addr(1))
	if scans, _ := f.counts(); scans != before+1 {
		t.Errorf("the wallet used least recently was kept past the bound")
	}
	big := addr(100)
	f.give(big, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
	read(t, c, big)
	read(t, c, big)
	if scans, _ := f.counts(); scans != before+3 {
		t.Errorf("a wallet over a tenth of the bound was kept: %d scans, want %d", scans, before+3)
	}
}

// blockingScanner answers Holdings only once released, and counts the
// reads and those whose context ended first.
type blockingScanner struct {
	*holdersFake
	release  chan struct{}
	mu       sync.Mutex
	reads    int
	canceled int
}

func (b *blockingScanner) Holdings(ctx context.Context, wallet string) ([]core.Holding, error) {
	b.mu.Lock()
	b.reads++
	b.mu.Unlock()
	select {
	case <-b.release:
		return b.holdersFake.Holdings(ctx, wallet)
	case <-ctx.Done():
		b.mu.Lock()
		b.canceled++
		b.mu.Unlock()
		return nil, ctx.Err()
	}
}

func (b *blockingScanner) counts() (reads, canceled int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.reads, b.canceled
}

// TestHoldingsCache_SharedRead: readers of one wallet at the same time
// share one request; a reader who gives up does not end it for the
// others; when all give up, the request is cancelled and nothing is kept.
func TestHoldingsCache_SharedRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &blockingScanner{holdersFake: newHoldersFake(), release: make(chan struct{})}
		b.give(addrA, 12)
		c, err := core.NewHoldingsCache(core.HoldingsCacheDeps{Issuer: b})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		impatient, giveUp := context.WithCancel(context.Background())
		wg.Go(func() {
			if _, err := c.Holdings(impatient, addrA); !errors.Is(err, context.Canceled) {
				t.Errorf("the reader who gave up got %v, want context.Canceled", err)
			}
		})
		synctest.Wait()
		for range 4 {
			wg.Go(func() {
				if hs, err := c.Holdings(context.Background(), addrA); err != nil || len(hs) != 1 {
					t.Errorf("Holdings = %v, %v; want drop 12", hs, err)
				}
			})
		}
		synctest.Wait()
		giveUp()
		synctest.Wait()
		close(b.release)
		wg.Wait()
		if reads, canceled := b.counts(); reads != 1 || canceled != 0 {
			t.Errorf("%d requests (%d cancelled) for five readers at once, want 1 (none)", reads, canceled)
		}

		// Every reader gives up: the request ends with them.
		b.release = make(chan struct{})
		ctx, cancel := context.WithCancel(context.Background())
		for range 3 {
			wg.Go(func() { c.Holdings(ctx, addrB) })
		}
		synctest.Wait()
		cancel()
		wg.Wait()
		synctest.Wait()
		if reads, canceled := b.counts(); reads != 2 || canceled != 1 {
			t.Errorf("after every reader gave up: %d requests, %d cancelled; want 2, 1", reads, canceled)
		}
	})
}

// mintRecorder is a DropIssuer whose Mint gives the drop to the wallet on
// the holdersFake.
type mintRecorder struct {
	core.DropIssuer
	f *holdersFake
}

func (m mintRecorder) Mint(_ context.Context, _, wallet string) (string, error) {
	m.f.give(wallet, 77)
	return "tx", nil
}

// TestHoldingsCache_ForgetMinted: a mint by the bot forgets the wallet,
// TestHoldingsCache_SharedByRequester: a read under way is shared only by
// readers for the same requester: another member's read of the wallet does
// not wait in that member's turn of the issuing service's budget.
func TestHoldingsCache_SharedByRequester(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &blockingScanner{holdersFake: newHoldersFake(), release: make(chan struct{})}
		b.give(addrA, 12)
		c, err := core.NewHoldingsCache(core.HoldingsCacheDeps{Issuer: b})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for _, who := range []string{"discord:1", "discord:1", "discord:2"} {
			ctx := core.WithRequester(context.Background(), who)
			wg.Go(func() {
				if hs, err := c.Holdings(ctx, addrA); err != nil || len(hs) != 1 {
					t.Errorf("Holdings = %v, %v; want drop 12", hs, err)
				}
			})
			synctest.Wait()
		}
		close(b.release)
		wg.Wait()
		if reads, _ := b.counts(); reads != 2 {
			t.Errorf("%d requests for two readers of one member and one of another, want 2", reads)
		}
	})
}

// so the member's next /poaps shows the POAP.
func TestHoldingsCache_ForgetMinted(t *testing.T) {
	c, f, _ := newCache(t, 0)
	f.give(addrA, 12)
	read(t, c, addrA)
	issuer := c.ForgetMinted(mintRecorder{f: f})
	if _, err := issuer.Mint(context.Background(), "qr", addrA); err != nil {
		t.Fatal(err)
	}
	if hs := read(t, c, addrA); len(hs) != 2 {
		t.Errorf("after a mint the wallet holds %+v, want the minted drop too", hs)
	}
}

// TestCollection_Cached: /poaps of a wallet twice within the TTL costs one
// scan.
func TestCollection_Cached(t *testing.T) {
	c, f, _ := newCache(t, 0)
	f.give(addrA, 12)
	svc, err := core.NewCollectionService(core.CollectionServiceDeps{Members: coretest.NewMemStore(), Scanner: c})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, err := svc.Collection(context.Background(), core.Discord, "caller", core.CollectionQuery{Wallet: addrA})
		if err != nil || len(got.Holdings) != 1 {
			t.Fatalf("Collection = %+v, %v", got, err)
		}
	}
	if scans, _ := f.counts(); scans != 1 {
		t.Errorf("%d scans for two /poaps, want 1", scans)
	}
}
