package storage

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

// editCode is the edit code of every test drop.
const editCode = "483920"

// mustTenant creates a Discord tenant or fails the test.
func mustTenant(t *testing.T, db *DB, externalID string) core.Place {
	t.Helper()
	tn, err := db.UpsertPlace(t.Context(), core.Place{Platform: core.Discord, ExternalID: externalID})
	if err != nil {
		t.Fatalf("UpsertTenant(%s) = %v", externalID, err)
	}
	return tn
}

// mustUsers creates n Discord users named prefix-0, prefix-1... or fails
// the test. They are created by 8 goroutines, as members arrive.
func mustUsers(t *testing.T, db *DB, prefix string, n int) []core.User {
	t.Helper()
	users := make([]core.User, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				in := core.User{Platform: core.Discord, ExternalID: fmt.Sprintf("%s-%d", prefix, i)}
				users[i], errs[i] = db.UpsertUser(t.Context(), in)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("UpsertUser: %v", err)
	}
	return users
}

// importedLinks returns n unclaimed links of the event: hashes e<event>-0,
// e<event>-1...
func importedLinks(eventID int64, n int) []core.ImportedMintLink {
	links := make([]core.ImportedMintLink, n)
	for i := range links {
		links[i] = core.ImportedMintLink{QRHash: fmt.Sprintf("e%d-%d", eventID, i)}
	}
	return links
}

// newDrop returns a drop of the tenant's event, delivered as links.
func newDrop(tenantID, eventID int64) core.Drop {
	return core.Drop{
		PlaceID:  tenantID,
		EventID:  eventID,
		Name:     fmt.Sprintf("Event %d", eventID),
		EditCode: editCode,
		Method:   core.ClaimLink,
	}
}

// mustAddDrop adds the tenant's drop of eventID with links or fails the
// test.
func mustAddDrop(t *testing.T, db *DB, tenantID, eventID int64, links []core.ImportedMintLink) core.Drop {
	t.Helper()
	d, _, err := db.AddDrop(t.Context(), newDrop(tenantID, eventID), links)
	if err != nil {
		t.Fatalf("AddDrop(event %d) = %v", eventID, err)
	}
	return d
}

// mustStock counts the drop's links or fails the test.
func mustStock(t *testing.T, db *DB, dropID int64) core.Stock {
	t.Helper()
	s, err := db.Stock(t.Context(), dropID)
	if err != nil {
		t.Fatalf("Stock(%d) = %v", dropID, err)
	}
	return s
}

func TestDB_AddDrop(t *testing.T) {
	t.Parallel()
	eachMigrated(t, func(t *testing.T, newURL func() string) {
		databaseURL := newURL()
		db := openTest(t, databaseURL)
		tn := mustTenant(t, db, "add-drop")
		creator := mustUpsertUser(t, db, core.Discord, "creator", "Mod")
		t.Run("OK", func(t *testing.T) {
			cet := time.FixedZone("CET", 3600)
			starts := time.Date(2026, 5, 1, 10, 0, 0, 999, cet)
			ends := starts.Add(2 * time.Hour)
			in := core.Drop{
				PlaceID: tn.ID, EventID: 101, Name: "Meetup", ImageURL: "https://example.com/a.png",
				EditCode: editCode, Method: core.ClaimAuto, Starts: &starts, Ends: &ends,
				Codeword: "Moon", RequiredRole: "role-1", ExpiresAt: ends.Add(24 * time.Hour),
				LowStock: 5, CreatedBy: creator.ID, CreatedAt: starts.Add(-time.Hour),
			}
			links := []core.ImportedMintLink{{QRHash: "ok1"}, {QRHash: "ok2", Claimed: true}, {QRHash: "ok1"}}
			got, _, err := db.AddDrop(t.Context(), in, links)
			if err != nil {
				t.Fatalf("AddDrop() = %v", err)
			}
			want := in
			want.ID = got.ID
			wantStarts, wantEnds := dbTime(starts), dbTime(ends)
			want.Starts, want.Ends = &wantStarts, &wantEnds
			want.ExpiresAt, want.CreatedAt = dbTime(in.ExpiresAt), dbTime(in.CreatedAt)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("AddDrop() mismatch (-want +got):\n%s", diff)
			}
			read, err := db.DropByEvent(t.Context(), tn.ID, 101)
			if err != nil || !cmp.Equal(read, got) {
				t.Errorf("DropByEvent() = %+v, %v, want %+v", read, err, got)
			}
			wantStock := core.Stock{Total: 2, Available: 1, ClaimedElsewhere: 1}
			if s := mustStock(t, db, got.ID); s != wantStock {
				t.Errorf("Stock() = %+v, want %+v", s, wantStock)
			}
		})
		t.Run("EditCodeEncrypted", func(t *testing.T) {
			d := mustAddDrop(t, db, tn.ID, 102, nil)
			var raw []byte
			if err := db.sql.QueryRowContext(t.Context(), "SELECT edit_code FROM drops WHERE id = "+fmt.Sprint(d.ID)).Scan(&raw); err != nil {
				t.Fatal(err)
			}
			if len(raw) == 0 || bytes.Contains(raw, []byte(editCode)) {
				t.Errorf("stored edit code = %x, want ciphertext without %q", raw, editCode)
			}
			if d.EditCode.Reveal() != editCode {
				t.Errorf("AddDrop().EditCode = %q, want %q", d.EditCode.Reveal(), editCode)
			}
			other := withKey(db, Key{31: 9})
			if _, err := other.DropByEvent(t.Context(), tn.ID, 102); !errors.Is(err, ErrDecrypt) {
				t.Errorf("DropByEvent(other key) = %v, want %v", err, ErrDecrypt)
			}
		})
		t.Run("ErrConflict", func(t *testing.T) {
			mustAddDrop(t, db, tn.ID, 103, nil)
			if _, _, err := db.AddDrop(t.Context(), newDrop(tn.ID, 103), nil); !errors.Is(err, core.ErrConflict) {
				t.Errorf("AddDrop(same event again) = %v, want %v", err, core.ErrConflict)
			}
			if _, _, err := db.AddDrop(t.Context(), newDrop(tn.ID+1000, 104), nil); !errors.Is(err, core.ErrConflict) {
				t.Errorf("AddDrop(unknown tenant) = %v, want %v", err, core.ErrConflict)
			}
		})
		t.Run("Invalid", func(t *testing.T) {
			bad := newDrop(tn.ID, 105)
			bad.Method = "carrier pigeon"
			if _, _, err := db.AddDrop(t.Context(), bad, nil); err == nil {
				t.Errorf("AddDrop(delivery %q) = nil, want an error", bad.Method)
			}
			if _, _, err := db.AddDrop(t.Context(), newDrop(tn.ID, 105), []core.ImportedMintLink{{QRHash: " "}}); err == nil {
				t.Error("AddDrop(empty qr_hash) = nil, want an error")
			}
		})
		t.Run("ErrNoKey", func(t *testing.T) {
			keyless := *db
			keyless.cipher, keyless.lock = nil, nil
			if _, _, err := keyless.AddDrop(t.Context(), newDrop(tn.ID, 106), nil); !errors.Is(err, ErrNoKey) {
				t.Errorf("AddDrop(no key) = %v, want %v", err, ErrNoKey)
			}
		})
	})
}

