package storage

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

// TestDB_AddDrop_Again: a drop removed and added again in its tenant comes
// back as the same drop, with the new settings, each member's link and the
// available links the service still lists.
func TestDB_AddDrop_Again(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn, other := mustTenant(t, db, "again"), mustTenant(t, db, "again-other")
		users := mustUsers(t, db, "again", 3)
		at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
		in := newDrop(tn.ID, 801)
		in.Codeword, in.CreatedAt = "first", at
		first, again, err := db.AddDrop(t.Context(), in, importedLinks(801, 5))
		if err != nil || again {
			t.Fatalf("AddDrop() = %v, again %t, want a new drop", err, again)
		}
		handed, _, err := db.ClaimMintLink(t.Context(), first.ID, users[0].ID, "", at)
		if err != nil {
			t.Fatal(err)
		}
		minted := mustMint(t, db, first.ID, users[1].ID, "0x00000000000000000000000000000000000000b1", at)
		if err := db.RemoveDrop(t.Context(), first.ID, at.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		// Meanwhile another tenant's drop of the event takes one of the
		// links the removal freed.
		shared := mustAddDrop(t, db, other.ID, 801, importedLinks(801, 5)[4:])

		ends := at.Add(48 * time.Hour)
		re := newDrop(tn.ID, 801)
		re.Method, re.Codeword, re.Ends, re.LowStock, re.CreatedAt = core.ClaimMint, "second", &ends, 3, at.Add(2*time.Hour)
		links := importedLinks(801, 5)
		links[0].Claimed = true // the member minted their link on POAP's page
		got, again, err := db.AddDrop(t.Context(), re, links)
		if err != nil || !again || got.ID != first.ID {
			t.Fatalf("AddDrop(again) = #%d, %t, %v; want #%d again", got.ID, again, err, first.ID)
		}
		want := first
		want.Method, want.Codeword, want.Ends, want.LowStock = core.ClaimMint, "second", &ends, 3
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("AddDrop(again) mismatch (-want +got):\n%s", diff)
		}
		if read, err := db.DropByEvent(t.Context(), tn.ID, 801); err != nil || !cmp.Equal(read, got) {
			t.Errorf("DropByEvent() = %+v, %v, want %+v", read, err, got)
		}
		wantStock := core.Stock{Total: 5, Available: 2, HandedOut: 1, Minted: 1, ClaimedElsewhere: 1}
		if s := mustStock(t, db, got.ID); s != wantStock {
			t.Errorf("Stock(again) = %+v, want %+v", s, wantStock)
		}
		if s := mustStock(t, db, shared.ID); s != (core.Stock{Total: 1, Available: 1}) {
			t.Errorf("Stock(other tenant's drop) = %+v, want its one link available", s)
		}
		for i, w := range []core.MintLink{handed, minted} {
			l, again, err := db.ClaimMintLink(t.Context(), got.ID, users[i].ID, "", at)
			if err != nil || !again || l.ID != w.ID || l.QRHash != w.QRHash {
				t.Errorf("ClaimMintLink(member %d) = %+v, %t, %v; want their link %s again", i, l, again, err, w.QRHash)
			}
		}
		fresh, again, err := db.ClaimMintLink(t.Context(), got.ID, users[2].ID, "", at)
		if err != nil || again || fresh.QRHash == handed.QRHash || fresh.QRHash == minted.QRHash {
			t.Errorf("ClaimMintLink(new member) = %+v, %t, %v; want a link of their own", fresh, again, err)
		}
		if rows, err := db.ExportMintLinks(t.Context(), got.ID); err != nil || len(rows) != 4 {
			t.Errorf("ExportMintLinks() = %d rows, %v; want the 4 links that left the pool", len(rows), err)
		}
		if _, _, err := db.AddDrop(t.Context(), re, links); !errors.Is(err, core.ErrConflict) {
			t.Errorf("AddDrop(not removed) = %v, want %v", err, core.ErrConflict)
		}
	})
}

// mustMint mints the drop's next link to the user's wallet or fails the
// test.
func mustMint(t *testing.T, db *DB, dropID, userID int64, wallet string, at time.Time) core.MintLink {
	t.Helper()
	l, _, err := db.ClaimMintLink(t.Context(), dropID, userID, wallet, at)
	if err != nil {
		t.Fatal(err)
	}
	begun, err := db.BeginMint(t.Context(), l.ID, wallet, at)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.FinishMint(t.Context(), l.ID, begun.Attempt, core.MintLinkMinted, "tx-1", at); err != nil {
		t.Fatal(err)
	}
	return l
}

