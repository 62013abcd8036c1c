package core

import (
	"encoding/hex"
	"fmt"
	"net/mail"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/crypto/sha3"
	"golang.org/x/net/idna"
)

// WalletKind says what a linked wallet identifier is.
type WalletKind string

// The kinds of wallet identifier a member can link.
const (
	KindAddress WalletKind = "address"
	KindENS     WalletKind = "ens"
	KindEmail   WalletKind = "email"
)

// Wallet is a wallet identifier linked to a user. Value is canonical: a
// lower-case 0x address, a lower-case ENS name or a lower-case e-mail.
// Address is the 0x address proven by signature (for an ENS name, the
// recovered address); it is empty until verified, and for e-mails.
type Wallet struct {
	ID         int64
	UserID     int64
	Platform   Platform
	Kind       WalletKind
	Value      string
	Address    string
	VerifiedAt *time.Time
	Primary    bool
	CreatedAt  time.Time
	// VerifiedChain is the chain id on which a smart-contract wallet's
	// contract accepted the signature, on the wallet Verify returns; zero
	// when a key signed, and on wallets read back (it is not stored).
	VerifiedChain int64
}

// Verified reports whether ownership of the wallet was proven by signature.
func (w Wallet) Verified() bool { return w.VerifiedAt != nil }

// ParseWallet reads a wallet identifier typed by a member: a 0x address
// (mixed case must carry a valid EIP-55 checksum), an ENS name or an e-mail
// address. It returns the kind and the canonical, lower-case value, or a
// *WalletError (matching ErrInvalidWallet) that says what is wrong.
func ParseWallet(input string) (WalletKind, string, error) {
	s := strings.TrimSpace(input)
	switch {
	case s == "":
		return "", "", &WalletError{Input: input, Reason: "it is empty"}
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		addr, err := ParseAddress(s)
		if err != nil {
			return "", "", err
		}
		return KindAddress, addr, nil
	case strings.Contains(s, "@"):
		email, err := parseEmail(s)
		if err != nil {
			return "", "", err
		}
		return KindEmail, email, nil
	case strings.ContainsAny(s, ensDots):
		name, err := parseENS(s)
		if err != nil {
			return "", "", err
		}
		return KindENS, name, nil
	}
	return "", "", &WalletError{Input: input, Reason: "it is not a 0x address, an ENS name (like name.eth) or an e-mail address"}
}

// ParseAddress checks a 0x address and returns it in lower case. An address
// in mixed case must pass the EIP-55 checksum; all-lower and all-upper hex
// carry no checksum and are accepted.
func ParseAddress(s string) (string, error) {
	if len(s) < 2 || (s[:2] != "0x" && s[:2] != "0X") {
		return "", &WalletError{Input: s, Reason: "an address starts with 0x"}
	}
	digits := s[2:]
	if len(digits) != 40 {
		return "", &WalletError{Input: s, Reason: "an address has 40 hex digits after 0x, this one has " + strconv.Itoa(len(digits))}
	}
	if _, err := hex.DecodeString(digits); err != nil {
		return "", &WalletError{Input: s, Reason: "an address has only the hex digits 0-9 and a-f after 0x"}
	}
	lower := strings.ToLower(digits)
	if digits != lower && digits != strings.ToUpper(digits) && checksum(lower) != digits {
		return "", &WalletError{Input: s, Reason: "the mixed-case checksum (EIP-55) does not match: check for a typo, or paste it all in lower case"}
	}
	return "0x" + lower, nil
}

// ChecksumAddress returns the EIP-55 form of a valid 0x address.
func ChecksumAddress(addr string) string {
	return "0x" + checksum(strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(addr, "0x"), "0X")))
}

// checksum applies EIP-55 to 40 lower-case hex digits.
func checksum(lower string) string {
	h := sha3.NewLegacyKeccak256()
	h.Write([]byte(lower))
	sum := h.Sum(nil)
	out := []byte(lower)
	for i, c := range out {
		if c < 'a' {
			continue
		}
		nibble := sum[i/2]
		if i%2 == 0 {
			nibble >>= 4
		}
		if nibble&0x0f >= 8 {
			out[i] = c - 'a' + 'A'
		}
	}
	return string(out)
}

// ensProfile normalises ENS names as UTS #46 does, which ENSIP-15 builds
// on: case folded, full-width and compatibility forms mapped (ｖｉｔａｌｉｋ
// is vitalik), NFC, the bidi rule and the joiner rules checked, labels with
// hyphens in the third and fourth place refused.
var ensProfile = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.BidiRule(),
	idna.CheckJoiners(true), idna.CheckHyphens(true), idna.StrictDomainName(false))

// ensDots are the full stops UTS #46 maps to ".": a name typed with one of
// them is an ENS name too.
const ensDots = ".\uFF0E\u3002\uFF61"