func TestDB_RemoveDrop(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "remove-drop")
		users := mustUsers(t, db, "remove", 2)
		first := mustAddDrop(t, db, tn.ID, 201, importedLinks(201, 3))
		handed, _, err := db.ClaimMintLink(t.Context(), first.ID, users[0].ID, "", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
		if err := db.RemoveDrop(t.Context(), first.ID, at); err != nil {
			t.Fatalf("RemoveDrop() = %v", err)
		}
		if err := db.RemoveDrop(t.Context(), first.ID, at.Add(time.Hour)); err != nil {
			t.Errorf("RemoveDrop(removed) = %v, want nil", err)
		}
		if err := db.RemoveDrop(t.Context(), first.ID+1000, at); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("RemoveDrop(unknown) = %v, want %v", err, core.ErrNotFound)
		}
		if _, err := db.DropByEvent(t.Context(), tn.ID, 201); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("DropByEvent(removed) = %v, want %v", err, core.ErrNotFound)
		}
		if drops, err := db.Drops(t.Context(), tn.ID); err != nil || len(drops) != 0 {
			t.Errorf("Drops() = %+v, %v, want none", drops, err)
		}
		if _, _, err := db.ClaimMintLink(t.Context(), first.ID, users[1].ID, "", at); !errors.Is(err, core.ErrDropRemoved) {
			t.Errorf("ClaimMintLink(removed drop) = %v, want %v", err, core.ErrDropRemoved)
		}
		if _, _, err := db.ImportMintLinks(t.Context(), first.ID, importedLinks(201, 4)); !errors.Is(err, core.ErrDropRemoved) {
			t.Errorf("ImportMintLinks(removed drop) = %v, want %v", err, core.ErrDropRemoved)
		}
		// Added again, the drop comes back: the link handed out stays its
		// member's and no one else's.
		second, again, err := db.AddDrop(t.Context(), newDrop(tn.ID, 201), importedLinks(201, 3))
		if err != nil || !again || second.ID != first.ID {
			t.Fatalf("AddDrop(added again) = #%d, %t, %v, want #%d again", second.ID, again, err, first.ID)
		}
		want := core.Stock{Total: 3, Available: 2, HandedOut: 1}
		if s := mustStock(t, db, second.ID); s != want {
			t.Errorf("Stock(added again) = %+v, want %+v", s, want)
		}
		for range 2 {
			l, _, err := db.ClaimMintLink(t.Context(), second.ID, users[1].ID, "", at)
			if err != nil || l.QRHash == handed.QRHash {
				t.Errorf("ClaimMintLink(added again) = %+v, %v, want a link other than %s", l, err, handed.QRHash)
			}
		}
		if got, err := db.DropByEvent(t.Context(), tn.ID, 201); err != nil || got.ID != second.ID {
			t.Errorf("DropByEvent(added again) = %+v, %v, want drop #%d", got, err, second.ID)
		}
	})
}

