package core_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/storage"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

// eachLimitedService runs f on a WalletService with limits over a new
// database of each dialect.
func eachLimitedService(t *testing.T, limits core.LinkLimits, f func(t *testing.T, s *core.WalletService, clock *coretest.Clock)) {
	t.Helper()
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		db, err := storage.Open(t.Context(), newURL())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		clock := coretest.NewClock(time.Date(2026, 11, 22, 17, 0, 0, 0, time.UTC))
		s, err := core.NewWalletService(core.WalletServiceDeps{Members: db, Wallets: db, Limits: limits, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		f(t, s, clock)
	})
}

func TestWalletService_Limits_Defaults(t *testing.T) {
	t.Parallel()
	eachLimitedService(t, core.LinkLimits{}, func(t *testing.T, s *core.WalletService, _ *coretest.Clock) {
		want := core.LinkLimits{Wallets: 10, Challenges: 5}
		if got := s.Limits(); got != want {
			t.Errorf("Limits() = %+v, want %+v", got, want)
		}
	})
}

// TestWalletService_Link_Limits: past MAX_WALLETS a new wallet is refused
// (an e-mail too), relinking is not a new wallet; past MAX_CHALLENGES open
// challenges a relink is refused until the first expires.
func TestWalletService_Link_Limits(t *testing.T) {
	t.Parallel()
	eachLimitedService(t, core.LinkLimits{Wallets: 2, Challenges: 3}, func(t *testing.T, s *core.WalletService, clock *coretest.Clock) {
		first := mustLink(t, s, alice, coretest.TestAddress)
		mustLink(t, s, alice, coretest.OtherAddress)
		for _, wallet := range []string{"alice.eth", "alice@example.org"} {
			var limitErr *core.WalletLimitError
			_, err := s.Link(t.Context(), alice, wallet)
			if !errors.As(err, &limitErr) || *limitErr != (core.WalletLimitError{Limit: 2, Held: 2}) {
				t.Errorf("Link(%s, 3rd of 2) = %v, want a WalletLimitError of 2 held, limit 2", wallet, err)
			}
		}
		mustLink(t, s, alice, coretest.TestAddress)
		clock.Add(time.Minute)
		_, err := s.Link(t.Context(), alice, coretest.TestAddress)
		var limitErr *core.ChallengeLimitError
		if !errors.As(err, &limitErr) || !errors.Is(err, core.ErrTooManyChallenges) {
			t.Fatalf("Link(4th open challenge of 3) = %v, want a ChallengeLimitError", err)
		}
		want := core.ChallengeLimitError{Limit: 3, Next: first.ExpiresAt}
		if diff := cmp.Diff(want, *limitErr); diff != "" {
			t.Errorf("ChallengeLimitError (-want +got):\n%s", diff)
		}
		clock.Add(core.ChallengeTTL)
		if _, err := s.Link(t.Context(), alice, coretest.TestAddress); err != nil {
			t.Errorf("Link(after the challenges expired) = %v, want a fresh challenge", err)
		}
	})
}

// TestWalletService_Verify_Locked: wrong signatures (another wallet's, a
// malformed one), through the page and the chat, lock the challenge at the
// 10th, while the wallet's own signatures of another text count for
// nothing; then not even the right signature verifies it, until /link
// gives a fresh challenge.
func TestWalletService_Verify_Locked(t *testing.T) {
	t.Parallel()
	eachLimitedService(t, core.LinkLimits{}, func(t *testing.T, s *core.WalletService, _ *coretest.Clock) {
		earlier := mustLink(t, s, alice, coretest.TestAddress)
		c := mustLink(t, s, alice, coretest.TestAddress)
		wrong := []string{coretest.Sign(coretest.OtherKey, c.Message), "0xnope"}
		mistakes := map[string]error{
			coretest.Sign(coretest.TestKey, strings.ReplaceAll(c.Message, "\n", "\r\n")): core.ErrSignatureAltered,
			coretest.Sign(coretest.TestKey, earlier.Message):                             core.ErrSignatureOldMessage,
		}
		for i := range core.MaxWrongSignatures - 1 {
			for sig, want := range mistakes {
				if _, err := s.VerifyChallenge(t.Context(), c.Nonce, sig); !errors.Is(err, want) || errors.Is(err, core.ErrChallengeLocked) {
					t.Fatalf("the wallet's signature of another text = %v, want %v, not counted", err, want)
				}
			}
			sig := wrong[i%len(wrong)]
			var err error
			if i%2 == 0 {
				_, err = s.VerifyChallenge(t.Context(), c.Nonce, sig)
			} else {
				_, err = s.Verify(t.Context(), alice, sig)
			}
			if err == nil || errors.Is(err, core.ErrChallengeLocked) {
				t.Fatalf("wrong signature %d = %v, want its reason, not locked yet", i+1, err)
			}
		}
		_, err := s.VerifyChallenge(t.Context(), c.Nonce, wrong[0])
		if !errors.Is(err, core.ErrChallengeLocked) || !errors.Is(err, core.ErrSignatureMismatch) {
			t.Errorf("wrong signature %d = %v, want ErrChallengeLocked with its reason", core.MaxWrongSignatures, err)
		}
		right := coretest.Sign(coretest.TestKey, c.Message)
		if _, err := s.VerifyChallenge(t.Context(), c.Nonce, right); !errors.Is(err, core.ErrChallengeLocked) {
			t.Errorf("VerifyChallenge(right signature, locked) = %v, want ErrChallengeLocked", err)
		}
		if _, err := s.Verify(t.Context(), alice, right); !errors.Is(err, core.ErrChallengeLocked) {
			t.Errorf("Verify(right signature, locked) = %v, want ErrChallengeLocked", err)
		}
		if _, err := s.Challenge(t.Context(), c.Nonce); !errors.Is(err, core.ErrChallengeLocked) {
			t.Errorf("Challenge(locked) = %v, want ErrChallengeLocked", err)
		}
		fresh := mustLink(t, s, alice, coretest.TestAddress)
		if w, err := s.Verify(t.Context(), alice, coretest.Sign(coretest.TestKey, fresh.Message)); err != nil || !w.Verified() {
			t.Errorf("Verify(fresh challenge) = %+v, %v, want the wallet verified", w, err)
		}
	})
}

// TestWalletService_Verify_BelowLock: nine wrong signatures leave the
// challenge usable.
func TestWalletService_Verify_BelowLock(t *testing.T) {
	t.Parallel()
	eachLimitedService(t, core.LinkLimits{}, func(t *testing.T, s *core.WalletService, _ *coretest.Clock) {
		c := mustLink(t, s, alice, coretest.TestAddress)
		for range core.MaxWrongSignatures - 1 {
			if _, err := s.VerifyChallenge(t.Context(), c.Nonce, "0x00"); !errors.Is(err, core.ErrBadSignature) {
				t.Fatalf("VerifyChallenge(malformed) = %v, want ErrBadSignature", err)
			}
		}
		if w, err := s.VerifyChallenge(t.Context(), c.Nonce, coretest.Sign(coretest.TestKey, c.Message)); err != nil || !w.Verified() {
			t.Errorf("VerifyChallenge(right, after %d wrong) = %+v, %v, want verified", core.MaxWrongSignatures-1, w, err)
		}
	})
}
