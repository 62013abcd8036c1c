package core_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/storage"
)

// mintCount counts the mints told to MintEvents, by wallet.
type mintCount struct {
	mu    sync.Mutex
	heard map[string]int
}

func (m *mintCount) Minted(_ context.Context, _ core.User, wallet string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.heard[wallet]++
}

func (m *mintCount) count(wallet string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.heard[wallet]
}

// finishFails is a DeliveryStore whose next FinishDeliveryClaim fails
// when fail is set.
type finishFails struct {
	core.DeliveryStore
	fail atomic.Bool
}

func (s *finishFails) FinishDeliveryClaim(ctx context.Context, e core.DeliveryEntry) error {
	if s.fail.CompareAndSwap(true, false) {
		return errors.New("database went away")
	}
	return s.DeliveryStore.FinishDeliveryClaim(ctx, e)
}

// deliveryRig is member ann, on the created delivery of the drop, whose
// claims go through store, with the fake issuing service, the clock and
// the mints told.
type deliveryRig struct {
	nt      *networkTest
	drop    core.Drop
	fake    *deliveryIssuer
	clock   *coretest.Clock
	heard   *mintCount
	ann     core.VerifiedMember
	address string
}

// newDeliveryRig builds the services over db in place, ann on the list
// with address, and creates the drop's delivery.
func newDeliveryRig(t *testing.T, db *storage.DB, place, address string, store core.DeliveryStore) *deliveryRig {
	t.Helper()
	r := &deliveryRig{fake: newDeliveryIssuer(), clock: coretest.NewClock(t0), heard: &mintCount{heard: map[string]int{}},
		ann: deliveryMember(t, db, "ann", verifiedWallet(address)), address: address}
	r.nt = newNetworkTest(t, db, place, func(w *wiring, c *chainIssuer) {
		w.clock = r.clock
		w.website, w.websiteStore, w.networks, w.networkStore = r.fake, db, c, db
		w.deliveryStore, w.deliveryIssuer = store, r.fake
		w.roster = &fixedRoster{members: []core.VerifiedMember{r.ann}}
		w.deliveryURL = "https://deliver.test/"
		w.mints = r.heard
	})
	r.drop = r.nt.add(t)
	ctx := t.Context()
	plan, err := r.nt.deliveries.DraftDelivery(ctx, r.nt.mod, r.nt.place, core.DeliverySpec{EventID: eventID, Target: "attendees"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.nt.deliveries.ConfirmDelivery(ctx, r.nt.mod, r.nt.place, eventID, plan.Delivery.ID); err != nil {
		t.Fatal(err)
	}
	return r
}

// claim runs ann's /claim of the drop.
func (r *deliveryRig) claim(ctx context.Context) (core.ClaimResult, error) {
	m := core.Member{Platform: core.Console, ExternalID: r.ann.User.ExternalID, Name: r.ann.User.Name}
	return r.nt.svc.Claim(ctx, m, r.nt.place, core.ClaimOptions{EventID: eventID})
}

// TestDeliveryService_Claim_ToldOnce: a delivery claim that POAP took but
// the bot could not record tells MintEvents nothing then; the member's
// next claim, after the lease, settles it from the holding and tells it
// once; later claims tell nothing.
func TestDeliveryService_Claim_ToldOnce(t *testing.T) {
	t.Parallel()
	eachNetworkDB(t, func(t *testing.T, db *storage.DB) {
		store := &finishFails{DeliveryStore: db}
		r := newDeliveryRig(t, db, "delivery-once", fmt.Sprintf("0x%040x", 0xe01), store)
		ctx := t.Context()
		address, heard, fake := r.address, r.heard, r.fake

		store.fail.Store(true)
		if res, err := r.claim(ctx); err != nil || res.Outcome != core.ResultDeliveryClaimed {
			t.Fatalf("claim with the record failing = %+v, %v; want claimed", res, err)
		}
		if n := heard.count(address); n != 0 {
			t.Errorf("told %d mints when the claim could not be recorded, want 0 (the settling claim tells it)", n)
		}
		r.clock.Add(core.DeliveryLease + time.Second)
		if res, err := r.claim(ctx); err != nil || res.Outcome != core.ResultDeliveryClaimed {
			t.Fatalf("the claim that settles = %+v, %v; want claimed", res, err)
		}
		if n := heard.count(address); n != 1 {
			t.Errorf("told %d mints after the settling claim, want 1", n)
		}
		if res, err := r.claim(ctx); err != nil || !res.Again {
			t.Fatalf("a later claim = %+v, %v; want Again", res, err)
		}
		if n := heard.count(address); n != 1 {
			t.Errorf("told %d mints after a later claim, want still 1", n)
		}
		if _, claims := fake.counts(); claims != 1 {
			t.Errorf("%d delivery claims sent, want 1 (the settling claim reads the holding)", claims)
		}
	})
}

// TestDeliveryService_Claim_StaleTaker: the member's claim whose request
// outlives DeliveryLease, while their next claim took the entry and sends
// its own, records nothing when its answer comes (here: not sent) and
// tells the member their claim is in progress; the next claim records the
// mint and tells MintEvents and the audit log once.
func TestDeliveryService_Claim_StaleTaker(t *testing.T) {
	t.Parallel()
	eachNetworkDB(t, func(t *testing.T, db *storage.DB) {
		r := newDeliveryRig(t, db, "delivery-stale", fmt.Sprintf("0x%040x", 0xe02), db)
		ctx := t.Context()
		first, second := newStall(t), newStall(t)
		r.fake.set(func(f *deliveryIssuer) { f.onClaim = first.hook })
		firstDone := claimAsync(ctx, r)
		first.reached(t, "the first claim's request")
		r.clock.Add(core.DeliveryLease + time.Second)
		r.fake.set(func(f *deliveryIssuer) { f.onClaim = second.hook })
		secondDone := claimAsync(ctx, r)
		second.reached(t, "the second claim's request, after the lease ran out")

		r.fake.set(func(f *deliveryIssuer) { f.next = "down" })
		first.let()
		if got := within(t, firstDone, "the first claim"); !errors.Is(got.err, core.ErrClaimInProgress) {
			t.Errorf("the first claim, answered after the second took the entry = outcome %d, %v; want %v",
				got.res.Outcome, got.err, core.ErrClaimInProgress)
		}
		second.let()
		if got := within(t, secondDone, "the second claim"); got.err != nil || got.res.Outcome != core.ResultDeliveryClaimed || got.res.Again {
			t.Fatalf("the second claim = %+v, %v; want claimed", got.res, got.err)
		}
		if n := r.heard.count(r.address); n != 1 {
			t.Errorf("told %d mints, want 1", n)
		}
		if got := r.nt.audited(core.AuditMinted); len(got) != 1 {
			t.Errorf("audited %q %d times, want once: %+v", core.AuditMinted, len(got), got)
		}
		dl, err := db.CreatedDelivery(ctx, r.drop.ID)
		if err != nil {
			t.Fatal(err)
		}
		if e, err := db.MemberDeliveryEntry(ctx, dl.ID, r.ann.User.ID); err != nil || e.State != core.EntryClaimed || e.QueueUID == "" {
			t.Errorf("ann's entry = %+v, %v; want claimed by the second claim, with its mint id", e, err)
		}
	})
}
