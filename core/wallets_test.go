package core_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/storage"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

var alice = core.Member{Platform: core.Discord, ExternalID: "123456", Name: "alice"}

// eachService runs f on a Service over a new database of each dialect.
func eachService(t *testing.T, f func(t *testing.T, s *core.WalletService, clock *coretest.Clock)) {
	t.Helper()
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		db, err := storage.Open(t.Context(), newURL())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		clock := coretest.NewClock(time.Date(2026, 11, 22, 17, 0, 0, 0, time.UTC))
		s, err := core.NewWalletService(core.WalletServiceDeps{Members: db, Wallets: db, BotName: "Test bot", Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		f(t, s, clock)
	})
}

// mustLink links wallet for m and returns its challenge, or fails the test.
func mustLink(t *testing.T, s *core.WalletService, m core.Member, wallet string) core.Challenge {
	t.Helper()
	res, err := s.Link(t.Context(), m, wallet)
	if err != nil || res.Challenge == nil {
		t.Fatalf("Link(%s) = %+v, %v, want a challenge", wallet, res, err)
	}
	return *res.Challenge
}

func TestWalletService_Link(t *testing.T) {
	t.Parallel()
	eachService(t, func(t *testing.T, s *core.WalletService, _ *coretest.Clock) {
		c := mustLink(t, s, alice, coretest.TestAddress)
		if !strings.HasPrefix(c.Message, "Test bot asks you") || !strings.Contains(c.Message, "Member: alice (123456)") ||
			c.Address != coretest.TestAddress || c.ExpiresAt.Sub(c.IssuedAt) != 10*time.Minute {
			t.Errorf("Link() challenge = %+v, want one for %s by Test bot, 10 minutes", c, coretest.TestAddress)
		}
		again, err := s.Link(t.Context(), alice, strings.ToUpper(coretest.TestAddress[2:]))
		if !errors.Is(err, core.ErrInvalidWallet) {
			t.Errorf("Link(no 0x) = %+v, %v, want ErrInvalidWallet", again, err)
		}
		mail, err := s.Link(t.Context(), alice, "Alice@Example.org")
		if err != nil || mail.Challenge != nil || mail.Wallet.Primary || mail.Wallet.Value != "alice@example.org" {
			t.Errorf("Link(e-mail) = %+v, %v, want a second wallet without challenge", mail, err)
		}
	})
}

// TestWalletService_Challenge is the verification page's path: the challenge is
// found by its nonce.
func TestWalletService_Challenge(t *testing.T) {
	t.Parallel()
	eachService(t, func(t *testing.T, s *core.WalletService, clock *coretest.Clock) {
		c := mustLink(t, s, alice, coretest.TestAddress)
		if got, err := s.Challenge(t.Context(), c.Nonce); err != nil || got.Message != c.Message || got.Wallet != coretest.TestAddress {
			t.Errorf("Challenge(nonce) = %+v, %v, want %+v", got, err, c)
		}
		for _, nonce := range []string{"", "nope", strings.Repeat("0", 32), "../" + c.Nonce} {
			if _, err := s.Challenge(t.Context(), nonce); !errors.Is(err, core.ErrNoChallenge) {
				t.Errorf("Challenge(%q) = %v, want ErrNoChallenge", nonce, err)
			}
		}
		clock.Add(10 * time.Minute)
		if got, err := s.Challenge(t.Context(), c.Nonce); !errors.Is(err, core.ErrChallengeExpired) || got.Nonce != c.Nonce {
			t.Errorf("Challenge(after 10 minutes) = %+v, %v, want it with ErrChallengeExpired", got, err)
		}
	})
}

func TestWalletService_VerifyChallenge(t *testing.T) {
	t.Parallel()
	eachService(t, func(t *testing.T, s *core.WalletService, _ *coretest.Clock) {
		c := mustLink(t, s, alice, coretest.TestAddress)
		var sigErr *core.SignatureError
		_, err := s.VerifyChallenge(t.Context(), c.Nonce, coretest.Sign(coretest.OtherKey, c.Message))
		if !errors.As(err, &sigErr) || sigErr.Recovered != coretest.OtherAddress || !errors.Is(err, core.ErrSignatureMismatch) {
			t.Errorf("VerifyChallenge(other key) = %v, want a SignatureError naming %s", err, coretest.OtherAddress)
		}
		if _, err := s.VerifyChallenge(t.Context(), c.Nonce, "0xnope"); !errors.Is(err, core.ErrBadSignature) {
			t.Errorf("VerifyChallenge(malformed) = %v, want ErrBadSignature", err)
		}
		sig := coretest.Sign(coretest.TestKey, c.Message)
		w, err := s.VerifyChallenge(t.Context(), c.Nonce, sig)
		if err != nil || w.Address != coretest.TestAddress || !w.Verified() {
			t.Fatalf("VerifyChallenge() = %+v, %v, want the wallet verified", w, err)
		}
		if _, err := s.VerifyChallenge(t.Context(), c.Nonce, sig); !errors.Is(err, core.ErrChallengeUsed) {
			t.Errorf("VerifyChallenge(replay) = %v, want ErrChallengeUsed", err)
		}
		if _, err := s.Verify(t.Context(), alice, sig); !errors.Is(err, core.ErrChallengeUsed) {
			t.Errorf("Verify(after the page verified) = %v, want ErrChallengeUsed", err)
		}
	})
}

// TestWalletService_Verify_ENS checks that an ENS name stores the address that
// signed, and that a signature of an earlier address challenge is told
// apart even though an ENS name accepts any signer.
func TestWalletService_Verify_ENS(t *testing.T) {
	t.Parallel()
	eachService(t, func(t *testing.T, s *core.WalletService, _ *coretest.Clock) {
		earlier := mustLink(t, s, alice, coretest.TestAddress)
		ens := mustLink(t, s, alice, "alice.eth")
		if ens.Address != "" {
			t.Errorf("ENS challenge address = %q, want none before it is signed", ens.Address)
		}
		if _, err := s.Verify(t.Context(), alice, coretest.Sign(coretest.TestKey, earlier.Message)); !errors.Is(err, core.ErrSignatureOldMessage) {
			t.Errorf("Verify(earlier message) = %v, want ErrSignatureOldMessage", err)
		}
		w, err := s.Verify(t.Context(), alice, coretest.Sign(coretest.OtherKey, ens.Message))
		if err != nil || w.Value != "alice.eth" || w.Address != coretest.OtherAddress {
			t.Errorf("Verify(ENS) = %+v, %v, want alice.eth verified as %s", w, err, coretest.OtherAddress)
		}
	})
}

// TestWalletService_Link_LongName: a display name longer than any platform
// gives is stored cut to core.MaxNameLen on every database, not refused.
func TestWalletService_Link_LongName(t *testing.T) {
	t.Parallel()
	eachService(t, func(t *testing.T, s *core.WalletService, _ *coretest.Clock) {
		m := core.Member{Platform: core.Console, ExternalID: "long", Name: strings.Repeat("é", 5000)}
		res, err := s.Link(t.Context(), m, "long@example.org")
		if err != nil || res.Wallet.Value != "long@example.org" {
			t.Fatalf("Link(member with a 5000-character name) = %+v, %v; want it linked", res, err)
		}
	})
}
