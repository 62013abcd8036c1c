package storage

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

// t0 is when the test challenges are issued.
var t0 = time.Date(2026, 11, 22, 17, 0, 0, 0, time.UTC)

// challengeFor returns an unsaved challenge numbered n, issued at at, to be
// signed by address ("" for an ENS name).
func challengeFor(n int, at time.Time, address string) *core.Challenge {
	return &core.Challenge{
		Nonce:     fmt.Sprintf("%032x", n),
		Message:   fmt.Sprintf("message %d", n),
		Address:   address,
		IssuedAt:  at,
		ExpiresAt: at.Add(core.ChallengeTTL),
	}
}

// testLimits are the default limits of a member's wallets and challenges.
var testLimits = core.LinkLimits{Wallets: core.DefaultMaxWallets, Challenges: core.DefaultMaxChallenges}

// member returns the user to upsert for a platform id.
func member(p core.Platform, id string) core.User {
	return core.User{Platform: p, ExternalID: id, Name: "name of " + id}
}

// mustLink links value (an address, with a challenge numbered n) to the
// member or fails the test.
func mustLink(t *testing.T, db *DB, u core.User, value string, n int) core.Linked {
	t.Helper()
	kind, address := core.KindAddress, value
	if value[:2] != "0x" {
		kind, address = core.KindENS, ""
	}
	l, err := db.LinkWallet(t.Context(), u, core.Wallet{Kind: kind, Value: value}, challengeFor(n, t0, address), testLimits)
	if err != nil {
		t.Fatalf("LinkWallet(%s, %s) = %v", u.ExternalID, value, err)
	}
	return l
}

// mustUse uses the challenge numbered n at t0 or fails the test.
func mustUse(t *testing.T, db *DB, n int, address string) core.Verification {
	t.Helper()
	v, err := db.UseChallenge(t.Context(), fmt.Sprintf("%032x", n), address, 0, t0.Add(time.Minute))
	if err != nil {
		t.Fatalf("UseChallenge(#%d, %s) = %v", n, address, err)
	}
	return v
}

// auditLog returns the audit entries with that action, oldest first.
func auditLog(t *testing.T, db *DB, action string) []auditRow {
	t.Helper()
	var rows []auditRow
	if err := db.gorm.Where("action = ?", action).Order("id").Find(&rows).Error; err != nil {
		t.Fatal(err)
	}
	return rows
}

// count counts the rows of table that match where.
func count(t *testing.T, db *DB, table, where string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.gorm.Table(table).Where(where, args...).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

func TestDB_LinkWallet(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		t.Run("OK", func(t *testing.T) {
			l := mustLink(t, db, member(core.Discord, "ok"), addr(1), 1)
			if l.Existed || !l.Wallet.Primary || l.Wallet.Verified() || l.User.Name != "name of ok" {
				t.Errorf("LinkWallet() = %+v, want a new primary unverified wallet of a stored user", l)
			}
			want := core.Challenge{ID: l.Challenge.ID, UserID: l.User.ID, Platform: core.Discord, WalletID: l.Wallet.ID,
				Wallet: addr(1), Address: addr(1), Nonce: fmt.Sprintf("%032x", 1), Message: "message 1",
				IssuedAt: t0, ExpiresAt: t0.Add(core.ChallengeTTL)}
			if l.Challenge == nil || !cmp.Equal(*l.Challenge, want) {
				t.Errorf("LinkWallet() challenge = %+v, want %+v", l.Challenge, want)
			}
			got, err := db.ChallengeByNonce(t.Context(), want.Nonce)
			if err != nil || !cmp.Equal(got, want) {
				t.Errorf("ChallengeByNonce() = %+v, %v, want %+v", got, err, want)
			}
		})
		t.Run("Again", func(t *testing.T) {
			u := member(core.Discord, "again")
			first := mustLink(t, db, u, addr(2), 2)
			second := mustLink(t, db, u, addr(2), 3)
			if !second.Existed || second.Wallet.ID != first.Wallet.ID || second.Challenge == nil {
				t.Errorf("LinkWallet(same value) = %+v, want the existing wallet %d and a new challenge", second, first.Wallet.ID)
			}
			recent, err := db.RecentChallenges(t.Context(), first.User.ID, 10)
			if err != nil || len(recent) != 2 || recent[0].ID != second.Challenge.ID {
				t.Errorf("RecentChallenges() = %+v, %v, want the second challenge first of 2", recent, err)
			}
			if n := len(auditLog(t, db, core.AuditWalletLinked)); n == 0 {
				t.Errorf("no %q audit entry", core.AuditWalletLinked)
			}
			if n := count(t, db, "audit_log", "action = ? AND user_id = ?", core.AuditWalletLinked, first.User.ID); n != 1 {
				t.Errorf("linking twice wrote %d audit entries, want 1", n)
			}
		})
		t.Run("VerifiedGetsNoChallenge", func(t *testing.T) {
			u := member(core.Discord, "verified")
			mustLink(t, db, u, addr(4), 4)
			mustUse(t, db, 4, addr(4))
			if l := mustLink(t, db, u, addr(4), 5); l.Challenge != nil || !l.Existed || !l.Wallet.Verified() {
				t.Errorf("LinkWallet(verified wallet) = %+v, want it as it is, without a challenge", l)
			}
		})
		t.Run("Email", func(t *testing.T) {
			l, err := db.LinkWallet(t.Context(), member(core.Telegram, "mail"), core.Wallet{Kind: core.KindEmail, Value: "a@b.org"}, nil, testLimits)
			if err != nil || l.Challenge != nil || !l.Wallet.Primary {
				t.Errorf("LinkWallet(e-mail) = %+v, %v, want a primary wallet without challenge", l, err)
			}
		})
		t.Run("DropsOldChallenges", func(t *testing.T) {
			u := member(core.Discord, "old")
			old := challengeFor(6, t0.Add(-48*time.Hour), addr(6))
			l, err := db.LinkWallet(t.Context(), u, core.Wallet{Kind: core.KindAddress, Value: addr(6)}, old, testLimits)
			if err != nil {
				t.Fatal(err)
			}
			mustLink(t, db, u, addr(6), 7)
			if _, err := db.ChallengeByNonce(t.Context(), old.Nonce); !errors.Is(err, core.ErrNotFound) {
				t.Errorf("ChallengeByNonce(expired two days ago) = %v, want ErrNotFound", err)
			}
			if n := count(t, db, "challenges", "user_id = ?", l.User.ID); n != 1 {
				t.Errorf("challenges left = %d, want 1", n)
			}
		})
		t.Run("ErrConflict", func(t *testing.T) {
			mustLink(t, db, member(core.Discord, "nonce1"), addr(8), 8)
			_, err := db.LinkWallet(t.Context(), member(core.Discord, "nonce2"),
				core.Wallet{Kind: core.KindAddress, Value: addr(9)}, challengeFor(8, t0, addr(9)), testLimits)
			if !errors.Is(err, core.ErrConflict) {
				t.Errorf("LinkWallet(taken nonce) = %v, want ErrConflict", err)
			}
			if _, err := db.FindUser(t.Context(), core.Discord, "nonce2"); !errors.Is(err, core.ErrNotFound) {
				t.Errorf("FindUser(after a failed link) = %v, want ErrNotFound: nothing stored", err)
			}
		})
	})
}

