package storage

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

// deliveryAt is when the test deliveries are built.
var deliveryAt = time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)

// newDraft returns a draft delivery of the drop built by createdBy.
func newDraft(dropID, createdBy int64, slug string) core.DropDelivery {
	return core.DropDelivery{
		DropID: dropID, Source: "role:42", Slug: slug,
		CardTitle: "Card", CardText: "card text", PageTitle: "Page", PageText: "page text",
		CreatedBy: createdBy, CreatedAt: deliveryAt,
	}
}

// entriesOf lists users[i] at addr(first+i).
func entriesOf(users []core.User, first int) []core.DeliveryEntry {
	out := make([]core.DeliveryEntry, len(users))
	for i, u := range users {
		out[i] = core.DeliveryEntry{Address: addr(first + i), UserID: u.ID}
	}
	return out
}

// mustDraft saves the draft with its entries or fails the test.
func mustDraft(t *testing.T, db *DB, d core.DropDelivery, entries []core.DeliveryEntry) core.DropDelivery {
	t.Helper()
	got, err := db.SaveDeliveryDraft(t.Context(), d, entries)
	if err != nil {
		t.Fatalf("SaveDeliveryDraft(%s) = %v", d.Slug, err)
	}
	return got
}

// mustCreated saves a draft of the drop listing users and marks it
// created as serviceID, or fails the test.
func mustCreated(t *testing.T, db *DB, dropID int64, users []core.User, serviceID int64) core.DropDelivery {
	t.Helper()
	d := mustDraft(t, db, newDraft(dropID, users[0].ID, fmt.Sprintf("s%d", serviceID)), entriesOf(users, 1))
	got, err := db.MarkDeliveryCreated(t.Context(), d.ID, serviceID, deliveryAt)
	if err != nil {
		t.Fatalf("MarkDeliveryCreated(%d) = %v", d.ID, err)
	}
	return got
}

// mustDeliveryCount counts the drop's deliveries and the addresses of all
// deliveries, or fails the test.
func mustDeliveryCount(t *testing.T, db *DB, dropID int64) (deliveries, addresses int64) {
	t.Helper()
	if err := db.gorm.Raw(`SELECT count(*) FROM deliveries WHERE drop_id = ?`, dropID).Scan(&deliveries).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.gorm.Raw(`SELECT count(*) FROM delivery_addresses`).Scan(&addresses).Error; err != nil {
		t.Fatal(err)
	}
	return deliveries, addresses
}

