package storage

import (
	"errors"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
)

func TestDB_SetDropChain(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "drop-chain")
		d := mustAddDrop(t, db, tn.ID, 301, importedLinks(301, 2))
		other := mustAddDrop(t, db, tn.ID, 302, nil)
		if d.Chain != 0 {
			t.Fatalf("AddDrop().Chain = %d, want 0 (not read yet)", d.Chain)
		}
		chainOf := func(t *testing.T, dropID int64) int64 {
			t.Helper()
			got, err := db.DropByID(t.Context(), dropID)
			if err != nil {
				t.Fatalf("DropByID(%d) = %v", dropID, err)
			}
			return got.Chain
		}

		t.Run("OK", func(t *testing.T) {
			for _, chain := range []int64{8453, 100} {
				if err := db.SetDropChain(t.Context(), d.ID, chain); err != nil {
					t.Fatalf("SetDropChain(%d) = %v", chain, err)
				}
				if got, err := db.DropByEvent(t.Context(), tn.ID, 301); err != nil || got.Chain != chain {
					t.Errorf("DropByEvent().Chain after SetDropChain(%d) = %d, %v, want %d", chain, got.Chain, err, chain)
				}
			}
			if got := chainOf(t, other.ID); got != 0 {
				t.Errorf("the other drop's Chain = %d, want 0", got)
			}
		})
		t.Run("Removed", func(t *testing.T) {
			if err := db.RemoveDrop(t.Context(), other.ID, time.Now()); err != nil {
				t.Fatal(err)
			}
			if err := db.SetDropChain(t.Context(), other.ID, 42161); err != nil {
				t.Fatalf("SetDropChain(removed drop) = %v", err)
			}
			if got := chainOf(t, other.ID); got != 42161 {
				t.Errorf("removed drop's Chain = %d, want 42161", got)
			}
		})
		t.Run("ErrNotFound", func(t *testing.T) {
			if err := db.SetDropChain(t.Context(), other.ID+1000, 100); !errors.Is(err, core.ErrNotFound) {
				t.Errorf("SetDropChain(unknown drop) = %v, want %v", err, core.ErrNotFound)
			}
		})
		t.Run("InvalidChain", func(t *testing.T) {
			before := chainOf(t, d.ID)
			for _, chain := range []int64{0, -100} {
				if err := db.SetDropChain(t.Context(), d.ID, chain); err == nil {
					t.Errorf("SetDropChain(%d) = nil, want an error", chain)
				}
			}
			if got := chainOf(t, d.ID); got != before {
				t.Errorf("Chain after refused changes = %d, want %d", got, before)
			}
		})
	})
}
