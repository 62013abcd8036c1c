package storage

import (
	"errors"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
)

// TestDB_WebsiteClaim_StaleTaker: a taker whose lease ran out and whose
// claim was taken again can neither mark it sent nor record an outcome;
// the current taker can, and its outcome stands.
func TestDB_WebsiteClaim_StaleTaker(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		ctx := t.Context()
		tn := mustTenant(t, db, "website-stale")
		users := mustUsers(t, db, "ws", 1)
		d := mustAddDrop(t, db, tn.ID, 1521, nil)
		at := time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)
		if _, _, err := db.QueueWebsiteClaim(ctx, d.ID, users[0].ID, addr(1), at); err != nil {
			t.Fatal(err)
		}
		take := func(now time.Time) core.WebsiteClaim {
			t.Helper()
			got, err := db.TakeWebsiteClaims(ctx, now, time.Minute, 1)
			if err != nil || len(got) != 1 {
				t.Fatalf("TakeWebsiteClaims(%v) = %+v, %v, want the claim", now, got, err)
			}
			return got[0]
		}
		first := take(at)
		if err := db.MarkWebsiteSent(ctx, first, at); err != nil {
			t.Fatalf("MarkWebsiteSent(first taker) = %v", err)
		}
		second := take(at.Add(2 * time.Minute))
		if second.Tries != first.Tries+1 {
			t.Fatalf("second take's Tries = %d, want %d", second.Tries, first.Tries+1)
		}

		if err := db.MarkWebsiteSent(ctx, first, at); !errors.Is(err, core.ErrConflict) {
			t.Errorf("MarkWebsiteSent(stale taker) = %v, want %v", err, core.ErrConflict)
		}
		for _, out := range []core.WebsiteOutcome{
			{State: core.WebsiteMinted, Mint: core.WebsiteMint{QRHash: "stale"}},
			{State: core.WebsiteRefused, Reason: "limit"},
			{State: core.WebsiteQueued, DueAt: at.Add(time.Hour)},
		} {
			if err := db.FinishWebsiteClaim(ctx, first, out, at); !errors.Is(err, core.ErrConflict) {
				t.Errorf("FinishWebsiteClaim(stale taker, %s) = %v, want %v", out.State, err, core.ErrConflict)
			}
		}
		if got, err := db.WebsiteClaim(ctx, first.ID); err != nil || got.State != core.WebsiteSending || !got.Sent || got.Tries != second.Tries {
			t.Fatalf("WebsiteClaim() after the stale taker = %+v, %v, want sending, sent, the second take's", got, err)
		}

		if err := db.MarkWebsiteSent(ctx, second, at); err != nil {
			t.Errorf("MarkWebsiteSent(current taker) = %v", err)
		}
		if err := db.FinishWebsiteClaim(ctx, second, core.WebsiteOutcome{State: core.WebsiteMinted, Mint: core.WebsiteMint{QRHash: "current"}}, at); err != nil {
			t.Fatalf("FinishWebsiteClaim(current taker) = %v", err)
		}
		if got, err := db.WebsiteClaim(ctx, first.ID); err != nil || got.State != core.WebsiteMinted || got.QRHash != "current" {
			t.Errorf("WebsiteClaim() = %+v, %v, want minted by the current taker", got, err)
		}
	})
}

// TestDB_DeliveryClaim_StaleTaker: a claim whose lease ran out and whose
// entry was taken again can neither mark it sent nor record an outcome;
// the current claim can, and its outcome stands.
func TestDB_DeliveryClaim_StaleTaker(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		ctx := t.Context()
		tn := mustTenant(t, db, "delivery-stale")
		users := mustUsers(t, db, "ds", 2)
		d := mustAddDrop(t, db, tn.ID, 1661, nil)
		dl := mustCreated(t, db, d.ID, users, 901)
		now := deliveryAt.Add(time.Hour)
		take := func(at time.Time) core.DeliveryEntry {
			t.Helper()
			e, taken, err := db.TakeDeliveryClaim(ctx, dl.ID, users[0].ID, at, at.Add(-core.DeliveryLease))
			if err != nil || !taken {
				t.Fatalf("TakeDeliveryClaim(%v) = %+v, %v, %v, want taken", at, e, taken, err)
			}
			return e
		}
		first := take(now)
		if err := db.MarkDeliverySent(ctx, first, now); err != nil {
			t.Fatalf("MarkDeliverySent(first claim) = %v", err)
		}
		late := now.Add(core.DeliveryLease + time.Second)
		second := take(late)
		if second.Attempt != first.Attempt+1 || !second.Sent {
			t.Fatalf("second take = %+v, want attempt %d, sent", second, first.Attempt+1)
		}

		if err := db.MarkDeliverySent(ctx, first, late); !errors.Is(err, core.ErrConflict) {
			t.Errorf("MarkDeliverySent(stale claim) = %v, want %v", err, core.ErrConflict)
		}
		for _, state := range []core.DeliveryEntryState{core.EntryClaimed, core.EntryListed} {
			stale := first
			stale.State, stale.Sent, stale.QueueUID, stale.UpdatedAt = state, false, "q-stale", late
			if err := db.FinishDeliveryClaim(ctx, stale); !errors.Is(err, core.ErrConflict) {
				t.Errorf("FinishDeliveryClaim(stale claim, %s) = %v, want %v", state, err, core.ErrConflict)
			}
		}
		if got, err := db.MemberDeliveryEntry(ctx, dl.ID, users[0].ID); err != nil || got != second {
			t.Fatalf("MemberDeliveryEntry() after the stale claim = %+v, %v, want %+v", got, err, second)
		}

		if err := db.MarkDeliverySent(ctx, second, late); err != nil {
			t.Errorf("MarkDeliverySent(current claim) = %v", err)
		}
		done := second
		done.State, done.Sent, done.QueueUID, done.UpdatedAt = core.EntryClaimed, true, "q-current", late
		if err := db.FinishDeliveryClaim(ctx, done); err != nil {
			t.Fatalf("FinishDeliveryClaim(current claim) = %v", err)
		}
		if got, err := db.MemberDeliveryEntry(ctx, dl.ID, users[0].ID); err != nil || got != done {
			t.Errorf("MemberDeliveryEntry() = %+v, %v, want %+v", got, err, done)
		}
	})
}

// TestDB_MemberDeliveryEntry reads a member's entry as listed, and
// ErrNotFound for a member not on the list or a delivery that does not
// exist.
func TestDB_MemberDeliveryEntry(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		ctx := t.Context()
		tn := mustTenant(t, db, "delivery-member")
		users := mustUsers(t, db, "dm", 3)
		d := mustAddDrop(t, db, tn.ID, 1671, nil)
		dl := mustCreated(t, db, d.ID, users[:2], 951)
		want := core.DeliveryEntry{DeliveryID: dl.ID, Address: addr(2), UserID: users[1].ID, State: core.EntryListed, UpdatedAt: deliveryAt}
		if got, err := db.MemberDeliveryEntry(ctx, dl.ID, users[1].ID); err != nil || got != want {
			t.Errorf("MemberDeliveryEntry() = %+v, %v, want %+v", got, err, want)
		}
		if _, err := db.MemberDeliveryEntry(ctx, dl.ID, users[2].ID); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("MemberDeliveryEntry(not listed) = %v, want %v", err, core.ErrNotFound)
		}
		if _, err := db.MemberDeliveryEntry(ctx, 999999, users[0].ID); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("MemberDeliveryEntry(unknown delivery) = %v, want %v", err, core.ErrNotFound)
		}
	})
}