// parseENS normalises an ENS name and checks it, or says why it is refused:
// invisible characters (zero-width spaces and joiners, direction marks, the
// soft hyphen) are refused rather than dropped, so that a name that reads
// like another is never linked as a third; characters ENS does not allow,
// empty parts, parts over 63 bytes, hyphens at the ends of a part, an
// underscore anywhere but at the start of a part, ACE ("xn--") parts and a
// name without a suffix are refused too. The name returned is the
// normalised one, which is what is stored and shown.
//
// ENSIP-15 refines UTS #46 with its own tables (emoji sequences, whole-script
// confusables); the maintained implementation of them for Go is not
// available to this build, so emoji joined by U+200D and mixed-script
// look-alikes that UTS #46 allows are not told apart here.
func parseENS(s string) (string, error) {
	if len(s) > 255 {
		return "", &WalletError{Input: s, Reason: "an ENS name is at most 255 characters"}
	}
	for _, r := range s {
		if unicode.Is(unicode.Cf, r) || unicode.IsControl(r) {
			return "", &WalletError{Input: s, Reason: fmt.Sprintf("an ENS name has no invisible characters, and this one has U+%04X", r)}
		}
	}
	for _, l := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(ensDots, r) }) {
		if err := checkHyphens(l); err != "" {
			return "", &WalletError{Input: s, Reason: err}
		}
	}
	name, err := ensProfile.ToUnicode(s)
	if err != nil {
		return "", &WalletError{Input: s, Reason: "this is not a valid ENS name: it has characters ENS does not allow"}
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if err := checkLabel(l); err != "" {
			return "", &WalletError{Input: s, Reason: err}
		}
	}
	if len(labels) < 2 {
		return "", &WalletError{Input: s, Reason: "an ENS name ends in a suffix such as .eth"}
	}
	return name, nil
}

// checkHyphens says what is wrong with the hyphens of a label as typed,
// before normalisation would refuse it with a less precise reason, or "".
func checkHyphens(l string) string {
	switch {
	case strings.HasPrefix(l, "-") || strings.HasSuffix(l, "-"):
		return "a part of an ENS name does not start or end with a hyphen"
	case len(l) >= 4 && l[2:4] == "--":
		return "a part of an ENS name has no hyphens in its third and fourth place (as in xn--)"
	}
	return ""
}

// mixesScripts reports whether a label has letters of more than one of the
// Latin, Cyrillic and Greek scripts, whose look-alike letters (a Cyrillic і
// in vіtalik) make one name pass for another.
func mixesScripts(l string) bool {
	seen := 0
	for i, script := range []*unicode.RangeTable{unicode.Latin, unicode.Cyrillic, unicode.Greek} {
		if strings.ContainsFunc(l, func(r rune) bool { return unicode.Is(script, r) }) {
			seen |= 1 << i
		}
	}
	return seen&(seen-1) != 0
}

// checkLabel says what is wrong with one normalised label of an ENS name,
// or "".
func checkLabel(l string) string {
	switch {
	case l == "":
		return "an ENS name has no empty parts between dots"
	case len(l) > 63:
		return "each part of an ENS name is at most 63 characters"
	case checkHyphens(l) != "":
		return checkHyphens(l)
	}
	if mixesScripts(l) {
		return "a part of an ENS name mixes Latin letters with Cyrillic or Greek ones, as look-alike names do"
	}
	lead := true
	for _, r := range l {
		switch {
		case r == '_' && lead:
			continue
		case r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 0x7f && r != 0xfffd:
			lead = false
			continue
		}
		return "an ENS name has only letters, digits, hyphens and dots (and underscores at the start of a part)"
	}
	return ""
}

// MaxEmailLen is the longest e-mail address a member can link: the 254
// octets of a path in SMTP (RFC 5321, 4.5.3.1.3).
const MaxEmailLen = 254

// parseEmail checks an e-mail address: valid UTF-8 without invisible
// characters, at most MaxEmailLen octets, one plain addr-spec, no display
// name, a domain with a dot. U+FFFD is refused too: it is what a decoder
// puts for bytes that were not UTF-8 (Telegram's and Discord's JSON reach
// the bot decoded so), and mints sent to it would go to an address nobody
// typed.
func parseEmail(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", &WalletError{Input: s, Reason: "this is not a valid e-mail address"}
	}
	if strings.ContainsRune(s, utf8.RuneError) {
		return "", &WalletError{Input: s, Reason: "an e-mail address has no U+FFFD, which stands for characters lost on the way"}
	}
	for _, r := range s {
		if unicode.Is(unicode.Cf, r) || unicode.IsControl(r) {
			return "", &WalletError{Input: s, Reason: fmt.Sprintf("an e-mail address has no invisible characters, and this one has U+%04X", r)}
		}
	}
	if len(s) > MaxEmailLen {
		return "", &WalletError{Input: s, Reason: fmt.Sprintf("an e-mail address is at most %d characters", MaxEmailLen)}
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return "", &WalletError{Input: s, Reason: "this is not a valid e-mail address"}
	}
	at := strings.LastIndexByte(s, '@')
	domain := s[at+1:]
	if !strings.Contains(domain, ".") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") {
		return "", &WalletError{Input: s, Reason: "the e-mail domain needs a dot, like example.org"}
	}
	return strings.ToLower(s), nil
}
