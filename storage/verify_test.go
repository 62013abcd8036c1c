package storage

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
)

func TestDB_UseChallenge(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		t.Run("OK", func(t *testing.T) {
			l := mustLink(t, db, member(core.Discord, "ok"), addr(1), 1)
			v := mustUse(t, db, 1, addr(1))
			if v.Wallet.ID != l.Wallet.ID || v.Wallet.Address != addr(1) || !v.Wallet.Verified() || v.User.ID != l.User.ID || len(v.Moved) != 0 {
				t.Errorf("UseChallenge() = %+v, want wallet %d verified as %s, nothing moved", v, l.Wallet.ID, addr(1))
			}
			c, err := db.ChallengeByNonce(t.Context(), l.Challenge.Nonce)
			if err != nil || c.UsedAt == nil || !c.UsedAt.Equal(t0.Add(time.Minute)) {
				t.Errorf("ChallengeByNonce() after use = %+v, %v, want used at %v", c, err, t0.Add(time.Minute))
			}
			if n := count(t, db, "audit_log", "action = ? AND user_id = ?", core.AuditWalletVerified, l.User.ID); n != 1 {
				t.Errorf("%d %q audit entries, want 1", n, core.AuditWalletVerified)
			}
		})
		t.Run("ContractWallet", func(t *testing.T) {
			l := mustLink(t, db, member(core.Discord, "contract"), addr(90), 90)
			if _, err := db.UseChallenge(t.Context(), l.Challenge.Nonce, addr(90), 8453, t0.Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
			if n := count(t, db, "audit_log", "action = ? AND user_id = ? AND detail LIKE ?", core.AuditWalletVerified, l.User.ID, "% on chain 8453"); n != 1 {
				t.Errorf("%d %q audit entries naming chain 8453, want 1", n, core.AuditWalletVerified)
			}
		})
		t.Run("ENS", func(t *testing.T) {
			mustLink(t, db, member(core.Discord, "ens"), "ens.eth", 2)
			if v := mustUse(t, db, 2, addr(2)); v.Wallet.Value != "ens.eth" || v.Wallet.Address != addr(2) {
				t.Errorf("UseChallenge(ENS) = %+v, want ens.eth verified as %s", v.Wallet, addr(2))
			}
		})
		t.Run("Errors", func(t *testing.T) {
			mustLink(t, db, member(core.Discord, "errors"), addr(3), 3)
			mustLink(t, db, member(core.Discord, "errors"), addr(4), 4)
			tests := []struct {
				name    string
				nonce   string
				address string
				at      time.Time
				want    error
			}{
				{"ErrNoChallenge", fmt.Sprintf("%032x", 999), addr(3), t0, core.ErrNoChallenge},
				{"ErrChallengeExpired", fmt.Sprintf("%032x", 3), addr(3), t0.Add(core.ChallengeTTL), core.ErrChallengeExpired},
				{"ErrConflict", fmt.Sprintf("%032x", 4), addr(5), t0, core.ErrConflict},
			}
			for _, tt := range tests {
				if _, err := db.UseChallenge(t.Context(), tt.nonce, tt.address, 0, tt.at); !errors.Is(err, tt.want) {
					t.Errorf("%s: UseChallenge() = %v, want %v", tt.name, err, tt.want)
				}
			}
			if n := count(t, db, "challenges", "used_at IS NOT NULL AND nonce IN (?, ?)", fmt.Sprintf("%032x", 3), fmt.Sprintf("%032x", 4)); n != 0 {
				t.Errorf("%d challenges used after failures, want 0", n)
			}
			mustUse(t, db, 4, addr(4))
			if _, err := db.UseChallenge(t.Context(), fmt.Sprintf("%032x", 4), addr(4), 0, t0); !errors.Is(err, core.ErrChallengeUsed) {
				t.Errorf("UseChallenge(again) = %v, want ErrChallengeUsed", err)
			}
		})
		t.Run("Moves", func(t *testing.T) {
			alice := mustLink(t, db, member(core.Discord, "mover-a"), addr(10), 10)
			mustUse(t, db, 10, addr(10))
			bob := mustLink(t, db, member(core.Discord, "mover-b"), addr(10), 11)
			v := mustUse(t, db, 11, addr(10))
			if len(v.Moved) != 1 || v.Moved[0].ID != alice.Wallet.ID || v.Moved[0].Verified() {
				t.Errorf("UseChallenge(address verified by another) moved %+v, want alice's wallet %d, unverified", v.Moved, alice.Wallet.ID)
			}
			left, _ := db.Wallets(t.Context(), alice.User.ID)
			if len(left) != 1 || left[0].Verified() {
				t.Errorf("alice's wallets after the move = %+v, want her link kept, unverified", left)
			}
			moves := auditLog(t, db, core.AuditWalletMoved)
			want := fmt.Sprintf("moved from member #%d (wallet #%d) to member #%d (wallet #%d)",
				alice.User.ID, alice.Wallet.ID, bob.User.ID, bob.Wallet.ID)
			if len(moves) != 1 || !strings.Contains(moves[0].Detail, want) || *moves[0].UserID != bob.User.ID {
				t.Errorf("move audit = %+v, want one entry of bob's saying %q", moves, want)
			}
		})
		t.Run("OtherPlatformKeeps", func(t *testing.T) {
			mustLink(t, db, member(core.Discord, "plat"), addr(20), 20)
			mustLink(t, db, member(core.Telegram, "plat"), addr(20), 21)
			mustUse(t, db, 20, addr(20))
			if v := mustUse(t, db, 21, addr(20)); len(v.Moved) != 0 {
				t.Errorf("UseChallenge(same address, other platform) moved %+v, want nothing", v.Moved)
			}
		})
		t.Run("SameMemberMoves", func(t *testing.T) {
			u := member(core.Discord, "self")
			mustLink(t, db, u, addr(30), 30)
			mustUse(t, db, 30, addr(30))
			mustLink(t, db, u, "self.eth", 31)
			if v := mustUse(t, db, 31, addr(30)); len(v.Moved) != 1 || v.Moved[0].Value != addr(30) {
				t.Errorf("UseChallenge(ENS signed by the member's verified address) moved %+v, want %s", v.Moved, addr(30))
			}
		})
	})
}

