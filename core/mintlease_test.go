package core_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

// TestMintLinkService_ReconcileMints_InFlight starts the reconciler while
// mints are in flight (held at the service until released): it settles
// the mints of processes that died (their leases ran out) and leaves the
// live ones alone; once the senders outlive their leases (a process
// frozen by its host) it reads their links unclaimed and hands them back,
// and the senders' "minted" still wins: every member told Minted has the
// link recorded minted, audited once.
func TestMintLinkService_ReconcileMints_InFlight(t *testing.T) {
	t.Parallel()
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		db := openKeyed(t, newURL())
		const n = 4
		base := newDropIssuer()
		entered := make(chan string, n)
		release := make(chan struct{})
		issuer := &heldIssuer{dropIssuer: base, hold: func(ctx context.Context, hash string) error {
			entered <- hash
			select {
			case <-release:
				return nil
			case <-ctx.Done():
				return fmt.Errorf("%w: %w", ctx.Err(), core.ErrIssuerUnavailable)
			}
		}}
		r := newReplica(t, db, issuer, coretest.NewClock(t0))
		d := r.addMintDrop(t, base, n+2)
		landed := r.deadMint(t, base, d, "dead1", wallet(100), true)
		lost := r.deadMint(t, base, d, "dead2", wallet(101), false)
		r.clock.Add(core.MintLease) // the dead processes' leases run out

		results := make(chan claimed, n)
		for i := range n {
			who := fmt.Sprintf("m%d", i)
			m, _ := r.member(t, who, wallet(i))
			go func() {
				res, err := r.svc.Claim(context.Background(), m, mintPlace, core.ClaimOptions{EventID: eventID})
				results <- claimed{who, res, err}
			}()
		}
		for range n {
			<-entered
		}
		if got, err := r.links.ReconcileMints(t.Context()); err != nil || got != 2 {
			t.Fatalf("ReconcileMints() with %d mints in flight = %d, %v, want the 2 dead ones settled", n, got, err)
		}
		if s := linkState(t, db, d, landed.QRHash); s != core.MintLinkMinted {
			t.Errorf("dead mint that landed: %s, want minted", s)
		}
		if s := linkState(t, db, d, lost.QRHash); s != core.MintLinkHandedOut {
			t.Errorf("dead mint that was lost: %s, want handed out", s)
		}
		if st := stock(t, r); st.Minting != n {
			t.Errorf("after reconciling: %d links minting, want the %d in flight", st.Minting, n)
		}

		r.clock.Add(core.MintLease) // the senders outlive their leases
		if got, err := r.links.ReconcileMints(t.Context()); err != nil || got != n {
			t.Fatalf("ReconcileMints() past the leases = %d, %v, want %d read unclaimed", got, err, n)
		}
		close(release)
		var all []claimed
		for range n {
			all = append(all, <-results)
		}
		checkMinted(t, db, d, all, r.audit)
		if st := stock(t, r); st.Minted != n+1 || st.HandedOut != 1 || st.Minting != 0 {
			t.Errorf("stock = %+v, want %d minted, 1 handed out, none minting", st, n+1)
		}
	})
}

// TestMintLinkService_ReconcileMints_Replicas: one replica mints while
// another, on its own handle of the database (on PostgreSQL; SQLite's
// replicas are goroutines), reconciles over and over with a clock a whole
// lease ahead, so that every mint in flight looks abandoned to it. Each
// mint waits at the service for a full pass of the reconciler, half of
// them before landing (read unclaimed, handed back, then the sender's
// "minted" wins), half after (read minted by the reconciler, the sender's
// record changes nothing). Every member told Minted has the link recorded
// minted, audited once across both replicas; a mint left by a dead process
// is settled too.
func TestMintLinkService_ReconcileMints_Replicas(t *testing.T) {
	t.Parallel()
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		url := newURL()
		first := openKeyed(t, url)
		second := first
		if !strings.HasPrefix(url, "sqlite:") {
			second = openKeyed(t, url)
		}
		const n = 12
		base := newDropIssuer()
		pass := newPasses()
		issuer := &heldIssuer{dropIssuer: base,
			hold: func(ctx context.Context, _ string) error { return pass.full(ctx) },
			landFirst: func(hash string) bool {
				return strings.HasSuffix(hash, "1") || strings.HasSuffix(hash, "3") || strings.HasSuffix(hash, "5")
			},
		}
		minter := newReplica(t, first, issuer, coretest.NewClock(t0))
		reconciler := newReplica(t, second, issuer, coretest.NewClock(t0.Add(core.MintLease)))
		d := minter.addMintDrop(t, base, n+1)
		dead := minter.deadMint(t, base, d, "dead", wallet(100), true)

		stop := make(chan struct{})
		loop := make(chan error, 1)
		go func() {
			for {
				select {
				case <-stop:
					loop <- nil
					return
				default:
				}
				if _, err := reconciler.links.ReconcileMints(context.Background()); err != nil {
					loop <- err
					return
				}
				pass.done()
			}
		}()
		results := make([]claimed, n)
		var wg sync.WaitGroup
		for i := range n {
			who := fmt.Sprintf("m%d", i)
			m, _ := minter.member(t, who, wallet(i))
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := minter.svc.Claim(context.Background(), m, mintPlace, core.ClaimOptions{EventID: eventID})
				results[i] = claimed{who, res, err}
			}()
		}
		wg.Wait()
		close(stop)
		if err := <-loop; err != nil {
			t.Fatalf("ReconcileMints() = %v", err)
		}
		checkMinted(t, first, d, results, minter.audit, reconciler.audit)
		if s := linkState(t, first, d, dead.QRHash); s != core.MintLinkMinted {
			t.Errorf("dead mint: %s, want minted", s)
		}
		if st := stock(t, minter); st.Minted != n+1 || st.Minting != 0 {
			t.Errorf("stock = %+v, want %d minted, none minting", st, n+1)
		}
		failed := auditCount(core.AuditMintFailed, minter.audit, reconciler.audit)
		if len(failed) == 0 {
			t.Error("no mint was read unclaimed by the reconciler: the test did not race it with the senders")
		}
	})
}

// stock reads the stock of the replica's drop.
func stock(t *testing.T, r *replica) core.Stock {
	t.Helper()
	st, err := r.svc.DropInfo(t.Context(), mintPlace, eventID)
	if err != nil {
		t.Fatal(err)
	}
	return st.Stock
}
