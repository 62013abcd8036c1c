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
// lower-case 0x address, an ENS name normalised by ENSIP-15 (see parseENS)
// or a lower-case e-mail.
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

// ParseWallet reads a wallet identifier typed by a member, white space
// around it trimmed: a 0x address (42 characters; mixed case must carry a
// valid EIP-55 checksum), an e-mail address (it has an @), or an ENS name
// (anything else with a dot, 0x.eth included), normalised by ENSIP-15. It
// returns the kind and the canonical value (a lower-case address or
// e-mail, a normalised name), or a *WalletError (matching ErrInvalidWallet)
// that says what is wrong.
func ParseWallet(input string) (WalletKind, string, error) {
	s := strings.TrimSpace(input)
	switch {
	case s == "":
		return "", "", &WalletError{Input: input, Reason: "it is empty"}
	case addressShaped(s):
		return parseAs(KindAddress, ParseAddress, s)
	case strings.Contains(s, "@"):
		return parseAs(KindEmail, parseEmail, s)
	case strings.ContainsAny(s, ensStops):
		return parseAs(KindENS, parseENS, s)
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		// Without a dot, 0x... can only be an address: say what is wrong with it.
		return parseAs(KindAddress, ParseAddress, s)
	}
	return "", "", &WalletError{Input: input, Reason: "it is not a 0x address, an ENS name (like name.eth) or an e-mail address"}
}

// addressShaped reports whether s has the shape of a 0x address: 0x and 40
// more characters. Such a string is read as an address even with a dot in
// it, so that a mistyped address is refused rather than linked as a name.
func addressShaped(s string) bool {
	return len(s) == 42 && (s[:2] == "0x" || s[:2] == "0X")
}

func parseAs(kind WalletKind, parse func(string) (string, error), s string) (WalletKind, string, error) {
	value, err := parse(s)
	if err != nil {
		return "", "", err
	}
	return kind, value, nil
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