func TestDB_ChallengeByNonce_ErrNotFound(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		if _, err := db.ChallengeByNonce(t.Context(), fmt.Sprintf("%032x", 99)); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("ChallengeByNonce(unknown) = %v, want ErrNotFound", err)
		}
		if got, err := db.RecentChallenges(t.Context(), 4242, 5); err != nil || len(got) != 0 {
			t.Errorf("RecentChallenges(unknown user) = %v, %v, want none", got, err)
		}
	})
}

// TestDB_ChallengePlace: the community a challenge was made in is stored
// with it and read back by nonce and among the recent ones; a challenge
// stored without one (as before the column) reads as none.
func TestDB_ChallengePlace(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		u := member(core.Telegram, "place")
		c := challengeFor(31, t0, addr(31))
		c.Place = `Café <b>"POAP"</b> ✓ 'n' friends`
		l, err := db.LinkWallet(t.Context(), u, core.Wallet{Kind: core.KindAddress, Value: addr(31)}, c, testLimits)
		if err != nil {
			t.Fatal(err)
		}
		if l.Challenge == nil || l.Challenge.Place != c.Place {
			t.Errorf("LinkWallet() challenge = %+v, want place %q", l.Challenge, c.Place)
		}
		got, err := db.ChallengeByNonce(t.Context(), c.Nonce)
		if err != nil || got.Place != c.Place {
			t.Errorf("ChallengeByNonce() = place %q, %v, want %q", got.Place, err, c.Place)
		}
		recent, err := db.RecentChallenges(t.Context(), l.User.ID, 5)
		if err != nil || len(recent) != 1 || recent[0].Place != c.Place {
			t.Errorf("RecentChallenges() = %+v, %v, want one with place %q", recent, err, c.Place)
		}
		// A row written as before migration 0016, without the column.
		old := fmt.Sprintf("%032x", 32)
		err = db.gorm.Exec(`INSERT INTO challenges (user_id, platform, wallet_id, nonce, message, address, issued_at, expires_at)
			VALUES (?, ?, ?, ?, 'old', ?, ?, ?)`, l.User.ID, string(core.Telegram), l.Wallet.ID, old, addr(31),
			dbTime(t0), dbTime(t0.Add(core.ChallengeTTL))).Error
		if err != nil {
			t.Fatal(err)
		}
		if got, err := db.ChallengeByNonce(t.Context(), old); err != nil || got.Place != "" {
			t.Errorf("ChallengeByNonce(row without place) = place %q, %v, want none", got.Place, err)
		}
	})
}
