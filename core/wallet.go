package core

import (
	"encoding/hex"
	"fmt"
	"net/mail"
	"strconv"
	"strings"
	"time"
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
	case strings.Contains(s, "."):
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

// parseENS checks the syntax of an ENS name: dot-separated labels of
// letters, digits and hyphens (or non-ASCII letters), none empty, at most 63
// bytes each, and a top-level label of letters.
func parseENS(s string) (string, error) {
	name := strings.ToLower(s)
	if len(name) > 255 {
		return "", &WalletError{Input: s, Reason: "an ENS name is at most 255 characters"}
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if l == "" {
			return "", &WalletError{Input: s, Reason: "an ENS name has no empty parts between dots"}
		}
		if len(l) > 63 {
			return "", &WalletError{Input: s, Reason: "each part of an ENS name is at most 63 characters"}
		}
		if strings.HasPrefix(l, "-") || strings.HasSuffix(l, "-") {
			return "", &WalletError{Input: s, Reason: "a part of an ENS name does not start or end with a hyphen"}
		}
		for _, r := range l {
			if r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 0x7f && r != 0xfffd {
				continue
			}
			return "", &WalletError{Input: s, Reason: "an ENS name has only letters, digits, hyphens and dots"}
		}
	}
	if len(labels) < 2 {
		return "", &WalletError{Input: s, Reason: "an ENS name ends in a suffix such as .eth"}
	}
	return name, nil
}

// MaxEmailLen is the longest e-mail address a member can link: the 254
// octets of a path in SMTP (RFC 5321, 4.5.3.1.3).
const MaxEmailLen = 254

// parseEmail checks an e-mail address: valid UTF-8, at most MaxEmailLen
// octets, one plain addr-spec, no display name, a domain with a dot.
func parseEmail(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", &WalletError{Input: s, Reason: "this is not a valid e-mail address"}
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