func TestDB_SaveDeliveryDraft(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		ctx := t.Context()
		tn := mustTenant(t, db, "delivery-draft")
		users := mustUsers(t, db, "dd", 3)
		d := mustAddDrop(t, db, tn.ID, 1601, nil)

		in := newDraft(d.ID, users[0].ID, "my-drop")
		entries := []core.DeliveryEntry{
			{Address: " 0x" + strings.ToUpper(addr(3)[2:]), UserID: users[0].ID},
			{Address: addr(1), UserID: users[1].ID},
			{Address: addr(2), UserID: users[2].ID},
		}
		first, err := db.SaveDeliveryDraft(ctx, in, entries)
		if err != nil {
			t.Fatalf("SaveDeliveryDraft() = %v", err)
		}
		want := in
		want.ID, want.State, want.Size, want.UpdatedAt = first.ID, core.DeliveryDraft, 3, deliveryAt
		if first.ID == 0 || !cmp.Equal(first, want) {
			t.Errorf("SaveDeliveryDraft() = %+v, want %+v", first, want)
		}
		if got, err := db.Delivery(ctx, first.ID); err != nil || !cmp.Equal(got, want) {
			t.Errorf("Delivery() = %+v, %v, want %+v", got, err, want)
		}
		got, err := db.DeliveryEntries(ctx, first.ID)
		wantEntries := []core.DeliveryEntry{
			{DeliveryID: first.ID, Address: addr(1), UserID: users[1].ID, State: core.EntryListed, UpdatedAt: deliveryAt},
			{DeliveryID: first.ID, Address: addr(2), UserID: users[2].ID, State: core.EntryListed, UpdatedAt: deliveryAt},
			{DeliveryID: first.ID, Address: addr(3), UserID: users[0].ID, State: core.EntryListed, UpdatedAt: deliveryAt},
		}
		if err != nil || !cmp.Equal(got, wantEntries) {
			t.Errorf("DeliveryEntries() = %+v, %v, want %+v (by address, lower case)", got, err, wantEntries)
		}
		if _, err := db.CreatedDelivery(ctx, d.ID); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("CreatedDelivery(drafts only) = %v, want %v", err, core.ErrNotFound)
		}

		// A new draft replaces the older one, list and all.
		second := mustDraft(t, db, newDraft(d.ID, 0, "other"), entriesOf(users[:2], 10))
		if second.CreatedBy != 0 || second.Size != 2 {
			t.Errorf("SaveDeliveryDraft(again) = %+v, want nobody's, 2 addresses", second)
		}
		if _, err := db.Delivery(ctx, first.ID); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("Delivery(replaced draft) = %v, want %v", err, core.ErrNotFound)
		}
		if got, err := db.Delivery(ctx, second.ID); err != nil || got.Size != 2 || got.CreatedBy != 0 || got.Slug != "other" {
			t.Errorf("Delivery(new draft) = %+v, %v, want 2 addresses, nobody's", got, err)
		}
		if n, a := mustDeliveryCount(t, db, d.ID); n != 1 || a != 2 {
			t.Errorf("%d deliveries, %d addresses stored, want 1 and 2", n, a)
		}

		// Once created, a delivery stays when a draft is saved.
		created, err := db.MarkDeliveryCreated(ctx, second.ID, 77, deliveryAt)
		if err != nil {
			t.Fatal(err)
		}
		third := mustDraft(t, db, newDraft(d.ID, users[0].ID, "third"), entriesOf(users[:1], 20))
		if got, err := db.CreatedDelivery(ctx, d.ID); err != nil || got.ID != created.ID || got.Size != 2 {
			t.Errorf("CreatedDelivery() = %+v, %v, want #%d with 2 addresses", got, err, created.ID)
		}
		if got, err := db.Delivery(ctx, third.ID); err != nil || got.State != core.DeliveryDraft || got.Size != 1 {
			t.Errorf("Delivery(draft beside the created one) = %+v, %v", got, err)
		}

		// Another drop's drafts are its own.
		other := mustAddDrop(t, db, tn.ID, 1602, nil)
		mustDraft(t, db, newDraft(other.ID, users[0].ID, "x"), entriesOf(users, 30))
		if _, err := db.Delivery(ctx, third.ID); err != nil {
			t.Errorf("Delivery(draft of another drop's) = %v", err)
		}

		// Bad input.
		if _, err := db.SaveDeliveryDraft(ctx, newDraft(999999, users[0].ID, "x"), entriesOf(users, 1)); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("SaveDeliveryDraft(unknown drop) = %v, want %v", err, core.ErrNotFound)
		}
		if _, err := db.SaveDeliveryDraft(ctx, newDraft(d.ID, users[0].ID, " "), entriesOf(users, 1)); err == nil {
			t.Error("SaveDeliveryDraft(no slug) = nil, want an error")
		}
		if _, err := db.SaveDeliveryDraft(ctx, newDraft(d.ID, users[0].ID, "x"), []core.DeliveryEntry{{Address: addr(1)}}); err == nil {
			t.Error("SaveDeliveryDraft(an entry without a user) = nil, want an error")
		}
		if _, err := db.SaveDeliveryDraft(ctx, newDraft(d.ID, users[0].ID, "x"), []core.DeliveryEntry{{UserID: users[0].ID}}); err == nil {
			t.Error("SaveDeliveryDraft(an entry without an address) = nil, want an error")
		}
		if got, err := db.Delivery(ctx, third.ID); err != nil || got.Size != 1 {
			t.Errorf("Delivery(draft after refused saves) = %+v, %v, want it kept", got, err)
		}
	})
}

