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

// TestDeliveryService_Claim_ToldOnce: a delivery claim that POAP took but
// the bot could not record tells MintEvents nothing then; the member's
// next claim, after the lease, settles it from the holding and tells it
// once; later claims tell nothing.
func TestDeliveryService_Claim_ToldOnce(t *testing.T) {
	t.Parallel()
	eachNetworkDB(t, func(t *testing.T, db *storage.DB) {
		address := fmt.Sprintf("0x%040x", 0xe01)
		ann := deliveryMember(t, db, "ann", verifiedWallet(address))
		fake := newDeliveryIssuer()
		clock := coretest.NewClock(t0)
		store := &finishFails{DeliveryStore: db}
		heard := &mintCount{heard: map[string]int{}}
		nt := newNetworkTest(t, db, "delivery-once", func(w *wiring, c *chainIssuer) {
			w.clock = clock
			w.website, w.websiteStore, w.networks, w.networkStore = fake, db, c, db
			w.deliveryStore, w.deliveryIssuer = store, fake
			w.roster = &fixedRoster{members: []core.VerifiedMember{ann}}
			w.deliveryURL = "https://deliver.test/"
			w.mints = heard
		})
		nt.add(t)
		ctx := t.Context()
		plan, err := nt.deliveries.DraftDelivery(ctx, nt.mod, nt.place, core.DeliverySpec{EventID: eventID, Target: "attendees"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := nt.deliveries.ConfirmDelivery(ctx, nt.mod, nt.place, eventID, plan.Delivery.ID); err != nil {
			t.Fatal(err)
		}
		claim := func() (core.ClaimResult, error) {
			m := core.Member{Platform: core.Console, ExternalID: ann.User.ExternalID, Name: ann.User.Name}
			return nt.svc.Claim(ctx, m, nt.place, core.ClaimOptions{EventID: eventID})
		}

		store.fail.Store(true)
		if res, err := claim(); err != nil || res.Outcome != core.ResultDeliveryClaimed {
			t.Fatalf("claim with the record failing = %+v, %v; want claimed", res, err)
		}
		if n := heard.count(address); n != 0 {
			t.Errorf("told %d mints when the claim could not be recorded, want 0 (the settling claim tells it)", n)
		}
		clock.Add(core.DeliveryLease + time.Second)
		if res, err := claim(); err != nil || res.Outcome != core.ResultDeliveryClaimed {
			t.Fatalf("the claim that settles = %+v, %v; want claimed", res, err)
		}
		if n := heard.count(address); n != 1 {
			t.Errorf("told %d mints after the settling claim, want 1", n)
		}
		if res, err := claim(); err != nil || !res.Again {
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
