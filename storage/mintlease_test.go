package storage

import (
	"errors"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
)

// leaseTest is a drop with one member's link begun per subtest.
type leaseTest struct {
	db    *DB
	drop  core.Drop
	users []core.User
	at    time.Time
	next  int
}

// begin hands the next member a link and begins its mint at at.
func (lt *leaseTest) begin(t *testing.T) core.MintLink {
	t.Helper()
	u := lt.users[lt.next]
	lt.next++
	l, _, err := lt.db.ClaimMintLink(t.Context(), lt.drop.ID, u.ID, addr(lt.next), lt.at)
	if err != nil {
		t.Fatal(err)
	}
	if l, err = lt.db.BeginMint(t.Context(), l.ID, addr(lt.next), lt.at); err != nil {
		t.Fatal(err)
	}
	return l
}

// state reads the link's state and attempt.
func (lt *leaseTest) state(t *testing.T, id int64) (core.MintLinkState, int) {
	t.Helper()
	var r mintLinkRow
	if err := lt.db.gorm.Where("id = ?", id).Take(&r).Error; err != nil {
		t.Fatal(err)
	}
	return core.MintLinkState(r.State), r.MintAttempt
}

// pending reports whether PendingMints at now lists the link.
func (lt *leaseTest) pending(t *testing.T, id int64, now time.Time) bool {
	t.Helper()
	links, err := lt.db.PendingMints(t.Context(), now)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range links {
		if l.ID == id {
			return true
		}
	}
	return false
}

func eachLeaseTest(t *testing.T, f func(t *testing.T, lt *leaseTest)) {
	t.Helper()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "lease")
		lt := &leaseTest{db: db, users: mustUsers(t, db, "lease", 8), at: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)}
		lt.drop = mustAddDrop(t, db, tn.ID, 1601, importedLinks(1601, 8))
		f(t, lt)
	})
}

func TestDB_MintLease(t *testing.T) {
	t.Parallel()
	eachLeaseTest(t, func(t *testing.T, lt *leaseTest) {
		db, at := lt.db, lt.at
		t.Run("HeldUntilItRunsOut", func(t *testing.T) {
			l := lt.begin(t)
			if l.Attempt != 1 || !l.LeaseUntil.Equal(at.Add(core.MintLease)) {
				t.Errorf("BeginMint() = attempt %d, lease %v, want 1, %v", l.Attempt, l.LeaseUntil, at.Add(core.MintLease))
			}
			if lt.pending(t, l.ID, at.Add(core.MintLease-time.Microsecond)) {
				t.Error("PendingMints() within the lease lists the link")
			}
			if _, err := db.SettleMint(t.Context(), l.ID, 1, core.MintLinkHandedOut, at.Add(time.Second)); !errors.Is(err, core.ErrConflict) {
				t.Errorf("SettleMint(handed out) within the lease = %v, want %v", err, core.ErrConflict)
			}
			if !lt.pending(t, l.ID, at.Add(core.MintLease)) {
				t.Error("PendingMints() once the lease ran out does not list the link")
			}
			if changed, err := db.SettleMint(t.Context(), l.ID, 1, core.MintLinkHandedOut, at.Add(core.MintLease)); err != nil || !changed {
				t.Errorf("SettleMint(handed out) past the lease = %v, %v, want changed", changed, err)
			}
			if changed, err := db.SettleMint(t.Context(), l.ID, 1, core.MintLinkHandedOut, at.Add(core.MintLease)); err != nil || changed {
				t.Errorf("SettleMint(handed out) again = %v, %v, want unchanged", changed, err)
			}
		})
		t.Run("MintedWithinTheLease", func(t *testing.T) {
			l := lt.begin(t)
			if changed, err := db.SettleMint(t.Context(), l.ID, 1, core.MintLinkMinted, at); err != nil || !changed {
				t.Errorf("SettleMint(minted) within the lease = %v, %v, want changed: the status proves it", changed, err)
			}
			if changed, err := db.FinishMint(t.Context(), l.ID, 1, core.MintLinkMinted, "tx-9", at); err != nil || changed {
				t.Errorf("FinishMint(minted) after the settler's = %v, %v, want unchanged", changed, err)
			}
			var r mintLinkRow
			if err := db.gorm.Where("id = ?", l.ID).Take(&r).Error; err != nil || r.TransactionID == nil || *r.TransactionID != "tx-9" || r.MintLeaseUntil != nil {
				t.Errorf("link = %+v, %v, want the sender's transaction id and no lease", r, err)
			}
		})
		t.Run("Released", func(t *testing.T) {
			l := lt.begin(t)
			if err := db.ReleaseMint(t.Context(), l.ID, 1, at.Add(time.Second)); err != nil {
				t.Fatalf("ReleaseMint() = %v", err)
			}
			if !lt.pending(t, l.ID, at.Add(time.Second)) {
				t.Error("PendingMints() after the release does not list the link")
			}
			if err := db.ReleaseMint(t.Context(), l.ID, 2, at); !errors.Is(err, core.ErrConflict) {
				t.Errorf("ReleaseMint(another attempt) = %v, want %v", err, core.ErrConflict)
			}
		})
		t.Run("BeganBeforeLeases", func(t *testing.T) {
			l := lt.begin(t)
			if err := db.gorm.Exec(`UPDATE mint_links SET mint_lease_until = NULL WHERE id = ?`, l.ID).Error; err != nil {
				t.Fatal(err)
			}
			if lt.pending(t, l.ID, at.Add(core.MintLease-time.Second)) || !lt.pending(t, l.ID, at.Add(core.MintLease)) {
				t.Error("PendingMints() of a link without a lease: want it listed a MintLease after its start, not before")
			}
		})
	})
}

