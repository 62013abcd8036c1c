package storage

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/poapbot/poapbot/core"
)

// addr returns a distinct valid lower-case 0x address for n.
func addr(n int) string {
	return fmt.Sprintf("0x%040x", n)
}

// mustAddWallet links an unverified address to the user or fails the test.
func mustAddWallet(t *testing.T, db *DB, userID int64, value string) core.Wallet {
	t.Helper()
	w, err := db.AddWallet(t.Context(), core.Wallet{UserID: userID, Kind: core.KindAddress, Value: value})
	if err != nil {
		t.Fatalf("AddWallet(user %d, %s) = %v", userID, value, err)
	}
	return w
}

func TestDB_AddWallet(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		t.Run("FirstIsPrimary", func(t *testing.T) {
			u := mustUpsertUser(t, db, core.Discord, "first", "")
			first := mustAddWallet(t, db, u.ID, addr(1))
			second, err := db.AddWallet(t.Context(), core.Wallet{UserID: u.ID, Kind: core.KindENS, Value: "alice.eth", Primary: true})
			if err != nil {
				t.Fatal(err)
			}
			if !first.Primary || second.Primary {
				t.Errorf("AddWallet() primary = %v then %v, want true then false", first.Primary, second.Primary)
			}
			if first.Platform != core.Discord || first.UserID != u.ID || first.ID == 0 {
				t.Errorf("AddWallet() = %+v, want a stored discord wallet of user %d", first, u.ID)
			}
		})
		t.Run("Verified", func(t *testing.T) {
			u := mustUpsertUser(t, db, core.Telegram, "verified", "")
			at := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
			in := core.Wallet{UserID: u.ID, Kind: core.KindENS, Value: "bob.eth", Address: addr(2), VerifiedAt: &at}
			got, err := db.AddWallet(t.Context(), in)
			want := core.Wallet{UserID: u.ID, Platform: core.Telegram, Kind: core.KindENS, Value: "bob.eth",
				Address: addr(2), VerifiedAt: &at, Primary: true}
			if err != nil || !cmp.Equal(got, want, cmpopts.IgnoreFields(core.Wallet{}, "ID", "CreatedAt")) {
				t.Errorf("AddWallet(%+v) = %+v, %v, want %+v", in, got, err, want)
			}
		})
		t.Run("ErrConflict", func(t *testing.T) {
			u := mustUpsertUser(t, db, core.Discord, "dup", "")
			mustAddWallet(t, db, u.ID, addr(3))
			_, err := db.AddWallet(t.Context(), core.Wallet{UserID: u.ID, Kind: core.KindAddress, Value: addr(3)})
			if !errors.Is(err, core.ErrConflict) {
				t.Errorf("AddWallet(same value twice) = %v, want %v", err, core.ErrConflict)
			}
		})
		t.Run("VerifiedAddressTaken", func(t *testing.T) {
			at := time.Now()
			a := mustUpsertUser(t, db, core.Discord, "owner", "")
			b := mustUpsertUser(t, db, core.Discord, "thief", "")
			c := mustUpsertUser(t, db, core.Telegram, "owner", "")
			verified := func(userID int64) core.Wallet {
				return core.Wallet{UserID: userID, Kind: core.KindAddress, Value: addr(4), Address: addr(4), VerifiedAt: &at}
			}
			if _, err := db.AddWallet(t.Context(), verified(a.ID)); err != nil {
				t.Fatal(err)
			}
			if _, err := db.AddWallet(t.Context(), verified(b.ID)); !errors.Is(err, core.ErrConflict) {
				t.Errorf("AddWallet(address verified by another member) = %v, want %v", err, core.ErrConflict)
			}
			if _, err := db.AddWallet(t.Context(), verified(c.ID)); err != nil {
				t.Errorf("AddWallet(address verified on another platform) = %v, want nil", err)
			}
			if _, err := db.AddWallet(t.Context(), core.Wallet{UserID: b.ID, Kind: core.KindAddress, Value: addr(4)}); err != nil {
				t.Errorf("AddWallet(unverified link to a taken address) = %v, want nil", err)
			}
		})
		t.Run("ErrNotFound", func(t *testing.T) {
			_, err := db.AddWallet(t.Context(), core.Wallet{UserID: 987654, Kind: core.KindAddress, Value: addr(5)})
			if !errors.Is(err, core.ErrNotFound) {
				t.Errorf("AddWallet(unknown user) = %v, want %v", err, core.ErrNotFound)
			}
		})
		t.Run("Invalid", func(t *testing.T) {
			u := mustUpsertUser(t, db, core.Discord, "invalid", "")
			at := time.Now()
			for _, in := range []core.Wallet{
				{UserID: u.ID, Kind: "iban", Value: "x"},
				{UserID: u.ID, Kind: core.KindENS, Value: ""},
				{UserID: u.ID, Kind: core.KindENS, Value: "x.eth", VerifiedAt: &at},
				{UserID: u.ID, Kind: core.KindENS, Value: "x.eth", Address: addr(6)},
			} {
				if _, err := db.AddWallet(t.Context(), in); err == nil {
					t.Errorf("AddWallet(%+v) = nil error, want one", in)
				}
			}
		})
		t.Run("ConcurrentFirstIsPrimary", func(t *testing.T) {
			// Several rounds, because a race is not lost every time.
			for round := range 5 {
				u := mustUpsertUser(t, db, core.Discord, fmt.Sprint("storm", round), "")
				addConcurrently(t, db, u.ID, 20)
				primaries := 0
				wallets, err := db.Wallets(t.Context(), u.ID)
				for _, w := range wallets {
					if w.Primary {
						primaries++
					}
				}
				if err != nil || len(wallets) != 20 || primaries != 1 {
					t.Errorf("Wallets() = %d wallets, %d primary, %v, want 20, 1 primary", len(wallets), primaries, err)
				}
			}
		})
	})
}