// TestDB_SaveDeliveryDraft_Duplicate: a list naming an address or a user
// twice is refused, and nothing of it is stored, the earlier draft kept.
func TestDB_SaveDeliveryDraft_Duplicate(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		ctx := t.Context()
		tn := mustTenant(t, db, "delivery-duplicate")
		users := mustUsers(t, db, "dup", 3)
		d := mustAddDrop(t, db, tn.ID, 1611, nil)
		kept := mustDraft(t, db, newDraft(d.ID, users[0].ID, "kept"), entriesOf(users, 1))
		for name, entries := range map[string][]core.DeliveryEntry{
			"address": {
				{Address: addr(5), UserID: users[0].ID},
				{Address: "0x" + strings.ToUpper(addr(5)[2:]), UserID: users[1].ID},
			},
			"user": {
				{Address: addr(5), UserID: users[0].ID},
				{Address: addr(6), UserID: users[0].ID},
			},
			"unknown user": {
				{Address: addr(5), UserID: 999999},
			},
		} {
			if _, err := db.SaveDeliveryDraft(ctx, newDraft(d.ID, users[0].ID, "dup"), entries); !errors.Is(err, core.ErrConflict) {
				t.Errorf("SaveDeliveryDraft(%s twice) = %v, want %v", name, err, core.ErrConflict)
			}
		}
		if n, a := mustDeliveryCount(t, db, d.ID); n != 1 || a != 3 {
			t.Errorf("%d deliveries, %d addresses stored, want the earlier draft's 1 and 3", n, a)
		}
		if got, err := db.Delivery(ctx, kept.ID); err != nil || got.Size != 3 {
			t.Errorf("Delivery(earlier draft) = %+v, %v, want it kept", got, err)
		}
	})
}

// mustBulkUsers stores n Discord users bulk-<i>, i from 1 to n, set-wise
// (row by row takes long under the race detector), and returns their ids.
func mustBulkUsers(t *testing.T, db *DB, n int) []int64 {
	t.Helper()
	err := db.gorm.Exec(`
		INSERT INTO users (platform, external_id, name, created_at, updated_at)
		WITH RECURSIVE seq (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
		SELECT 'discord', 'bulk-' || i, '', ?, ? FROM seq`, n, deliveryAt, deliveryAt).Error
	if err != nil {
		t.Fatalf("insert users: %v", err)
	}
	var ids []int64
	if err := db.gorm.Raw(`SELECT id FROM users WHERE external_id LIKE 'bulk-%' ORDER BY id`).Scan(&ids).Error; err != nil {
		t.Fatal(err)
	}
	if len(ids) != n {
		t.Fatalf("%d users stored, want %d", len(ids), n)
	}
	return ids
}

// TestDB_SaveDeliveryDraft_Large: a list of 10,000 addresses is stored
// (in batches, under SQLite's limit of variables), and deleted when the
// draft is replaced.
func TestDB_SaveDeliveryDraft_Large(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		ctx := t.Context()
		const n = 10000
		tn := mustTenant(t, db, "delivery-large")
		d := mustAddDrop(t, db, tn.ID, 1621, nil)
		ids := mustBulkUsers(t, db, n)
		entries := make([]core.DeliveryEntry, n)
		for i, id := range ids {
			entries[i] = core.DeliveryEntry{Address: addr(i + 1), UserID: id}
		}
		first := mustDraft(t, db, newDraft(d.ID, 0, "large"), entries)
		if got, err := db.Delivery(ctx, first.ID); err != nil || first.Size != n || got.Size != n {
			t.Fatalf("SaveDeliveryDraft() size %d, Delivery() = %d, %v, want %d", first.Size, got.Size, err, n)
		}
		list, err := db.DeliveryEntries(ctx, first.ID)
		if err != nil || len(list) != n || list[0].Address != addr(1) || list[n-1].Address != addr(n) {
			t.Errorf("DeliveryEntries() = %d entries, %v, want %d by address", len(list), err, n)
		}
		if st, err := db.DeliveryStats(ctx, first.ID); err != nil || st != (core.DeliveryStats{Listed: n}) {
			t.Errorf("DeliveryStats() = %+v, %v, want %d listed", st, err, n)
		}
		// Replaced by a small draft, the whole list goes (10,000 rows more
		// would take half a minute on SQLite under the race detector).
		mustDraft(t, db, newDraft(d.ID, 0, "small"), []core.DeliveryEntry{{Address: addr(1), UserID: ids[0]}})
		if c, a := mustDeliveryCount(t, db, d.ID); c != 1 || a != 1 {
			t.Errorf("%d deliveries, %d addresses stored, want 1 and 1", c, a)
		}
	})
}

