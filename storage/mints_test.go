package storage

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

func TestDB_Mint(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "mint")
		users := mustUsers(t, db, "mint", 4)
		d := mustAddDrop(t, db, tn.ID, 1401, importedLinks(1401, 5))
		at := time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)
		claim := func(u core.User, wallet string) core.MintLink {
			t.Helper()
			l, _, err := db.ClaimMintLink(t.Context(), d.ID, u.ID, wallet, at)
			if err != nil {
				t.Fatalf("ClaimMintLink() = %v", err)
			}
			return l
		}
		state := func(id int64) (core.MintLinkState, string, string) {
			t.Helper()
			var r mintLinkRow
			if err := db.gorm.Where("id = ?", id).Take(&r).Error; err != nil {
				t.Fatal(err)
			}
			l := r.mintLink()
			return l.State, l.Wallet, l.TransactionID
		}
		t.Run("Minted", func(t *testing.T) {
			l := claim(users[0], addr(1))
			got, err := db.BeginMint(t.Context(), l.ID, addr(1), at.Add(time.Minute))
			if err != nil || got.State != core.MintLinkMinting || got.Wallet != addr(1) || !got.UpdatedAt.Equal(at.Add(time.Minute)) {
				t.Fatalf("BeginMint() = %+v, %v, want minting to %s", got, err, addr(1))
			}
			if _, err := db.BeginMint(t.Context(), l.ID, strings.ToUpper(addr(1)), at); !errors.Is(err, core.ErrConflict) {
				t.Errorf("BeginMint(again, same wallet) = %v, want %v: a mint is never begun twice", err, core.ErrConflict)
			}
			if _, err := db.BeginMint(t.Context(), l.ID, addr(2), at); !errors.Is(err, core.ErrConflict) {
				t.Errorf("BeginMint(minting, other wallet) = %v, want %v", err, core.ErrConflict)
			}
			if _, err := db.FinishMint(t.Context(), l.ID, 1, core.MintLinkMinted, "tx-1", at); err != nil {
				t.Fatalf("FinishMint(minted) = %v", err)
			}
			if _, err := db.FinishMint(t.Context(), l.ID, 1, core.MintLinkMinted, "", at); err != nil {
				t.Errorf("FinishMint(minted again) = %v", err)
			}
			if s, w, tx := state(l.ID); s != core.MintLinkMinted || w != addr(1) || tx != "tx-1" {
				t.Errorf("link = %s, %s, %s, want minted, %s, tx-1", s, w, tx, addr(1))
			}
			if _, err := db.BeginMint(t.Context(), l.ID, addr(1), at); !errors.Is(err, core.ErrConflict) {
				t.Errorf("BeginMint(minted) = %v, want %v", err, core.ErrConflict)
			}
			if _, err := db.FinishMint(t.Context(), l.ID, 1, core.MintLinkHandedOut, "", at); !errors.Is(err, core.ErrConflict) {
				t.Errorf("FinishMint(minted -> handed out) = %v, want %v", err, core.ErrConflict)
			}
		})
		t.Run("FailedThenOtherWallet", func(t *testing.T) {
			l := claim(users[1], "")
			if _, err := db.BeginMint(t.Context(), l.ID, addr(3), at); err != nil {
				t.Fatal(err)
			}
			if _, err := db.FinishMint(t.Context(), l.ID, 1, core.MintLinkHandedOut, "", at); err != nil {
				t.Fatalf("FinishMint(handed out) = %v", err)
			}
			if s, w, _ := state(l.ID); s != core.MintLinkHandedOut || w != addr(3) {
				t.Errorf("link = %s, %s, want handed out, %s", s, w, addr(3))
			}
			if got, err := db.BeginMint(t.Context(), l.ID, addr(4), at); err != nil || got.Wallet != addr(4) {
				t.Errorf("BeginMint(other wallet after a failure) = %+v, %v, want minting to %s", got, err, addr(4))
			}
		})
		t.Run("ClaimedElsewhere", func(t *testing.T) {
			l := claim(users[2], addr(5))
			if _, err := db.BeginMint(t.Context(), l.ID, addr(5), at); err != nil {
				t.Fatal(err)
			}
			if _, err := db.FinishMint(t.Context(), l.ID, 1, core.MintLinkClaimedElsewhere, "", at); err != nil {
				t.Fatalf("FinishMint(claimed elsewhere) = %v", err)
			}
			var r mintLinkRow
			if err := db.gorm.Where("id = ?", l.ID).Take(&r).Error; err != nil || r.UserID != nil || r.Wallet != nil {
				t.Errorf("link claimed elsewhere = %+v, %v, want no member and no wallet", r, err)
			}
			next, again, err := db.ClaimMintLink(t.Context(), d.ID, users[2].ID, addr(5), at)
			if err != nil || again || next.ID == l.ID || next.Wallet != addr(5) {
				t.Errorf("ClaimMintLink(after claimed elsewhere) = %+v, %v, %v, want a new link for %s", next, again, err, addr(5))
			}
		})
		t.Run("Errors", func(t *testing.T) {
			if _, err := db.BeginMint(t.Context(), 999999, addr(1), at); !errors.Is(err, core.ErrNotFound) {
				t.Errorf("BeginMint(unknown link) = %v, want %v", err, core.ErrNotFound)
			}
			var available mintLinkRow
			if err := db.gorm.Where("drop_id = ? AND state = 'available'", d.ID).Take(&available).Error; err != nil {
				t.Fatal(err)
			}
			if _, err := db.BeginMint(t.Context(), available.ID, addr(1), at); !errors.Is(err, core.ErrConflict) {
				t.Errorf("BeginMint(available link) = %v, want %v", err, core.ErrConflict)
			}
			l := claim(users[3], "")
			_, err := db.BeginMint(t.Context(), l.ID, addr(1), at)
			if !errors.Is(err, core.ErrWalletClaimed) || !errors.Is(err, core.ErrConflict) {
				t.Errorf("BeginMint(wallet of another link) = %v, want %v and %v", err, core.ErrWalletClaimed, core.ErrConflict)
			}
			if _, err := db.BeginMint(t.Context(), l.ID, "", at); err == nil {
				t.Error("BeginMint(no wallet) = nil, want an error")
			}
			if _, err := db.FinishMint(t.Context(), l.ID, 1, core.MintLinkMinted, "", at); !errors.Is(err, core.ErrConflict) {
				t.Errorf("FinishMint(handed out) = %v, want %v", err, core.ErrConflict)
			}
			if _, err := db.FinishMint(t.Context(), l.ID, 1, core.MintLinkAvailable, "", at); err == nil || errors.Is(err, core.ErrConflict) {
				t.Errorf("FinishMint(available) = %v, want an error for the state", err)
			}
			if _, err := db.FinishMint(t.Context(), 999999, 1, core.MintLinkMinted, "", at); !errors.Is(err, core.ErrNotFound) {
				t.Errorf("FinishMint(unknown link) = %v, want %v", err, core.ErrNotFound)
			}
		})
	})
}

