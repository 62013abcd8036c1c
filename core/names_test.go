package core_test

import (
	"strings"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

func TestStripDirectionControls(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Ann", "Ann"},
		{"evil\u202Egnp.exe", "evilgnp.exe"},
		{"\u202A\u202B\u202C\u202D\u202Ex", "x"},
		{"\u2066a\u2067b\u2068c\u2069", "abc"},
		{"\u200Eשלום\u200F \u061Cمرحبا", "שלום مرحبا"},
		// Joiners and other format characters stay: they are no
		// direction controls, and emoji need them.
		{"👩\u200D💻 Dev", "👩\u200D💻 Dev"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := core.StripDirectionControls(tt.in); got != tt.want {
			t.Errorf("StripDirectionControls(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestChallenge_NameWithoutDirectionControls: a member name with an
// override reaches the signed message without it, even when the caller
// did not clean it.
func TestChallenge_NameWithoutDirectionControls(t *testing.T) {
	eachService(t, func(t *testing.T, s *core.WalletService, _ *coretest.Clock) {
		m := core.Member{Platform: core.Telegram, ExternalID: "4242", Name: "Ann\u202Egnp.exe\u2066 \u200F"}
		msg := mustLink(t, s, m, coretest.TestAddress).Message
		if !strings.Contains(msg, "Member: Anngnp.exe (4242)\n") {
			t.Errorf("challenge message lacks the cleaned name:\n%s", msg)
		}
		if strings.ContainsFunc(msg, core.IsDirectionControl) {
			t.Errorf("challenge message holds a direction control: %q", msg)
		}
	})
}
