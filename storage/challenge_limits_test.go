package storage

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

// link links value (an address) to u with the challenge numbered n issued
// at at, within limits.
func link(t *testing.T, db *DB, u core.User, value string, n int, at time.Time, limits core.LinkLimits) (core.Linked, error) {
	t.Helper()
	return db.LinkWallet(t.Context(), u, core.Wallet{Kind: core.KindAddress, Value: value}, challengeFor(n, at, value), limits)
}

// TestDB_LinkWallet_Wallets: a new wallet past the limit is refused with
// the limit and what the member holds, and nothing is stored; relinking a
// wallet linked before is not a new wallet; a member over the limit (a
// limit lowered later) keeps every wallet and links nothing new until
// under it.
func TestDB_LinkWallet_Wallets(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		three := core.LinkLimits{Wallets: 3, Challenges: 100}
		u := member(core.Discord, "many")
		var first core.Linked
		for i := range 3 {
			l, err := link(t, db, u, addr(300+i), 300+i, t0, three)
			if err != nil {
				t.Fatalf("LinkWallet(wallet %d of 3) = %v", i+1, err)
			}
			first = l
		}
		_, err := link(t, db, u, addr(303), 303, t0, three)
		var limitErr *core.WalletLimitError
		if !errors.As(err, &limitErr) || !errors.Is(err, core.ErrTooManyWallets) {
			t.Fatalf("LinkWallet(4th of 3) = %v, want a WalletLimitError", err)
		}
		if diff := cmp.Diff(core.WalletLimitError{Limit: 3, Held: 3}, *limitErr); diff != "" {
			t.Errorf("WalletLimitError (-want +got):\n%s", diff)
		}
		if n := count(t, db, "wallets", "user_id = ?", first.User.ID); n != 3 {
			t.Errorf("wallets after the refusal = %d, want 3", n)
		}
		if n := count(t, db, "challenges", "nonce = ?", fmt.Sprintf("%032x", 303)); n != 0 {
			t.Errorf("the refused link stored its challenge")
		}
		again, err := link(t, db, u, addr(300), 304, t0, three)
		if err != nil || !again.Existed || again.Challenge == nil {
			t.Errorf("LinkWallet(linked before, at the limit) = %+v, %v, want it again with a new challenge", again, err)
		}

		lower := core.LinkLimits{Wallets: 2, Challenges: 100}
		if _, err := link(t, db, u, addr(301), 305, t0, lower); err != nil {
			t.Errorf("LinkWallet(linked before, over a lowered limit) = %v, want it again", err)
		}
		if _, err := db.UnlinkWallets(t.Context(), first.User.ID, addr(302)); err != nil {
			t.Fatal(err)
		}
		if _, err := link(t, db, u, addr(306), 306, t0, lower); !errors.As(err, &limitErr) || limitErr.Held != 2 {
			t.Errorf("LinkWallet(new, 2 held, limit 2) = %v, want a WalletLimitError holding 2", err)
		}
		if _, err := db.UnlinkWallets(t.Context(), first.User.ID, addr(301)); err != nil {
			t.Fatal(err)
		}
		if _, err := link(t, db, u, addr(306), 307, t0, lower); err != nil {
			t.Errorf("LinkWallet(new, 1 held, limit 2) = %v, want it linked", err)
		}
	})
}

