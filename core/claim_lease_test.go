package core_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/storage"
)

// stall is a hook of a fake issuing service that holds a request until
// the test lets it go (or the test ends), and tells the test it was
// reached.
type stall struct {
	ctx     context.Context
	arrived chan struct{}
	release chan struct{}
}

func newStall(t *testing.T) *stall {
	return &stall{ctx: t.Context(), arrived: make(chan struct{}), release: make(chan struct{})}
}

// hook is what the fake runs: it holds the request.
func (s *stall) hook() {
	close(s.arrived)
	select {
	case <-s.release:
	case <-s.ctx.Done():
	}
}

// reached waits until the request what is held.
func (s *stall) reached(t *testing.T, what string) {
	t.Helper()
	within(t, s.arrived, what)
}

// let lets the held request go on.
func (s *stall) let() { close(s.release) }

// within returns what ch gives, failing the test when nothing comes: the
// wait is for an event, the bound only keeps a broken test from hanging.
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("waited in vain for %s", what)
	}
	var zero T
	return zero
}

// claimAsync runs ann's claim of the rig's drop in the background.
func claimAsync(ctx context.Context, r *deliveryRig) <-chan claimed {
	done := make(chan claimed, 1)
	go func() {
		res, err := r.claim(ctx)
		done <- claimed{who: r.ann.User.ExternalID, res: res, err: err}
	}()
	return done
}

// finishTap passes FinishWebsiteClaim on and tells the test, for each,
// which take of the claim it was for and what the store answered.
type finishTap struct {
	core.WebsiteStore
	done chan finish
}

type finish struct {
	tries int
	err   error
}

func (s *finishTap) FinishWebsiteClaim(ctx context.Context, c core.WebsiteClaim, out core.WebsiteOutcome, at time.Time) error {
	err := s.WebsiteStore.FinishWebsiteClaim(ctx, c, out, at)
	s.done <- finish{tries: c.Tries, err: err}
	return err
}

// TestWebsiteService_RunWebsiteClaims_StaleTaker: the dispatcher's mint
// request outlives WebsiteLease; the claim is taken again and sent again
// (the service refuses a second mint, so it is one mint either way).
// The first request's answer, an unknown outcome, comes while the second
// runs: it records nothing. The second records the mint, and the member's
// MintEvents and the audit log hear of it once.
func TestWebsiteService_RunWebsiteClaims_StaleTaker(t *testing.T) {
	t.Parallel()
	eachNetworkDB(t, func(t *testing.T, db *storage.DB) {
		ctx := t.Context()
		address := fmt.Sprintf("0x%040x", 0xa01)
		ann := deliveryMember(t, db, "ann", verifiedWallet(address))
		web := &websiteFake{event: eventID, minted: map[string]bool{}}
		store := &finishTap{WebsiteStore: db, done: make(chan finish, 8)}
		clock := coretest.NewClock(t0)
		heard := &mintCount{heard: map[string]int{}}
		nt := newNetworkTest(t, db, "website-stale", func(w *wiring, _ *chainIssuer) {
			w.clock = clock
			w.website, w.websiteStore, w.websiteWait = web, store, time.Nanosecond
			w.mints = heard
		})
		nt.issuer.addEvent(eventID, editCode, 2, 0)
		st, err := nt.svc.AddDrop(ctx, nt.mod, nt.place, core.AddDropOptions{EventID: eventID, EditCode: editCode,
			Method: core.ClaimWebsite, Website: "lease"})
		if err != nil {
			t.Fatalf("AddDrop() = %v", err)
		}
		m := core.Member{Platform: core.Console, ExternalID: ann.User.ExternalID, Name: ann.User.Name}
		if res, err := nt.svc.Claim(ctx, m, nt.place, core.ClaimOptions{EventID: eventID}); err != nil || res.Outcome != core.ResultWebsiteQueued {
			t.Fatalf("Claim() = %+v, %v; want queued", res, err)
		}

		first, second := newStall(t), newStall(t)
		web.set(func(w *websiteFake) { w.onMint = first.hook })
		stop := dispatchWebsite(t, nt.websites)
		first.reached(t, "the first take's mint")
		web.set(func(w *websiteFake) { w.onMint = second.hook })
		clock.Add(core.WebsiteLease + time.Second)
		second.reached(t, "the second take's mint, after the first's lease ran out")

		web.set(func(w *websiteFake) { w.next = core.ErrIssuerUnavailable })
		first.let()
		if got := within(t, store.done, "the first take's outcome"); got.tries != 1 || !errors.Is(got.err, core.ErrConflict) {
			t.Errorf("the first take's outcome, after the second took the claim: take %d, %v; want take 1, %v", got.tries, got.err, core.ErrConflict)
		}
		second.let()
		if got := within(t, store.done, "the second take's outcome"); got.tries != 2 || got.err != nil {
			t.Errorf("the second take's outcome: take %d, %v; want take 2 recorded", got.tries, got.err)
		}
		stop()

		c, err := db.MemberWebsiteClaim(ctx, st.Drop.ID, ann.User.ID)
		if err != nil || c.State != core.WebsiteMinted || c.QRHash != "web-"+address {
			t.Errorf("MemberWebsiteClaim() = %+v, %v; want minted by the second take", c, err)
		}
		if n := heard.count(address); n != 1 {
			t.Errorf("told %d mints, want 1", n)
		}
		if got := nt.audited(core.AuditMinted); len(got) != 1 {
			t.Errorf("audited %q %d times, want once: %+v", core.AuditMinted, len(got), got)
		}
	})
}