func TestDB_MarkDeliveryCreated(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		ctx := t.Context()
		tn := mustTenant(t, db, "delivery-created")
		users := mustUsers(t, db, "dc", 2)
		w := newDrop(tn.ID, 1631)
		w.Method, w.Website = core.ClaimWebsite, "my-website"
		d, _, err := db.AddDrop(ctx, w, nil)
		if err != nil {
			t.Fatal(err)
		}
		draft := mustDraft(t, db, newDraft(d.ID, users[0].ID, "page"), entriesOf(users, 1))
		at := deliveryAt.Add(time.Hour)
		got, err := db.MarkDeliveryCreated(ctx, draft.ID, 501, at)
		want := draft
		want.State, want.ServiceID, want.UpdatedAt = core.DeliveryCreated, 501, at
		if err != nil || !cmp.Equal(got, want) {
			t.Fatalf("MarkDeliveryCreated() = %+v, %v, want %+v", got, err, want)
		}
		if got, err := db.CreatedDelivery(ctx, d.ID); err != nil || !cmp.Equal(got, want) {
			t.Errorf("CreatedDelivery() = %+v, %v, want %+v", got, err, want)
		}
		drop, err := db.DropByEvent(ctx, tn.ID, 1631)
		if err != nil || drop.Method != core.ClaimDelivery || drop.Website != "my-website" {
			t.Errorf("DropByEvent() = %s %q, %v, want delivery, its website kept", drop.Method, drop.Website, err)
		}

		// Again with the same id: nothing changes.
		if again, err := db.MarkDeliveryCreated(ctx, draft.ID, 501, at.Add(time.Hour)); err != nil || !cmp.Equal(again, want) {
			t.Errorf("MarkDeliveryCreated(again) = %+v, %v, want %+v unchanged", again, err, want)
		}
		if _, err := db.MarkDeliveryCreated(ctx, draft.ID, 502, at); !errors.Is(err, core.ErrDeliveryExists) {
			t.Errorf("MarkDeliveryCreated(another service id) = %v, want %v", err, core.ErrDeliveryExists)
		}
		// A second delivery of the drop cannot be created.
		next := mustDraft(t, db, newDraft(d.ID, users[0].ID, "next"), entriesOf(users, 5))
		if _, err := db.MarkDeliveryCreated(ctx, next.ID, 503, at); !errors.Is(err, core.ErrDeliveryExists) {
			t.Errorf("MarkDeliveryCreated(second of the drop) = %v, want %v", err, core.ErrDeliveryExists)
		}
		if got, err := db.Delivery(ctx, next.ID); err != nil || got.State != core.DeliveryDraft || got.ServiceID != 0 {
			t.Errorf("Delivery(refused draft) = %+v, %v, want a draft still", got, err)
		}
		// A replaced draft is gone.
		mustDraft(t, db, newDraft(d.ID, users[0].ID, "newest"), entriesOf(users, 9))
		if _, err := db.MarkDeliveryCreated(ctx, next.ID, 504, at); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("MarkDeliveryCreated(replaced draft) = %v, want %v", err, core.ErrNotFound)
		}
		if _, err := db.MarkDeliveryCreated(ctx, draft.ID, 0, at); err == nil {
			t.Error("MarkDeliveryCreated(service id 0) = nil, want an error")
		}

		// Another drop, in links mode, moves to delivery too.
		links := mustAddDrop(t, db, tn.ID, 1632, nil)
		mustCreated(t, db, links.ID, users, 601)
		if got, err := db.DropByID(ctx, links.ID); err != nil || got.Method != core.ClaimDelivery {
			t.Errorf("DropByID(links drop created a delivery) = %s, %v, want %s", got.Method, err, core.ClaimDelivery)
		}
		if _, err := db.Delivery(ctx, 999999); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("Delivery(unknown) = %v, want %v", err, core.ErrNotFound)
		}
	})
}