func TestDB_FinishMint_SenderWins(t *testing.T) {
	t.Parallel()
	eachLeaseTest(t, func(t *testing.T, lt *leaseTest) {
		db, at := lt.db, lt.at
		past := at.Add(core.MintLease)
		t.Run("AfterTheReconciler", func(t *testing.T) {
			l := lt.begin(t)
			if _, err := db.SettleMint(t.Context(), l.ID, 1, core.MintLinkHandedOut, past); err != nil {
				t.Fatal(err)
			}
			if changed, err := db.FinishMint(t.Context(), l.ID, 1, core.MintLinkMinted, "tx-1", past); err != nil || !changed {
				t.Fatalf("FinishMint(minted) after the reconciler's handed out = %v, %v, want changed", changed, err)
			}
			if s, _ := lt.state(t, l.ID); s != core.MintLinkMinted {
				t.Errorf("link = %s, want minted", s)
			}
			if changed, err := db.FinishMint(t.Context(), l.ID, 1, core.MintLinkMinted, "", past); err != nil || changed {
				t.Errorf("FinishMint(minted) again = %v, %v, want unchanged: minted once", changed, err)
			}
			if changed, err := db.SettleMint(t.Context(), l.ID, 1, core.MintLinkMinted, past); err != nil || changed {
				t.Errorf("SettleMint(minted) after = %v, %v, want unchanged", changed, err)
			}
		})
		t.Run("ClaimedElsewhereAfterTheReconciler", func(t *testing.T) {
			l := lt.begin(t)
			if _, err := db.SettleMint(t.Context(), l.ID, 1, core.MintLinkHandedOut, past); err != nil {
				t.Fatal(err)
			}
			if changed, err := db.FinishMint(t.Context(), l.ID, 1, core.MintLinkClaimedElsewhere, "", past); err != nil || !changed {
				t.Errorf("FinishMint(claimed elsewhere) after the reconciler = %v, %v, want changed", changed, err)
			}
		})
		t.Run("SettlerMintedAfterAnotherSettler", func(t *testing.T) {
			l := lt.begin(t)
			if _, err := db.SettleMint(t.Context(), l.ID, 1, core.MintLinkHandedOut, past); err != nil {
				t.Fatal(err)
			}
			if changed, err := db.SettleMint(t.Context(), l.ID, 1, core.MintLinkMinted, past); err != nil || !changed {
				t.Errorf("SettleMint(minted) after another settler's handed out = %v, %v, want changed", changed, err)
			}
			if _, err := db.SettleMint(t.Context(), l.ID, 1, core.MintLinkHandedOut, past); !errors.Is(err, core.ErrConflict) {
				t.Errorf("SettleMint(handed out) after minted = %v, want %v", err, core.ErrConflict)
			}
			if s, _ := lt.state(t, l.ID); s != core.MintLinkMinted {
				t.Errorf("link = %s, want minted", s)
			}
		})
		t.Run("NotAfterANewerAttempt", func(t *testing.T) {
			l := lt.begin(t)
			if _, err := db.SettleMint(t.Context(), l.ID, 1, core.MintLinkHandedOut, past); err != nil {
				t.Fatal(err)
			}
			again, err := db.BeginMint(t.Context(), l.ID, l.Wallet, past)
			if err != nil || again.Attempt != 2 {
				t.Fatalf("BeginMint(again) = %+v, %v, want attempt 2", again, err)
			}
			if _, err := db.FinishMint(t.Context(), l.ID, 1, core.MintLinkMinted, "", past); !errors.Is(err, core.ErrConflict) {
				t.Errorf("FinishMint(minted, attempt 1) during attempt 2 = %v, want %v", err, core.ErrConflict)
			}
			if _, err := db.SettleMint(t.Context(), l.ID, 1, core.MintLinkHandedOut, past.Add(core.MintLease)); !errors.Is(err, core.ErrConflict) {
				t.Errorf("SettleMint(attempt 1) during attempt 2 = %v, want %v", err, core.ErrConflict)
			}
			if _, err := db.FinishMint(t.Context(), l.ID, 2, core.MintLinkHandedOut, "", past); err != nil {
				t.Fatal(err)
			}
			if _, err := db.FinishMint(t.Context(), l.ID, 1, core.MintLinkMinted, "", past); !errors.Is(err, core.ErrConflict) {
				t.Errorf("FinishMint(minted, attempt 1) after attempt 2 failed = %v, want %v", err, core.ErrConflict)
			}
			if s, n := lt.state(t, l.ID); s != core.MintLinkHandedOut || n != 2 {
				t.Errorf("link = %s, attempt %d, want handed out, 2", s, n)
			}
		})
		t.Run("NotAfterMinted", func(t *testing.T) {
			l := lt.begin(t)
			if _, err := db.SettleMint(t.Context(), l.ID, 1, core.MintLinkMinted, at); err != nil {
				t.Fatal(err)
			}
			if _, err := db.FinishMint(t.Context(), l.ID, 1, core.MintLinkHandedOut, "", at); !errors.Is(err, core.ErrConflict) {
				t.Errorf("FinishMint(handed out) after minted = %v, want %v", err, core.ErrConflict)
			}
		})
		t.Run("NeverBegun", func(t *testing.T) {
			l, _, err := db.ClaimMintLink(t.Context(), lt.drop.ID, lt.users[7].ID, "", at)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.FinishMint(t.Context(), l.ID, 0, core.MintLinkMinted, "", at); !errors.Is(err, core.ErrConflict) {
				t.Errorf("FinishMint(a link never begun) = %v, want %v", err, core.ErrConflict)
			}
		})
	})
}
