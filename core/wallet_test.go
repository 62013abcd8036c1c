package core_test

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"unicode"

	"github.com/poapbot/poapbot/core"
)

func TestParseWallet(t *testing.T) {
	tests := []struct {
		in        string
		wantKind  core.WalletKind
		wantValue string
	}{
		// EIP-55 vectors from the ERC-55 text.
		{"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", core.KindAddress, "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"},
		{"0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", core.KindAddress, "0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359"},
		{"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB", core.KindAddress, "0xdbf03b407c01e7cd3cbea99509d93f8dddc8c6fb"},
		{"0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb", core.KindAddress, "0xd1220a0cf47c7b9be7a2e6ba89f429762e7b9adb"},
		{"0x52908400098527886E0F7030069857D2E4169EE7", core.KindAddress, "0x52908400098527886e0f7030069857d2e4169ee7"},
		{"0xde709f2102306220921060314715629080e2fb77", core.KindAddress, "0xde709f2102306220921060314715629080e2fb77"},
		{"  0x27b1fdb04752bbc536007a920d24acb045561c26 ", core.KindAddress, "0x27b1fdb04752bbc536007a920d24acb045561c26"},
		{"Vitalik.ETH", core.KindENS, "vitalik.eth"},
		{"sub.name-1.eth", core.KindENS, "sub.name-1.eth"},
		// Normalised by ENSIP-15: full-width letters, case, the en dash,
		// the capital sharp s; ignored characters dropped.
		{"ｖｉｔａｌｉｋ.eth", core.KindENS, "vitalik.eth"},
		{"a–b.eth", core.KindENS, "a-b.eth"},
		{"STRAẞE.eth", core.KindENS, "straße.eth"},
		{"vit\u00adalik.eth", core.KindENS, "vitalik.eth"},
		{"\ufeffvitalik\u200b.eth", core.KindENS, "vitalik.eth"},
		{"_dao.eth", core.KindENS, "_dao.eth"},
		{"straße.eth", core.KindENS, "straße.eth"},
		{"😀.eth", core.KindENS, "😀.eth"},
		{"👨\u200d👩\u200d👧.eth", core.KindENS, "👨\u200d👩\u200d👧.eth"},
		{"1️⃣2️⃣.eth", core.KindENS, "1⃣2⃣.eth"},
		{"$.eth", core.KindENS, "$.eth"},
		{"١٢٣.eth", core.KindENS, "١٢٣.eth"},
		{"-alice.eth", core.KindENS, "-alice.eth"},
		{strings.Repeat("a", 64) + ".eth", core.KindENS, strings.Repeat("a", 64) + ".eth"},
		// 0x with a dot is a name unless it is 42 characters long.
		{"0x.eth", core.KindENS, "0x.eth"},
		{"0x-20.eth", core.KindENS, "0x-20.eth"},
		{" 0X.ETH ", core.KindENS, "0x.eth"},
		{"Alice@Example.org", core.KindEmail, "alice@example.org"},
		{"a.b+poap@mail.example.co.uk", core.KindEmail, "a.b+poap@mail.example.co.uk"},
	}
	for _, tt := range tests {
		kind, value, err := core.ParseWallet(tt.in)
		if err != nil || kind != tt.wantKind || value != tt.wantValue {
			t.Errorf("ParseWallet(%q) = %q, %q, %v, want %q, %q, nil", tt.in, kind, value, err, tt.wantKind, tt.wantValue)
		}
	}
}

func TestParseWallet_Invalid(t *testing.T) {
	for _, in := range []string{
		"",
		"0x12",
		"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD", // one flipped letter: bad checksum
		"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaez", // not hex
		"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed00",
		"vitalik",
		"vitalik..eth",
		"bad_name.eth",
		"0x5aaeb6053f3e94c9b9a09f33669435e7ef1b.eth", // 42 characters: a mistyped address
		"alice@",
		"alice@localhost",
		"Alice <alice@example.org>",
		// Look-alikes ENSIP-15 refuses: a dotless ı, small capitals, Braille,
		// a joiner outside an emoji, direction-reversing marks, ACE labels,
		// mixed scripts (a Cyrillic і, a Greek ο among Latin letters), a
		// whole-script confusable (Cyrillic ѕсоре), a full-width stop.
		"vıtalik.eth", "ᴠɪᴛᴀʟɪᴋ.eth", "⠧⠊⠞⠁⠇⠊⠅.eth", "vit\u200dalik.eth",
		"vit\u202ealik.eth", "xn--80ak6aa92e.eth", "ab--c.eth", "a_b.eth",
		"v\u0456talik.eth", "p\u03bfap.eth", "ѕсоре.eth", "Vitalik．ETH",
		strings.Repeat("a", 243) + "@example.org", // 255 octets: over SMTP's 254
		"al\xffice@example.org",                   // not UTF-8
		"\ufffd\ufffd@example.org",                // bytes that were not UTF-8, decoded from JSON
		"\ufffd.eth",
	} {
		_, _, err := core.ParseWallet(in)
		var werr *core.WalletError
		if !errors.Is(err, core.ErrInvalidWallet) || !errors.As(err, &werr) || werr.Reason == "" {
			t.Errorf("ParseWallet(%q) error = %v, want a *WalletError matching ErrInvalidWallet", in, err)
		}
	}
}