// TestDB_LinkWallet_Challenges: a challenge past the member's open ones is
// refused with when the first expires, and the wallet it came with is not
// linked; a used or expired challenge is not open.
func TestDB_LinkWallet_Challenges(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		two := core.LinkLimits{Wallets: 100, Challenges: 2}
		u := member(core.Telegram, "pending")
		l, err := link(t, db, u, addr(400), 400, t0, two)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := link(t, db, u, addr(400), 401, t0.Add(time.Minute), two); err != nil {
			t.Fatal(err)
		}
		_, err = link(t, db, u, addr(402), 402, t0.Add(2*time.Minute), two)
		var limitErr *core.ChallengeLimitError
		if !errors.As(err, &limitErr) || !errors.Is(err, core.ErrTooManyChallenges) {
			t.Fatalf("LinkWallet(3rd open challenge of 2) = %v, want a ChallengeLimitError", err)
		}
		if want := (core.ChallengeLimitError{Limit: 2, Next: t0.Add(core.ChallengeTTL)}); !cmp.Equal(*limitErr, want) {
			t.Errorf("ChallengeLimitError = %+v, want %+v", *limitErr, want)
		}
		if n := count(t, db, "wallets", "user_id = ?", l.User.ID); n != 1 {
			t.Errorf("wallets after the refusal = %d, want 1: the new wallet is not linked without its challenge", n)
		}
		mailLink, err := db.LinkWallet(t.Context(), u, core.Wallet{Kind: core.KindEmail, Value: "p@example.org"}, nil, two)
		if err != nil || mailLink.Challenge != nil {
			t.Errorf("LinkWallet(e-mail, no challenge, 2 open) = %+v, %v, want it linked", mailLink, err)
		}
		if _, err := db.UseChallenge(t.Context(), fmt.Sprintf("%032x", 401), addr(400), 0, t0.Add(2*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if _, err := link(t, db, u, addr(402), 403, t0.Add(3*time.Minute), two); err != nil {
			t.Errorf("LinkWallet(after one was used) = %v, want it linked", err)
		}
		if _, err := link(t, db, u, addr(404), 404, t0.Add(core.ChallengeTTL), two); err != nil {
			t.Errorf("LinkWallet(when the first expired) = %v, want it linked", err)
		}
		// Open: 403 and 404. A locked challenge no longer counts: it can
		// never be signed.
		for range core.MaxWrongSignatures {
			if _, err := db.FailChallenge(t.Context(), fmt.Sprintf("%032x", 403)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := link(t, db, u, addr(405), 405, t0.Add(core.ChallengeTTL+time.Minute), two); err != nil {
			t.Errorf("LinkWallet(one of 2 open challenges locked) = %v, want it linked", err)
		}
	})
}

// TestDB_LinkWallet_LimitsRace: one member links from many places at once;
// exactly the limit passes, of wallets and of challenges.
func TestDB_LinkWallet_LimitsRace(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		const tries = 8
		limits := core.LinkLimits{Wallets: 3, Challenges: 100}
		u := member(core.Discord, "racer")
		errs := race(tries, func(i int) error {
			_, err := link(t, db, u, addr(500+i), 500+i, t0, limits)
			return err
		})
		checkRace(t, "new wallets", errs, core.ErrTooManyWallets, 3)
		owner, err := db.FindUser(t.Context(), core.Discord, "racer")
		if err != nil {
			t.Fatal(err)
		}
		if n := count(t, db, "wallets", "user_id = ?", owner.ID); n != 3 {
			t.Errorf("wallets linked = %d, want 3", n)
		}

		limits = core.LinkLimits{Wallets: 100, Challenges: 5}
		v := member(core.Discord, "relinker")
		errs = race(tries, func(i int) error {
			_, err := link(t, db, v, addr(600), 600+i, t0, limits)
			return err
		})
		checkRace(t, "challenges", errs, core.ErrTooManyChallenges, 5)
	})
}

// checkRace fails the test unless exactly pass of errs are nil and the
// rest are refusal.
func checkRace(t *testing.T, what string, errs []error, refusal error, pass int) {
	t.Helper()
	passed := 0
	for i, err := range errs {
		switch {
		case err == nil:
			passed++
		case !errors.Is(err, refusal):
			t.Errorf("%s: try %d = %v, want nil or %v", what, i, err, refusal)
		}
	}
	if passed != pass {
		t.Errorf("%s: %d of %d tries passed, want %d", what, passed, len(errs), pass)
	}
}

// TestDB_FailChallenge: wrong signatures are counted one by one, also side
// by side; at core.MaxWrongSignatures the challenge is locked and not even
// the right signature uses it; below it, it is used.
func TestDB_FailChallenge(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		mustLink(t, db, member(core.Discord, "fumbler"), addr(700), 700)
		nonce := fmt.Sprintf("%032x", 700)
		for i := 1; i < core.MaxWrongSignatures; i++ {
			if n, err := db.FailChallenge(t.Context(), nonce); err != nil || n != i {
				t.Fatalf("FailChallenge() = %d, %v, want %d", n, err, i)
			}
		}
		v := mustUse(t, db, 700, addr(700))
		if !v.Wallet.Verified() {
			t.Errorf("UseChallenge(after %d wrong) = %+v, want the wallet verified", core.MaxWrongSignatures-1, v)
		}
		if _, err := db.FailChallenge(t.Context(), nonce); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("FailChallenge(used) = %v, want ErrNotFound", err)
		}
		if _, err := db.FailChallenge(t.Context(), fmt.Sprintf("%032x", 799)); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("FailChallenge(unknown) = %v, want ErrNotFound", err)
		}

		mustLink(t, db, member(core.Discord, "guesser"), addr(701), 701)
		nonce = fmt.Sprintf("%032x", 701)
		errs := race(2*core.MaxWrongSignatures, func(int) error {
			_, err := db.FailChallenge(t.Context(), nonce)
			return err
		})
		for i, err := range errs {
			if err != nil {
				t.Errorf("FailChallenge(side by side) %d = %v", i, err)
			}
		}
		c, err := db.ChallengeByNonce(t.Context(), nonce)
		if err != nil || c.WrongSignatures != 2*core.MaxWrongSignatures {
			t.Errorf("ChallengeByNonce() = %+v, %v, want %d wrong signatures", c, err, 2*core.MaxWrongSignatures)
		}
		if _, err := db.UseChallenge(t.Context(), nonce, addr(701), 0, t0.Add(time.Minute)); !errors.Is(err, core.ErrChallengeLocked) {
			t.Errorf("UseChallenge(locked) = %v, want ErrChallengeLocked", err)
		}
		if _, err := db.UseChallenge(t.Context(), nonce, addr(701), 0, t0.Add(core.ChallengeTTL)); !errors.Is(err, core.ErrChallengeExpired) {
			t.Errorf("UseChallenge(locked, expired) = %v, want ErrChallengeExpired", err)
		}
	})
}