func TestDB_TakeDeliveryClaim(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		ctx := t.Context()
		tn := mustTenant(t, db, "delivery-take")
		users := mustUsers(t, db, "dt", 4)
		d := mustAddDrop(t, db, tn.ID, 1641, nil)
		dl := mustCreated(t, db, d.ID, users[:3], 701)
		now := deliveryAt.Add(time.Hour)
		stale := now.Add(-core.DeliveryLease)

		e, taken, err := db.TakeDeliveryClaim(ctx, dl.ID, users[0].ID, now, stale)
		want := core.DeliveryEntry{DeliveryID: dl.ID, Address: addr(1), UserID: users[0].ID, State: core.EntryClaiming, Attempt: 1, UpdatedAt: now}
		if err != nil || !taken || !cmp.Equal(e, want) {
			t.Fatalf("TakeDeliveryClaim(listed) = %+v, %v, %v, want %+v taken", e, taken, err, want)
		}
		// Claiming within the lease: not taken, returned as it is.
		later := now.Add(time.Minute)
		if e, taken, err := db.TakeDeliveryClaim(ctx, dl.ID, users[0].ID, later, later.Add(-core.DeliveryLease)); err != nil || taken || !cmp.Equal(e, want) {
			t.Errorf("TakeDeliveryClaim(claiming) = %+v, %v, %v, want %+v not taken", e, taken, err, want)
		}
		// The lease ran out: taken again, its sent mark kept.
		upper := e
		upper.Address = strings.ToUpper(e.Address)
		if err := db.MarkDeliverySent(ctx, upper, now); err != nil {
			t.Fatalf("MarkDeliverySent() = %v", err)
		}
		late := now.Add(core.DeliveryLease + time.Second)
		e, taken, err = db.TakeDeliveryClaim(ctx, dl.ID, users[0].ID, late, late.Add(-core.DeliveryLease))
		if err != nil || !taken || !e.Sent || e.State != core.EntryClaiming || e.Attempt != 2 || !e.UpdatedAt.Equal(late) {
			t.Fatalf("TakeDeliveryClaim(stale) = %+v, %v, %v, want taken, sent, attempt 2, at %v", e, taken, err, late)
		}
		e.State, e.QueueUID, e.UpdatedAt = core.EntryClaimed, "q-1", late
		if err := db.FinishDeliveryClaim(ctx, e); err != nil {
			t.Fatalf("FinishDeliveryClaim(claimed) = %v", err)
		}
		// Claimed: never taken again.
		much := late.Add(time.Hour)
		if got, taken, err := db.TakeDeliveryClaim(ctx, dl.ID, users[0].ID, much, much.Add(-core.DeliveryLease)); err != nil || taken || !cmp.Equal(got, e) {
			t.Errorf("TakeDeliveryClaim(claimed) = %+v, %v, %v, want %+v not taken", got, taken, err, e)
		}
		if _, _, err := db.TakeDeliveryClaim(ctx, dl.ID, users[3].ID, now, stale); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("TakeDeliveryClaim(not listed) = %v, want %v", err, core.ErrNotFound)
		}
		if _, _, err := db.TakeDeliveryClaim(ctx, 999999, users[0].ID, now, stale); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("TakeDeliveryClaim(unknown delivery) = %v, want %v", err, core.ErrNotFound)
		}
	})
}

