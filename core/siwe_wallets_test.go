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

const siweURL = "https://bot.example.org:8443"

// siweServices runs f with a wallet service of PUBLIC_URL siweURL, and a
// second one of another PUBLIC_URL on the same database.
func siweServices(t *testing.T, f func(t *testing.T, s, moved *core.WalletService, clock *coretest.Clock)) {
	t.Helper()
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		db, err := storage.Open(t.Context(), newURL())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		clock := coretest.NewClock(time.Date(2026, 11, 22, 17, 0, 0, 0, time.UTC))
		services := make([]*core.WalletService, 2)
		for i, u := range []string{siweURL, "https://new.example.org"} {
			services[i], err = core.NewWalletService(core.WalletServiceDeps{Members: db, Wallets: db, BotName: "Test bot", Clock: clock, PublicURL: u})
			if err != nil {
				t.Fatal(err)
			}
		}
		f(t, services[0], services[1], clock)
	})
}

// mustLinkIn links wallet for m in place and returns its challenge.
func mustLinkIn(t *testing.T, s *core.WalletService, m core.Member, place, wallet string) core.Challenge {
	t.Helper()
	res, err := s.LinkIn(t.Context(), m, place, wallet)
	if err != nil || res.Challenge == nil {
		t.Fatalf("LinkIn(%s) = %+v, %v, want a challenge", wallet, res, err)
	}
	return *res.Challenge
}

// TestWalletService_Link_SIWE parses the challenge of an address with the
// EIP-4361 parser and checks every term against the challenge.
func TestWalletService_Link_SIWE(t *testing.T) {
	t.Parallel()
	siweServices(t, func(t *testing.T, s, _ *core.WalletService, _ *coretest.Clock) {
		c := mustLinkIn(t, s, alice, "Test Guild", coretest.TestAddress)
		m, err := core.ParseSIWE(c.Message)
		if err != nil {
			t.Fatalf("ParseSIWE(challenge) = %v\n%s", err, c.Message)
		}
		terms := []struct{ term, got, want string }{
			{"scheme", m.Scheme, ""},
			{"domain", m.Domain, "bot.example.org:8443"},
			{"address", m.Address, core.ChecksumAddress(coretest.TestAddress)},
			{"uri", m.URI, core.VerificationURL(siweURL, c.Nonce)},
			{"version", m.Version, "1"},
			{"chain id", m.ChainID, "1"},
			{"nonce", m.Nonce, c.Nonce},
			{"issued at", m.IssuedAt.Format(time.RFC3339), c.IssuedAt.Format(time.RFC3339)},
			{"expiration time", m.ExpirationTime.Format(time.RFC3339), c.ExpiresAt.Format(time.RFC3339)},
			{"statement", m.Statement, "Test bot asks you to prove you own this wallet, to link it to the Discord member 'alice' (123456) " +
				"in 'Test Guild'. Signing is free and sends no transaction."},
			{"request id", m.RequestID, ""},
		}
		for _, tt := range terms {
			if tt.got != tt.want {
				t.Errorf("challenge %s = %q, want %q", tt.term, tt.got, tt.want)
			}
		}
		if !m.NotBefore.IsZero() || m.Resources != nil {
			t.Errorf("challenge has not-before %v, resources %v, want none", m.NotBefore, m.Resources)
		}
		if ens := mustLinkIn(t, s, alice, "Test Guild", "alice.eth"); core.IsSIWE(ens.Message) || !strings.Contains(ens.Message, "Wallet: alice.eth") {
			t.Errorf("ENS challenge =\n%s\nwant the plain message: EIP-4361 needs the address, unknown before it signs", ens.Message)
		}
	})
}

