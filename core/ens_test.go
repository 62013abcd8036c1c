package core_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/storage"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

// ensVector is one of ENSIP-15's validation vectors: a name, and either
// its normalised form (Norm, or Name itself when Norm is empty) or Error.
type ensVector struct {
	Name    string `json:"name"`
	Norm    string `json:"norm"`
	Error   bool   `json:"error"`
	Comment string `json:"comment"`
	Version string `json:"version"`
}

func readENSVectors(t *testing.T) []ensVector {
	t.Helper()
	b, err := os.ReadFile("testdata/ensip15/tests.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []ensVector
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatal(err)
	}
	if len(vs) == 0 || vs[0].Name != "version" || vs[0].Version != "1.11.0" {
		t.Fatalf("testdata/ensip15/tests.json: want the vectors of ENSIP-15 1.11.0, which the pinned normaliser implements")
	}
	return vs[1:]
}

// TestParseWallet_ENSIP15Vectors: ParseWallet agrees with every one of
// ENSIP-15's validation vectors (testdata/ensip15): a valid name is linked
// as its normalised form, an invalid one is refused.
//
// Most vectors are a single label without a dot ("vitalik"), which by our
// rules is no ENS name (a member types name.eth). Each such vector is run
// twice: as typed, where it must go the address or e-mail way (linked as
// one of those, or refused) and never become an ENS name; and with ".eth"
// after it, where it must agree with ENSIP-15. ENSIP-15 judges each label
// on its own, so adding the valid label "eth" changes neither the verdict
// nor the normalised label. The exceptions, by our rules, are explicit:
//   - the empty name, which ENSIP-15 allows (the root), is "it is empty";
//   - white space around a name is trimmed before anything else, so a
//     vector refused for a space at its start or end is judged as the
//     trimmed name is (a space inside a name is still refused);
//   - a name with an @ is an e-mail address (ENSIP-15 refuses every one);
//   - 0x and 40 more characters are an address, even with a dot in them;
//   - a normalised name longer than core.MaxENSLen is refused.
func TestParseWallet_ENSIP15Vectors(t *testing.T) {
	var n struct{ agreed, dotless, empty, trimmed, email, address, long int }
	for _, v := range readENSVectors(t) {
		probe, suffix := v.Name, ""
		if v.Name == "" {
			n.empty++
			if _, _, err := core.ParseWallet(""); !errors.Is(err, core.ErrInvalidWallet) {
				t.Errorf("ParseWallet(%q) error = %v, want ErrInvalidWallet", "", err)
			}
			continue
		}
		if !strings.Contains(v.Name, ".") {
			n.dotless++
			if kind, value, err := core.ParseWallet(v.Name); kind == core.KindENS {
				t.Errorf("ParseWallet(%+q) = %s %+q, %v, want no ENS name without a dot", v.Name, kind, value, err)
			}
			probe, suffix = v.Name+".eth", ".eth"
		}
		kind, value, err := core.ParseWallet(probe)
		want := v.Name + suffix
		if v.Norm != "" {
			want = v.Norm + suffix
		}
		switch trimmed := strings.TrimSpace(probe); {
		case trimmed != probe:
			n.trimmed++
			kind2, value2, err2 := core.ParseWallet(trimmed)
			if kind != kind2 || value != value2 || (err == nil) != (err2 == nil) || !v.Error {
				t.Errorf("ParseWallet(%+q) = %s %+q, %v, want as ParseWallet(%+q) = %s %+q, %v (vector %s)", probe, kind, value, err, trimmed, kind2, value2, err2, v.Comment)
			}
		case strings.Contains(probe, "@"):
			n.email++
			if kind == core.KindENS || !v.Error {
				t.Errorf("ParseWallet(%+q) = %s %+q, %v, want the e-mail way, never an ENS name (vector %s)", probe, kind, value, err, v.Comment)
			}
		case len(probe) == 42 && strings.HasPrefix(strings.ToLower(probe), "0x"):
			n.address++
			if kind == core.KindENS {
				t.Errorf("ParseWallet(%+q) = %s %+q, %v, want the address way (vector %s)", probe, kind, value, err, v.Comment)
			}
		case !v.Error && utf8.RuneCountInString(want) > core.MaxENSLen:
			n.long++
			if !errors.Is(err, core.ErrInvalidWallet) {
				t.Errorf("ParseWallet(%+q) = %s %+q, %v, want refused: over %d characters", probe, kind, value, err, core.MaxENSLen)
			}
		case v.Error:
			n.agreed++
			var werr *core.WalletError
			if !errors.As(err, &werr) || werr.Reason == "" {
				t.Errorf("ParseWallet(%+q) = %s %+q, %v, want refused with a reason (vector %s)", probe, kind, value, err, v.Comment)
			}
		default:
			n.agreed++
			if err != nil || kind != core.KindENS || value != want {
				t.Errorf("ParseWallet(%+q) = %s %+q, %v, want ens %+q (vector %s)", probe, kind, value, err, want, v.Comment)
			}
		}
	}
	t.Logf("agreed %d; %d without a dot, run with .eth; by our rules: %d empty, %d trimmed, %d e-mail, %d address, %d over %d characters",
		n.agreed, n.dotless, n.empty, n.trimmed, n.email, n.address, n.long, core.MaxENSLen)
}