// TestDB_FinishDeliveryClaim: sent and finished only while claiming; a
// claim finished as listed can be taken again; the stats follow.
func TestDB_FinishDeliveryClaim(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		ctx := t.Context()
		tn := mustTenant(t, db, "delivery-finish")
		users := mustUsers(t, db, "df", 4)
		d := mustAddDrop(t, db, tn.ID, 1651, nil)
		dl := mustCreated(t, db, d.ID, users, 801)
		now := deliveryAt.Add(time.Hour)
		stale := now.Add(-core.DeliveryLease)

		if st, err := db.DeliveryStats(ctx, dl.ID); err != nil || st != (core.DeliveryStats{Listed: 4}) {
			t.Errorf("DeliveryStats() = %+v, %v, want 4 listed", st, err)
		}
		if err := db.MarkDeliverySent(ctx, core.DeliveryEntry{DeliveryID: dl.ID, Address: addr(1)}, now); !errors.Is(err, core.ErrConflict) {
			t.Errorf("MarkDeliverySent(listed) = %v, want %v", err, core.ErrConflict)
		}
		listed := core.DeliveryEntry{DeliveryID: dl.ID, Address: addr(1), State: core.EntryClaimed, UpdatedAt: now}
		if err := db.FinishDeliveryClaim(ctx, listed); !errors.Is(err, core.ErrConflict) {
			t.Errorf("FinishDeliveryClaim(listed) = %v, want %v", err, core.ErrConflict)
		}
		if err := db.MarkDeliverySent(ctx, core.DeliveryEntry{DeliveryID: dl.ID, Address: addr(99)}, now); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("MarkDeliverySent(not listed) = %v, want %v", err, core.ErrNotFound)
		}

		var taken []core.DeliveryEntry
		for _, u := range users[:3] {
			e, ok, err := db.TakeDeliveryClaim(ctx, dl.ID, u.ID, now, stale)
			if err != nil || !ok {
				t.Fatalf("TakeDeliveryClaim(user %d) = %v, %v", u.ID, ok, err)
			}
			taken = append(taken, e)
		}
		if err := db.MarkDeliverySent(ctx, taken[0], now); err != nil {
			t.Fatalf("MarkDeliverySent(claiming) = %v", err)
		}
		bad := taken[0]
		bad.State = core.EntryClaiming
		if err := db.FinishDeliveryClaim(ctx, bad); err == nil || errors.Is(err, core.ErrConflict) {
			t.Errorf("FinishDeliveryClaim(as claiming) = %v, want an error of its own", err)
		}
		// Unknown outcome: listed again, still sent, taken again at once.
		out := taken[0]
		out.State, out.Sent, out.UpdatedAt = core.EntryListed, true, now.Add(time.Second)
		if err := db.FinishDeliveryClaim(ctx, out); err != nil {
			t.Fatalf("FinishDeliveryClaim(listed) = %v", err)
		}
		if err := db.FinishDeliveryClaim(ctx, out); !errors.Is(err, core.ErrConflict) {
			t.Errorf("FinishDeliveryClaim(twice) = %v, want %v", err, core.ErrConflict)
		}
		if e, ok, err := db.TakeDeliveryClaim(ctx, dl.ID, users[0].ID, now, stale); err != nil || !ok || !e.Sent {
			t.Errorf("TakeDeliveryClaim(listed again) = %+v, %v, %v, want taken, sent", e, ok, err)
		}
		done := taken[1]
		done.State, done.Sent, done.QueueUID, done.UpdatedAt = core.EntryClaimed, true, "q-2", now
		if err := db.FinishDeliveryClaim(ctx, done); err != nil {
			t.Fatalf("FinishDeliveryClaim(claimed) = %v", err)
		}
		if err := db.MarkDeliverySent(ctx, done, now); !errors.Is(err, core.ErrConflict) {
			t.Errorf("MarkDeliverySent(claimed) = %v, want %v", err, core.ErrConflict)
		}
		if err := db.FinishDeliveryClaim(ctx, core.DeliveryEntry{DeliveryID: dl.ID, Address: addr(99), State: core.EntryClaimed}); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("FinishDeliveryClaim(not listed) = %v, want %v", err, core.ErrNotFound)
		}
		list, err := db.DeliveryEntries(ctx, dl.ID)
		if err != nil || len(list) != 4 || list[1] != done {
			t.Errorf("DeliveryEntries() = %+v, %v, want %+v second", list, err, done)
		}
		if st, err := db.DeliveryStats(ctx, dl.ID); err != nil || st != (core.DeliveryStats{Listed: 1, Claiming: 2, Claimed: 1}) {
			t.Errorf("DeliveryStats() = %+v, %v, want 1 listed, 2 claiming, 1 claimed", st, err)
		}
		if _, err := db.DeliveryStats(ctx, 999999); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("DeliveryStats(unknown) = %v, want %v", err, core.ErrNotFound)
		}
		empty := mustDraft(t, db, newDraft(d.ID, 0, "empty"), nil)
		if st, err := db.DeliveryStats(ctx, empty.ID); err != nil || st != (core.DeliveryStats{}) {
			t.Errorf("DeliveryStats(empty list) = %+v, %v, want zeros", st, err)
		}
	})
}

// TestDB_TakeDeliveryClaim_Race has members press /claim several times at
// once from separate handles, as replicas would: each entry is taken
// once.
func TestDB_TakeDeliveryClaim_Race(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, newURL func() string) {
		dbs := replicas(t, newURL(), 4)
		db := dbs[0]
		tn := mustTenant(t, db, "delivery-race")
		const members, presses = 20, 4
		users := mustUsers(t, db, "dr", members)
		d := mustAddDrop(t, db, tn.ID, 1661, nil)
		dl := mustCreated(t, db, d.ID, users, 901)
		now := deliveryAt.Add(time.Hour)
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			taken = map[int64]int{}
		)
		for i, u := range users {
			for press := range presses {
				wg.Go(func() {
					h := dbs[(i+press)%len(dbs)]
					e, ok, err := h.TakeDeliveryClaim(t.Context(), dl.ID, u.ID, now, now.Add(-core.DeliveryLease))
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err != nil:
						t.Errorf("TakeDeliveryClaim(member %d) = %v", i, err)
					case e.State != core.EntryClaiming || e.UserID != u.ID:
						t.Errorf("TakeDeliveryClaim(member %d) = %+v, want their entry claiming", i, e)
					case ok:
						taken[u.ID]++
					}
				})
			}
		}
		wg.Wait()
		for i, u := range users {
			if taken[u.ID] != 1 {
				t.Errorf("member %d's entry taken %d times, want once", i, taken[u.ID])
			}
		}
	})
}