func TestDB_Drops(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn, other := mustTenant(t, db, "drops"), mustTenant(t, db, "drops-other")
		a := mustAddDrop(t, db, tn.ID, 301, nil)
		b := mustAddDrop(t, db, tn.ID, 302, nil)
		mustAddDrop(t, db, other.ID, 303, nil)
		removed := mustAddDrop(t, db, tn.ID, 304, nil)
		if err := db.RemoveDrop(t.Context(), removed.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		got, err := db.Drops(t.Context(), tn.ID)
		if diff := cmp.Diff([]core.Drop{a, b}, got); err != nil || diff != "" {
			t.Errorf("Drops() = %v, mismatch (-want +got):\n%s", err, diff)
		}
		all, err := db.AllDrops(t.Context())
		if err != nil || len(all) != 3 || all[0] != a || all[1] != b || all[2].PlaceID != other.ID {
			t.Errorf("AllDrops() = %+v, %v, want %d, %d and the other tenant's", all, err, a.ID, b.ID)
		}
		if _, err := db.DropByEvent(t.Context(), tn.ID, 303); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("DropByEvent(other tenant's event) = %v, want %v", err, core.ErrNotFound)
		}
	})
}

// gets its links as claimed elsewhere instead of handing them out twice.
func TestDB_AddDrop_SharedEvent(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		discord, telegram := mustTenant(t, db, "shared-1"), mustTenant(t, db, "shared-2")
		first := mustAddDrop(t, db, discord.ID, 601, importedLinks(601, 3))
		second := mustAddDrop(t, db, telegram.ID, 601, importedLinks(601, 4))
		if s := mustStock(t, db, first.ID); s != (core.Stock{Total: 3, Available: 3}) {
			t.Errorf("Stock(first) = %+v, want 3 available", s)
		}
		want := core.Stock{Total: 4, Available: 1, ClaimedElsewhere: 3}
		if s := mustStock(t, db, second.ID); s != want {
			t.Errorf("Stock(second) = %+v, want %+v", s, want)
		}
	})
}

func TestDB_NoteLowStock(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "low-stock")
		users := mustUsers(t, db, "low", 3)
		in := newDrop(tn.ID, 701)
		in.LowStock = 2
		d, _, err := db.AddDrop(t.Context(), in, importedLinks(701, 3))
		if err != nil {
			t.Fatal(err)
		}
		note := func() bool {
			t.Helper()
			first, err := db.NoteLowStock(t.Context(), d.ID, time.Now())
			if err != nil {
				t.Fatalf("NoteLowStock() = %v", err)
			}
			return first
		}
		claim := func(u core.User) {
			t.Helper()
			if _, _, err := db.ClaimMintLink(t.Context(), d.ID, u.ID, "", time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		if note() {
			t.Error("NoteLowStock(3 available, threshold 2) = true, want false")
		}
		claim(users[0])
		claim(users[1])
		if !note() {
			t.Error("NoteLowStock(1 available) = false, want true")
		}
		if note() {
			t.Error("NoteLowStock(noted already) = true, want false")
		}
		if _, _, err := db.ImportMintLinks(t.Context(), d.ID, []core.ImportedMintLink{{QRHash: "low-more"}}); err != nil {
			t.Fatal(err)
		}
		claim(users[2])
		if !note() {
			t.Error("NoteLowStock(after a top-up ran low again) = false, want true")
		}
	})
}

// Forgetting a member keeps their link out of the pool.
func TestDB_ForgetUser_KeepsLink(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "forget-link")
		users := mustUsers(t, db, "forgotten", 2)
		d := mustAddDrop(t, db, tn.ID, 901, importedLinks(901, 1))
		l, _, err := db.ClaimMintLink(t.Context(), d.ID, users[0].ID, "", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ForgetUser(t.Context(), core.Discord, users[0].ExternalID); err != nil {
			t.Fatal(err)
		}
		if s := mustStock(t, db, d.ID); s != (core.Stock{Total: 1, HandedOut: 1}) {
			t.Errorf("Stock(after forget) = %+v, want the link still handed out", s)
		}
		if n := count(t, db, "mint_links", "id = ? AND user_id IS NULL", l.ID); n != 1 {
			t.Errorf("links of the forgotten member with user_id NULL = %d, want 1", n)
		}
		if _, _, err := db.ClaimMintLink(t.Context(), d.ID, users[1].ID, "", time.Now()); !errors.Is(err, core.ErrNoMintLinksLeft) {
			t.Errorf("ClaimMintLink(another member) = %v, want %v", err, core.ErrNoMintLinksLeft)
		}
	})
}