// TestDB_UseChallenge_Race verifies one address from many members at once:
// every call succeeds or fails with a sentinel, and exactly one member holds
// the address at the end; then many uses of one nonce: exactly one wins.
func TestDB_UseChallenge_Race(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		const members = 8
		target := addr(77)
		for i := range members {
			mustLink(t, db, member(core.Discord, fmt.Sprintf("racer%d", i)), target, 100+i)
		}
		errs := race(members, func(i int) error {
			_, err := db.UseChallenge(t.Context(), fmt.Sprintf("%032x", 100+i), target, 0, t0.Add(time.Minute))
			return err
		})
		for i, err := range errs {
			if err != nil {
				t.Errorf("racer %d: UseChallenge() = %v, want nil", i, err)
			}
		}
		if n := count(t, db, "wallets", "address = ? AND verified_at IS NOT NULL", target); n != 1 {
			t.Errorf("%d wallets verified as the raced address, want 1", n)
		}
		if n := len(auditLog(t, db, core.AuditWalletMoved)); n != members-1 {
			t.Errorf("%d moves audited, want %d", n, members-1)
		}

		mustLink(t, db, member(core.Discord, "replayer"), addr(78), 200)
		errs = race(members, func(int) error {
			_, err := db.UseChallenge(t.Context(), fmt.Sprintf("%032x", 200), addr(78), 0, t0.Add(time.Minute))
			return err
		})
		won := 0
		for i, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, core.ErrChallengeUsed):
				t.Errorf("replay %d: UseChallenge() = %v, want nil or ErrChallengeUsed", i, err)
			}
		}
		if won != 1 {
			t.Errorf("%d uses of one nonce succeeded, want 1", won)
		}
	})
}

// race runs f(0..n-1) in n goroutines released at once, and returns their
// errors.
func race(n int, f func(i int) error) []error {
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = f(i)
		})
	}
	close(start)
	wg.Wait()
	return errs
}