// TestParseWallet_ENSReasons: a refused ENS name says why in words a
// member reads (the reply puts the reason after "That wallet doesn't look
// right: ").
func TestParseWallet_ENSReasons(t *testing.T) {
	tests := []struct{ in, want string }{
		{"vıtalik.eth", "the name contains a character ENS does not allow: U+0131"},
		{"⠁⠃.eth", "the name contains a character ENS does not allow: U+2801"},
		{"a b.eth", "the name contains a space, which ENS does not allow"},
		{"Vitalik．ETH", "the name contains a character ENS does not allow: U+FF0E; separate the parts of a name with a plain full stop (.)"},
		{"vit\u202ealik.eth", "the name contains a character ENS does not allow: U+202E"},
		{"vіtalik.eth", "the name mixes Latin and Cyrillic (U+0456), as look-alike names do"},
		{"abc١.eth", "the name mixes Latin and Arabic (U+0661), as look-alike names do"},
		{"ѕсоре.eth", "the name looks like another script (whole-script confusable): its Cyrillic letters can pass for Latin"},
		{"vitalik..eth", "a part of the name is empty (two dots in a row, or a dot at the start or end)"},
		{"a_b.eth", "an underscore is allowed only at the start of a part of the name"},
		{"xn--80ak6aa92e.eth", "a part of the name has hyphens in its third and fourth place (as in xn--), which ENS does not allow"},
		{"'a.eth", "a part of the name starts with a punctuation mark ENS does not allow there (apostrophe)"},
		{"a'.eth", "a part of the name ends with a punctuation mark ENS does not allow there (apostrophe)"},
		{"a''b.eth", "the name has two punctuation marks in a row (apostrophe + apostrophe)"},
		{"\u0303a.eth", "a part of the name starts with a combining mark (U+0303)"},
		{"😀\u0303.eth", "a combining mark follows an emoji (U+0303)"},
		{"０x" + strings.Repeat("a", 36) + ".eth", "once normalised this name has the shape of a 0x address (42 characters), and ENS names here do not"},
		{strings.Repeat("㌖", 50) + ".eth", "an ENS name here is at most 255 characters once normalised, and this one has 304"},
	}
	for _, tt := range tests {
		_, _, err := core.ParseWallet(tt.in)
		var werr *core.WalletError
		if !errors.As(err, &werr) || werr.Reason != tt.want {
			t.Errorf("ParseWallet(%+q) error = %v, want a *WalletError with reason %q", tt.in, err, tt.want)
		}
	}
}

// TestWalletService_Unlink_EarlierRules: a name linked before ENSIP-15
// (stored as the earlier rules left it) is unlinked by the name /wallet
// shows, whether ENSIP-15 now refuses it or maps it to another name; a
// name that is neither linked nor valid is still refused with its reason.
func TestWalletService_Unlink_EarlierRules(t *testing.T) {
	t.Parallel()
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		db, err := storage.Open(t.Context(), newURL())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		s, err := core.NewWalletService(core.WalletServiceDeps{Members: db, Wallets: db, BotName: "Test bot",
			Clock: coretest.NewClock(time.Date(2026, 11, 22, 17, 0, 0, 0, time.UTC))})
		if err != nil {
			t.Fatal(err)
		}
		mustLink(t, s, alice, "alice.eth")
		user, err := db.FindUser(t.Context(), alice.Platform, alice.ExternalID)
		if err != nil {
			t.Fatal(err)
		}
		for _, old := range []string{"vıtalik.eth", "a–b.eth"} {
			if _, err := db.AddWallet(t.Context(), core.Wallet{UserID: user.ID, Kind: core.KindENS, Value: old}); err != nil {
				t.Fatal(err)
			}
		}
		_, err = s.Unlink(t.Context(), alice, "vıtalik2.eth")
		var werr *core.WalletError
		if !errors.As(err, &werr) {
			t.Errorf("Unlink(vıtalik2.eth) = %v, want a *WalletError", err)
		}
		for _, old := range []string{"vıtalik.eth", " a–b.eth "} {
			u, err := s.Unlink(t.Context(), alice, old)
			if err != nil || len(u.Removed) != 1 || u.Removed[0].Value != strings.TrimSpace(old) {
				t.Errorf("Unlink(%q) = %+v, %v, want it removed", old, u, err)
			}
		}
		ws, err := s.Wallets(t.Context(), alice)
		if err != nil || len(ws) != 1 || ws[0].Value != "alice.eth" {
			t.Errorf("Wallets() = %+v, %v, want alice.eth alone", ws, err)
		}
	})
}