func TestDB_PendingMints(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "pending")
		users := mustUsers(t, db, "pending", 3)
		d1 := mustAddDrop(t, db, tn.ID, 1501, importedLinks(1501, 3))
		d2 := mustAddDrop(t, db, tn.ID, 1502, importedLinks(1502, 3))
		at := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
		begin := func(dropID int64, u core.User, wallet string, at time.Time) core.MintLink {
			t.Helper()
			l, _, err := db.ClaimMintLink(t.Context(), dropID, u.ID, wallet, at)
			if err != nil {
				t.Fatal(err)
			}
			if l, err = db.BeginMint(t.Context(), l.ID, wallet, at); err != nil {
				t.Fatal(err)
			}
			return l
		}
		late := begin(d1.ID, users[0], addr(1), at.Add(time.Hour))
		early := begin(d2.ID, users[1], addr(2), at)
		done := begin(d1.ID, users[2], addr(3), at)
		if _, err := db.FinishMint(t.Context(), done.ID, 1, core.MintLinkMinted, "tx", at); err != nil {
			t.Fatal(err)
		}
		got, err := db.PendingMints(t.Context(), at.Add(time.Hour+core.MintLease))
		if diff := cmp.Diff([]core.MintLink{early, late}, got); err != nil || diff != "" {
			t.Errorf("PendingMints() = %v, mismatch (-want +got):\n%s", err, diff)
		}
	})
}