func TestDB_UnlinkWallets(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		t.Run("PromotesOldest", func(t *testing.T) {
			u := member(core.Discord, "promote")
			first := mustLink(t, db, u, addr(1), 1)
			second := mustLink(t, db, u, addr(2), 2)
			mustLink(t, db, u, addr(3), 3)
			got, err := db.UnlinkWallets(t.Context(), first.User.ID, addr(1))
			if err != nil || len(got.Removed) != 1 || got.NewPrimary == nil || got.NewPrimary.ID != second.Wallet.ID {
				t.Fatalf("UnlinkWallets(primary) = %+v, %v, want the second wallet promoted", got, err)
			}
			if n := count(t, db, "challenges", "wallet_id = ?", first.Wallet.ID); n != 0 {
				t.Errorf("%d challenges left of the unlinked wallet, want 0", n)
			}
			if n := count(t, db, "audit_log", "action = ? AND user_id = ?", core.AuditWalletUnlinked, first.User.ID); n != 1 {
				t.Errorf("%d unlink audit entries, want 1", n)
			}
		})
		t.Run("NotPrimary", func(t *testing.T) {
			u := member(core.Discord, "plain")
			first := mustLink(t, db, u, addr(4), 4)
			mustLink(t, db, u, addr(5), 5)
			got, err := db.UnlinkWallets(t.Context(), first.User.ID, addr(5))
			if err != nil || got.NewPrimary != nil || got.Removed[0].Value != addr(5) {
				t.Errorf("UnlinkWallets(not primary) = %+v, %v, want it removed, no promotion", got, err)
			}
		})
		t.Run("All", func(t *testing.T) {
			u := member(core.Discord, "all")
			first := mustLink(t, db, u, addr(6), 6)
			mustLink(t, db, u, addr(7), 7)
			got, err := db.UnlinkWallets(t.Context(), first.User.ID, "")
			if err != nil || len(got.Removed) != 2 || !got.Removed[0].Primary || got.NewPrimary != nil {
				t.Errorf("UnlinkWallets(all) = %+v, %v, want 2 removed, primary first", got, err)
			}
			if _, err := db.UnlinkWallets(t.Context(), first.User.ID, ""); !errors.Is(err, core.ErrNotFound) {
				t.Errorf("UnlinkWallets(none left) = %v, want ErrNotFound", err)
			}
		})
		t.Run("ErrNotFound", func(t *testing.T) {
			l := mustLink(t, db, member(core.Discord, "missing"), addr(8), 8)
			if _, err := db.UnlinkWallets(t.Context(), l.User.ID, addr(9)); !errors.Is(err, core.ErrNotFound) {
				t.Errorf("UnlinkWallets(not linked) = %v, want ErrNotFound", err)
			}
			if _, err := db.UnlinkWallets(t.Context(), 424242, ""); !errors.Is(err, core.ErrNotFound) {
				t.Errorf("UnlinkWallets(unknown user) = %v, want ErrNotFound", err)
			}
		})
	})
}

func TestDB_ForgetUser(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		u := member(core.Telegram, "forget-me")
		l := mustLink(t, db, u, addr(1), 1)
		mustLink(t, db, u, "forget.eth", 2)
		mustUse(t, db, 1, addr(1))
		got, err := db.ForgetUser(t.Context(), core.Telegram, "forget-me")
		if err != nil || got.User.ID != l.User.ID || len(got.Wallets) != 2 || got.Challenges != 2 {
			t.Fatalf("ForgetUser() = %+v, %v, want the user, 2 wallets and 2 challenges", got, err)
		}
		for _, table := range []string{"wallets", "challenges"} {
			if n := count(t, db, table, "user_id = ?", l.User.ID); n != 0 {
				t.Errorf("%d rows of %s left, want 0", n, table)
			}
		}
		if n := count(t, db, "users", "id = ?", l.User.ID); n != 0 {
			t.Errorf("user row left")
		}
		if n := count(t, db, "audit_log", "user_id = ?", l.User.ID); n != 0 {
			t.Errorf("%d audit entries still name the user, want 0", n)
		}
		forgotten := auditLog(t, db, core.AuditMemberForgotten)
		if len(forgotten) != 1 || forgotten[0].UserID != nil || strings.Contains(forgotten[0].Detail, "forget-me") {
			t.Errorf("forget audit = %+v, want one entry without the member", forgotten)
		}
		if _, err := db.ForgetUser(t.Context(), core.Telegram, "forget-me"); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("ForgetUser(again) = %v, want ErrNotFound", err)
		}
	})
}