// TestWalletService_Link_SIWEHostileName: a display name cannot break
// the statement: it stays one line of EIP-4361's characters.
func TestWalletService_Link_SIWEHostileName(t *testing.T) {
	t.Parallel()
	siweServices(t, func(t *testing.T, s, _ *core.WalletService, _ *coretest.Clock) {
		mallory := core.Member{Platform: core.Telegram, ExternalID: "42",
			Name: "Bob\u202e'\n\nURI: https://evil.example \"é\" " + strings.Repeat("x", 200)}
		c := mustLinkIn(t, s, mallory, "Grüße\x00\u2028group", coretest.TestAddress)
		m, err := core.ParseSIWE(c.Message)
		if err != nil {
			t.Fatalf("ParseSIWE(challenge) = %v\n%s", err, c.Message)
		}
		want := "Test bot asks you to prove you own this wallet, to link it to the Telegram member " +
			"'Bob? URI: https://evil.example ? " + strings.Repeat("x", 29) + "' (42) in 'Gr?e group'. " +
			"Signing is free and sends no transaction."
		if m.Statement != want || m.URI != core.VerificationURL(siweURL, c.Nonce) {
			t.Errorf("statement = %q, URI %q\nwant %q", m.Statement, m.URI, want)
		}
	})
}

// TestWalletService_Verify_SIWE: the signature of the EIP-4361 message
// verifies, by /verify and by the page; the detection of an earlier
// message and of an altered copy holds for it.
func TestWalletService_Verify_SIWE(t *testing.T) {
	t.Parallel()
	siweServices(t, func(t *testing.T, s, _ *core.WalletService, _ *coretest.Clock) {
		earlier := mustLinkIn(t, s, alice, "", coretest.OtherAddress)
		c := mustLinkIn(t, s, alice, "", coretest.TestAddress)
		if _, err := s.Verify(t.Context(), alice, coretest.Sign(coretest.OtherKey, earlier.Message)); !errors.Is(err, core.ErrSignatureOldMessage) {
			t.Errorf("Verify(earlier message) = %v, want ErrSignatureOldMessage", err)
		}
		crlf := strings.ReplaceAll(c.Message, "\n", "\r\n")
		if _, err := s.Verify(t.Context(), alice, coretest.Sign(coretest.TestKey, crlf)); !errors.Is(err, core.ErrSignatureAltered) {
			t.Errorf("Verify(CRLF copy) = %v, want ErrSignatureAltered", err)
		}
		if w, err := s.Verify(t.Context(), alice, coretest.Sign(coretest.TestKey, c.Message)); err != nil || w.Address != coretest.TestAddress {
			t.Errorf("Verify(SIWE) = %+v, %v, want %s verified", w, err, coretest.TestAddress)
		}
		w, err := s.VerifyMessage(t.Context(), earlier.Nonce, earlier.Message, coretest.Sign(coretest.OtherKey, earlier.Message))
		if err != nil || w.Address != coretest.OtherAddress {
			t.Errorf("VerifyMessage(SIWE) = %+v, %v, want %s verified", w, err, coretest.OtherAddress)
		}
	})
}