func TestDB_EditDrop(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "edit")
		users := mustUsers(t, db, "edit", 2)
		starts := time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)
		ends := starts.Add(2 * time.Hour)
		in := newDrop(tn.ID, 901)
		in.Starts, in.Ends, in.Codeword, in.RequiredRole, in.LowStock = &starts, &ends, "moon", "role-1", 2
		d, _, err := db.AddDrop(t.Context(), in, importedLinks(901, 3))
		if err != nil {
			t.Fatal(err)
		}
		later := ends.Add(24 * time.Hour)
		edit := core.DropEdit{
			Ends: core.Change[*time.Time]{Set: true, To: &later}, Codeword: core.Change[string]{Set: true},
			Method: core.Change[core.ClaimMethod]{Set: true, To: core.ClaimWebsite}, Website: "site-1",
		}
		before, after, err := db.EditDrop(t.Context(), d.ID, edit)
		if err != nil {
			t.Fatalf("EditDrop() = %v", err)
		}
		want := d
		want.Ends, want.Codeword, want.Method, want.Website = &later, "", core.ClaimWebsite, "site-1"
		if diff := cmp.Diff(d, before); diff != "" {
			t.Errorf("EditDrop() before mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(want, after); diff != "" {
			t.Errorf("EditDrop() after mismatch (-want +got):\n%s", diff)
		}
		if read, err := db.DropByEvent(t.Context(), tn.ID, 901); err != nil || !cmp.Equal(read, after) {
			t.Errorf("DropByEvent() = %+v, %v, want %+v", read, err, after)
		}
		t.Run("Refused", func(t *testing.T) {
			late := later.Add(time.Hour)
			for name, c := range map[string]struct {
				id   int64
				edit core.DropEdit
				want error
			}{
				"ErrInvalidWindow": {d.ID, core.DropEdit{Starts: core.Change[*time.Time]{Set: true, To: &late}}, core.ErrInvalidWindow},
				"ErrNotFound":      {d.ID + 1000, core.DropEdit{Codeword: core.Change[string]{Set: true}}, core.ErrNotFound},
			} {
				if _, _, err := db.EditDrop(t.Context(), c.id, c.edit); !errors.Is(err, c.want) {
					t.Errorf("EditDrop(%s) = %v, want %v", name, err, c.want)
				}
			}
			if read, err := db.DropByEvent(t.Context(), tn.ID, 901); err != nil || !cmp.Equal(read, after) {
				t.Errorf("DropByEvent() after refusals = %+v, %v, want %+v unchanged", read, err, after)
			}
		})
		t.Run("LowStock", func(t *testing.T) {
			for _, u := range users {
				if _, _, err := db.ClaimMintLink(t.Context(), d.ID, u.ID, "", starts); err != nil {
					t.Fatal(err)
				}
			}
			if first, err := db.NoteLowStock(t.Context(), d.ID, starts); err != nil || !first {
				t.Fatalf("NoteLowStock() = %t, %v, want true", first, err)
			}
			_, after, err := db.EditDrop(t.Context(), d.ID, core.DropEdit{LowStock: core.Change[int]{Set: true, To: 5}})
			if err != nil || after.LowStock != 5 {
				t.Fatalf("EditDrop(low_stock 5) = %+v, %v", after, err)
			}
			if again, err := db.NoteLowStock(t.Context(), d.ID, starts); err != nil || !again {
				t.Errorf("NoteLowStock() after a new threshold = %t, %v, want true", again, err)
			}
		})
		t.Run("ErrDropRemoved", func(t *testing.T) {
			if err := db.RemoveDrop(t.Context(), d.ID, starts); err != nil {
				t.Fatal(err)
			}
			if _, _, err := db.EditDrop(t.Context(), d.ID, core.DropEdit{Codeword: core.Change[string]{Set: true}}); !errors.Is(err, core.ErrDropRemoved) {
				t.Errorf("EditDrop(removed) = %v, want %v", err, core.ErrDropRemoved)
			}
		})
	})
}