func TestChecksumAddress(t *testing.T) {
	const want = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
	if got := core.ChecksumAddress("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"); got != want {
		t.Errorf("ChecksumAddress() = %s, want %s", got, want)
	}
}

func TestSecret_Redacts(t *testing.T) {
	s := core.Secret("hunter2")
	for _, got := range []string{s.String(), s.GoString()} {
		if got != "[redacted]" {
			t.Errorf("Secret printed as %q, want [redacted]", got)
		}
	}
	b, _ := s.MarshalJSON()
	if string(b) != `"[redacted]"` {
		t.Errorf("Secret.MarshalJSON() = %s, want \"[redacted]\"", b)
	}
	if s.Reveal() != "hunter2" {
		t.Errorf("Secret.Reveal() = %q, want hunter2", s.Reveal())
	}
}

func TestSecret_RedactsInStructsAndLogs(t *testing.T) {
	cfg := struct {
		Name  string
		Token core.Secret
	}{"bot", "hunter2"}
	var buf strings.Builder
	fmt.Fprintf(&buf, "%v %+v %#v ", cfg, cfg, cfg)
	slog.New(slog.NewTextHandler(&buf, nil)).Info("cfg", "token", cfg.Token, "cfg", cfg)
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("cfg", "token", cfg.Token, "cfg", cfg)
	if strings.Contains(buf.String(), "hunter2") {
		t.Errorf("secret leaked: %s", buf.String())
	}
}

// FuzzParseWallet: whatever is typed, ParseWallet does not panic, and what
// it accepts is normalised: parsing the value again gives the same kind
// and value, and it carries no control character and no invisible one but
// those of emoji sequences in an ENS name (U+200D joining emoji, tag
// characters spelling a subdivision flag).
// go test -run '^$' -fuzz FuzzParseWallet -fuzztime 60s ./core/
func FuzzParseWallet(f *testing.F) {
	for _, s := range []string{
		"vitalik.eth", "Vitalik.ETH", "ｖｉｔａｌｉｋ.eth", "vitalik\u200b.eth", "vit\u202ealik.eth", "_dao.eth",
		"xn--80ak6aa92e.eth", "😀.eth", "straße.eth", "alice@example.org", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
		"0x12", "a@b", "", "a..b", "ﬀ.eth", "Ⅻ.eth", "a\u0301.eth", "0x.eth", "👨\u200d👩\u200d👧.eth", "1️⃣.eth", "０x" + strings.Repeat("a", 36) + ".eth",
		"ѕсоре.eth", "a\u0300\u0300.eth", "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f.eth",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		kind, value, err := core.ParseWallet(in)
		if err != nil {
			if !errors.Is(err, core.ErrInvalidWallet) {
				t.Fatalf("ParseWallet(%q) error = %v, want ErrInvalidWallet", in, err)
			}
			return
		}
		for _, r := range value {
			emoji := kind == core.KindENS && (r == 0x200d || r >= 0xe0020 && r <= 0xe007f)
			if unicode.Is(unicode.Cf, r) && !emoji || unicode.IsControl(r) {
				t.Fatalf("ParseWallet(%q) = %q, which has the invisible U+%04X", in, value, r)
			}
		}
		kind2, value2, err := core.ParseWallet(value)
		if err != nil || kind2 != kind || value2 != value {
			t.Fatalf("ParseWallet(%q) = %s %q, but that parses as %s %q, %v: not normalised", in, kind, value, kind2, value2, err)
		}
	})
}