// TestWalletService_VerifyMessage_Altered: a posted message that differs
// from the challenge's in one term is refused with that term's error,
// even signed by the wallet, and costs the challenge nothing.
func TestWalletService_VerifyMessage_Altered(t *testing.T) {
	t.Parallel()
	siweServices(t, func(t *testing.T, s, _ *core.WalletService, _ *coretest.Clock) {
		c := mustLinkIn(t, s, alice, "", coretest.TestAddress)
		later := c.ExpiresAt.Add(time.Hour).Format(time.RFC3339)
		tests := []struct {
			name, old, new string
			want           error
		}{
			{"Domain", "bot.example.org:8443 wants", "bot.example.org.evil.example wants", core.ErrMessageDomain},
			{"Scheme", "bot.example.org:8443 wants", "https://bot.example.org:8443 wants", core.ErrMessageDomain},
			{"URI", "URI: " + siweURL + "/verify/", "URI: https://evil.example/verify/", core.ErrMessageURI},
			{"Address", core.ChecksumAddress(coretest.TestAddress), core.ChecksumAddress(coretest.OtherAddress), core.ErrMessageAddress},
			{"Nonce", "Nonce: " + c.Nonce, "Nonce: 0123456789abcdef", core.ErrMessageNonce},
			{"ChainID", "Chain ID: 1", "Chain ID: 137", core.ErrMessageChain},
			{"Expiration", "Expiration Time: " + c.ExpiresAt.Format(time.RFC3339), "Expiration Time: " + later, core.ErrMessageTime},
			{"IssuedAt", "Issued At: " + c.IssuedAt.Format(time.RFC3339), "Issued At: " + later, core.ErrMessageTime},
			{"Statement", "Test bot asks", "Evil bot asks", core.ErrMessageChanged},
			{"Malformed", "Version: 1", "Version: 2", core.ErrMessageMalformed},
		}
		for _, tt := range tests {
			msg := strings.Replace(c.Message, tt.old, tt.new, 1)
			if msg == c.Message {
				t.Fatalf("%s: %q is not in the message", tt.name, tt.old)
			}
			_, err := s.VerifyMessage(t.Context(), c.Nonce, msg, coretest.Sign(coretest.TestKey, msg))
			if !errors.Is(err, tt.want) {
				t.Errorf("VerifyMessage(%s altered) = %v, want %v", tt.name, err, tt.want)
			}
		}
		if got, err := s.Challenge(t.Context(), c.Nonce); err != nil || got.WrongSignatures != 0 {
			t.Errorf("Challenge() = %d wrong signatures, %v, want 0", got.WrongSignatures, err)
		}
		if _, err := s.VerifyMessage(t.Context(), c.Nonce, c.Message, coretest.Sign(coretest.TestKey, c.Message)); err != nil {
			t.Errorf("VerifyMessage(the challenge's message) = %v, want verified", err)
		}
	})
}

// TestWalletService_Verify_SIWEStoredChecked: the stored message is held
// to the site and the clock too: after PUBLIC_URL moved, its challenges
// are refused for their domain; one issued in the future (beyond the
// skew allowed between replicas' clocks) for its time.
func TestWalletService_Verify_SIWEStoredChecked(t *testing.T) {
	t.Parallel()
	siweServices(t, func(t *testing.T, s, moved *core.WalletService, clock *coretest.Clock) {
		c := mustLinkIn(t, s, alice, "", coretest.TestAddress)
		sig := coretest.Sign(coretest.TestKey, c.Message)
		var msgErr *core.MessageError
		if _, err := moved.Verify(t.Context(), alice, sig); !errors.As(err, &msgErr) || !errors.Is(err, core.ErrMessageDomain) || msgErr.Term != "domain" {
			t.Errorf("Verify(after PUBLIC_URL moved) = %v, want a MessageError for the domain", err)
		}
		clock.Add(-2 * time.Minute)
		if _, err := s.Verify(t.Context(), alice, sig); !errors.Is(err, core.ErrMessageTime) {
			t.Errorf("Verify(issued 2 minutes ahead of the clock) = %v, want ErrMessageTime", err)
		}
		clock.Add(2 * time.Minute)
		if _, err := s.Verify(t.Context(), alice, sig); err != nil {
			t.Errorf("Verify(on time) = %v, want verified", err)
		}
	})
}

func TestNewWalletService_PublicURL(t *testing.T) {
	db, err := storage.Open(t.Context(), migrated.SQLiteURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, u := range []string{"bot.example.org", "https://", "https://bot example.org"} {
		if _, err := core.NewWalletService(core.WalletServiceDeps{Members: db, Wallets: db, PublicURL: u}); err == nil {
			t.Errorf("NewWalletService(PublicURL %q) = nil error, want one", u)
		}
	}
	if _, err := core.NewWalletService(core.WalletServiceDeps{Members: db, Wallets: db, PublicURL: siweURL, ChainID: -1}); err == nil {
		t.Error("NewWalletService(ChainID -1) = nil error, want one")
	}
}
