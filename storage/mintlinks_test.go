package storage

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

func TestDB_ImportLinks(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "import")
		u := mustUpsertUser(t, db, core.Discord, "importer", "")
		d := mustAddDrop(t, db, tn.ID, 401, []core.ImportedMintLink{
			{QRHash: "i-a"}, {QRHash: "i-b"}, {QRHash: "i-c", Claimed: true}, {QRHash: "i-h"},
		})
		handed, _, err := db.ClaimMintLink(t.Context(), d.ID, u.ID, "", time.Now())
		if err != nil || handed.QRHash != "i-a" {
			t.Fatalf("ClaimMintLink() = %+v, %v, want i-a", handed, err)
		}
		in := []core.ImportedMintLink{
			{QRHash: "i-a", Claimed: true}, // handed out: stays so
			{QRHash: "i-b", Claimed: true}, // available: marked
			{QRHash: "i-c", Claimed: true},
			{QRHash: "i-d"},
			{QRHash: "i-e", Claimed: true},
		}
		added, marked, err := db.ImportMintLinks(t.Context(), d.ID, in)
		if err != nil || added != 2 || marked != 1 {
			t.Errorf("ImportMintLinks() = %d, %d, %v, want 2 added, 1 marked", added, marked, err)
		}
		want := core.Stock{Total: 6, Available: 2, HandedOut: 1, ClaimedElsewhere: 3}
		if s := mustStock(t, db, d.ID); s != want {
			t.Errorf("Stock() = %+v, want %+v", s, want)
		}
		added, marked, err = db.ImportMintLinks(t.Context(), d.ID, in)
		if err != nil || added != 0 || marked != 0 {
			t.Errorf("ImportMintLinks(again) = %d, %d, %v, want 0, 0", added, marked, err)
		}
		if s := mustStock(t, db, d.ID); s != want {
			t.Errorf("Stock(after importing again) = %+v, want %+v", s, want)
		}
		if _, _, err := db.ImportMintLinks(t.Context(), d.ID+1000, in); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("ImportMintLinks(unknown drop) = %v, want %v", err, core.ErrNotFound)
		}
		if _, _, err := db.ImportMintLinks(t.Context(), d.ID, []core.ImportedMintLink{{}}); err == nil {
			t.Error("ImportMintLinks(empty qr_hash) = nil, want an error")
		}
	})
}

func TestDB_ImportLinks_Batches(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "batches")
		n := 2*linkBatch + 7
		d := mustAddDrop(t, db, tn.ID, 501, importedLinks(501, n))
		more := importedLinks(501, n+3)
		for i := range more {
			more[i].Claimed = i%2 == 0
		}
		added, marked, err := db.ImportMintLinks(t.Context(), d.ID, more)
		if wantMarked := (n + 1) / 2; err != nil || added != 3 || marked != wantMarked {
			t.Errorf("ImportMintLinks() = %d, %d, %v, want 3, %d", added, marked, err, wantMarked)
		}
		if s := mustStock(t, db, d.ID); s.Total != n+3 || s.Available+s.ClaimedElsewhere != n+3 {
			t.Errorf("Stock() = %+v, want %d links", s, n+3)
		}
	})
}

// A mint link is live in one drop: another tenant adding the same event
func TestDB_ExportLinks(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "export")
		users := mustUsers(t, db, "exported-member-9876543210", 2)
		d1 := mustAddDrop(t, db, tn.ID, 801, append(importedLinks(801, 3), core.ImportedMintLink{QRHash: "x-used", Claimed: true}))
		d2 := mustAddDrop(t, db, tn.ID, 802, importedLinks(802, 1))
		// After the import, which stored x-used as claimed now.
		t0 := dbTime(time.Now()).Add(time.Hour)
		l1, _, err := db.ClaimMintLink(t.Context(), d1.ID, users[1].ID, "", t0.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		l0, _, err := db.ClaimMintLink(t.Context(), d1.ID, users[0].ID, addr(1), t0.Add(2*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.BeginMint(t.Context(), l0.ID, addr(1), t0.Add(3*time.Hour)); err != nil {
			t.Fatal(err)
		}
		other, _, err := db.ClaimMintLink(t.Context(), d2.ID, users[0].ID, "", t0)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := db.ExportMintLinks(t.Context(), d1.ID)
		if err != nil || len(rows) != 3 {
			t.Fatalf("ExportMintLinks() = %+v, %v, want 3 rows", rows, err)
		}
		if rows[0].QRHash != "x-used" || rows[0].Member != "" || rows[0].State != core.MintLinkClaimedElsewhere {
			t.Errorf("ExportMintLinks()[0] = %+v, want x-used claimed elsewhere by nobody", rows[0])
		}
		want1 := core.ExportRow{QRHash: l1.QRHash, Member: rows[1].Member, State: core.MintLinkHandedOut, At: t0.Add(time.Hour)}
		want2 := core.ExportRow{QRHash: l0.QRHash, Member: rows[2].Member, Wallet: addr(1), State: core.MintLinkMinting, At: t0.Add(2 * time.Hour)}
		if diff := cmp.Diff([]core.ExportRow{want1, want2}, rows[1:]); diff != "" {
			t.Errorf("ExportMintLinks() mismatch (-want +got):\n%s", diff)
		}
		if len(rows[1].Member) != memberHashLen || rows[1].Member == rows[2].Member {
			t.Errorf("ExportMintLinks() members = %q, %q, want two distinct %d-digit ids", rows[1].Member, rows[2].Member, memberHashLen)
		}
		dump := fmt.Sprintf("%+v", rows)
		for _, u := range users {
			if strings.Contains(dump, u.ExternalID) || strings.Contains(dump, "exported-member") {
				t.Errorf("ExportMintLinks() = %s, shows the platform id %s", dump, u.ExternalID)
			}
		}
		again, err := db.ExportMintLinks(t.Context(), d2.ID)
		if err != nil || len(again) != 1 || again[0].QRHash != other.QRHash || again[0].Member != rows[2].Member {
			t.Errorf("ExportMintLinks(other drop) = %+v, %v, want member %s again", again, err, rows[2].Member)
		}
	})
}