// addConcurrently adds n different wallets to the user from n goroutines
// released at once.
func addConcurrently(t *testing.T, db *DB, userID int64, n int) {
	t.Helper()
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			_, err := db.AddWallet(t.Context(), core.Wallet{UserID: userID, Kind: core.KindAddress, Value: addr(1000 + i)})
			if err != nil {
				t.Errorf("AddWallet #%d = %v", i, err)
			}
		})
	}
	close(start)
	wg.Wait()
}

func TestDB_Wallets(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		t.Run("PrimaryFirst", func(t *testing.T) {
			u := mustUpsertUser(t, db, core.Discord, "order", "")
			base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			var want []string
			for i := range 3 {
				// The primary is added last by time, yet listed first.
				at := base.Add(time.Duration(3-i) * time.Millisecond)
				w, err := db.AddWallet(t.Context(), core.Wallet{UserID: u.ID, Kind: core.KindAddress, Value: addr(10 + i), CreatedAt: at})
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, w.Value)
			}
			want = []string{want[0], want[2], want[1]}
			got, err := db.Wallets(t.Context(), u.ID)
			var values []string
			for _, w := range got {
				values = append(values, w.Value)
			}
			if err != nil || !cmp.Equal(values, want) {
				t.Errorf("Wallets() = %v, %v, want %v", values, err, want)
			}
		})
		t.Run("None", func(t *testing.T) {
			got, err := db.Wallets(t.Context(), 424242)
			if err != nil || len(got) != 0 {
				t.Errorf("Wallets(unknown user) = %v, %v, want none", got, err)
			}
		})
	})
}

func TestDB_DeleteUserCascades(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		u := mustUpsertUser(t, db, core.Discord, "cascade", "")
		mustAddWallet(t, db, u.ID, addr(20))
		mustAddWallet(t, db, u.ID, addr(21))
		if err := db.gorm.Exec("DELETE FROM users WHERE id = ?", u.ID).Error; err != nil {
			t.Fatal(err)
		}
		var left int64
		if err := db.gorm.Model(&walletRow{}).Where("user_id = ?", u.ID).Count(&left).Error; err != nil || left != 0 {
			t.Errorf("wallets left after deleting their user = %d, %v, want 0", left, err)
		}
	})
}

func TestDB_WalletPlatformMatchesUser(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		u := mustUpsertUser(t, db, core.Discord, "fk", "")
		// The composite foreign key refuses a wallet whose platform is not
		// its owner's, even written by hand.
		err := db.gorm.Exec(`INSERT INTO wallets (user_id, platform, kind, value, is_primary, created_at)
			VALUES (?, 'telegram', 'address', ?, FALSE, ?)`, u.ID, addr(30), now()).Error
		if !errors.Is(translate("insert", err), core.ErrConflict) {
			t.Errorf("insert wallet of another platform = %v, want a foreign key violation", err)
		}
	})
}
