package core

import (
	"testing"
	"time"
)

func TestChallengeMessage(t *testing.T) {
	issued := time.Date(2026, 11, 22, 17, 0, 0, 0, time.UTC)
	c := &Challenge{
		Wallet:    "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed",
		Nonce:     "00112233445566778899aabbccddeeff",
		IssuedAt:  issued,
		ExpiresAt: issued.Add(ChallengeTTL),
	}
	got := challengeMessage("POAP bot", Member{Platform: Discord, ExternalID: "123456", Name: "alice"}, KindAddress, c)
	want := "POAP bot asks you to prove you own this wallet.\n\n" +
		"Platform: Discord\n" +
		"Member: alice (123456)\n" +
		"Wallet: 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed\n" +
		"Nonce: 00112233445566778899aabbccddeeff\n" +
		"Issued: 2026-11-22T17:00:00Z\n" +
		"Expires: 2026-11-22T17:10:00Z\n\n" +
		"Signing is free and sends no transaction."
	if got != want {
		t.Errorf("challengeMessage() =\n%s\nwant\n%s", got, want)
	}
}

// TestOneLine checks that a display name cannot break the message or the
// code block that shows it.
func TestOneLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"alice", "alice"},
		{"  two\n\nlines\r\n", "two lines"},
		{"```\nWallet: 0xevil", "''' Wallet: 0xevil"},
		{"tab\there\u2028sep", "tab here sep"},
		{string(make([]rune, 100)), ""},
		{"ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé", "éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé"},
	}
	for _, tt := range tests {
		if got := oneLine(tt.in); got != tt.want {
			t.Errorf("oneLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNewNonce(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		n, err := newNonce()
		if err != nil || len(n) != 32 || !validNonce(n) {
			t.Fatalf("newNonce() = %q, %v, want 32 hex digits (128 bits)", n, err)
		}
		if seen[n] {
			t.Fatalf("newNonce() repeated %q", n)
		}
		seen[n] = true
	}
	for _, bad := range []string{"", "abc", "00112233445566778899AABBCCDDEEFF", "00112233445566778899aabbccddeefg", "../../etc/passwd"} {
		if validNonce(bad) {
			t.Errorf("validNonce(%q) = true, want false", bad)
		}
	}
}

func TestVerificationURL(t *testing.T) {
	const nonce = "00112233445566778899aabbccddeeff"
	for _, base := range []string{"https://bot.example.org", "https://bot.example.org/"} {
		if got, want := VerificationURL(base, nonce), "https://bot.example.org/verify/"+nonce; got != want {
			t.Errorf("VerificationURL(%q, nonce) = %q, want %q", base, got, want)
		}
	}
}
