package core

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"
)

// ChallengeTTL is how long an ownership challenge can be signed.
const ChallengeTTL = 10 * time.Minute

// MaxWrongSignatures is how many wrong signatures (another wallet's, a
// malformed one, another message's, an altered copy's) a challenge takes:
// after that it is locked, and not even the right signature verifies it.
// A member who makes so many mistakes runs /link again for a fresh one;
// someone trying signatures at random gets no further.
const MaxWrongSignatures = 10

// Challenge is a pending proof of wallet ownership: the member signs Message
// with the wallet (EIP-191 personal_sign) and sends the signature back with
// /verify or through the verification page. With PUBLIC_URL set, the
// Message of a 0x address is an EIP-4361 (Sign-In with Ethereum) message
// for the challenge's verification page; otherwise, and for ENS names
// (whose address is known only once they sign, and EIP-4361 needs one),
// it is plain text. Nonce is random (at least 128
// bits), single-use and bound to the member, the platform and the wallet.
type Challenge struct {
	ID       int64
	UserID   int64
	Platform Platform
	// WalletID is the linked wallet the challenge proves.
	WalletID int64
	// Wallet is the wallet's canonical value (a 0x address or an ENS name).
	Wallet string
	// Address is the 0x address the signature must recover to; empty for
	// an ENS name, whose recovered address is stored beside it.
	Address   string
	Nonce     string
	Message   string
	IssuedAt  time.Time
	ExpiresAt time.Time
	UsedAt    *time.Time
	// WrongSignatures counts the signatures sent for it that did not
	// prove it; at MaxWrongSignatures it is locked.
	WrongSignatures int
	// Place is the name of the community (Discord server, Telegram group)
	// the member ran /link in, made one line (oneLine) when the challenge
	// is made; the verification page shows it as who asks. Empty for a
	// private chat, and for challenges made before it was stored.
	Place string
}

// VerificationPath is where the web server serves the wallet-verification
// pages: the page of a challenge is VerificationPath + nonce, its assets
// beside it.
const VerificationPath = "/verify/"

// VerificationURL returns the address of the verification page of the
// challenge with that nonce below publicURL (PUBLIC_URL): what /link
// replies carry and what the web server answers.
func VerificationURL(publicURL, nonce string) string {
	return strings.TrimRight(publicURL, "/") + VerificationPath + url.PathEscape(nonce)
}

// nonceBytes is the size of a challenge nonce: 128 random bits, written as
// 32 hex digits.
const nonceBytes = 16

// The first and last line of every challenge message, after the bot name.
const (
	MessageIntro  = " asks you to prove you own this wallet."
	MessageFooter = "Signing is free and sends no transaction."
)

// newChallenge builds a challenge for the member's wallet, issued now,
// for /link run in place (a name; empty when private). The store fills in
// the ids when it saves it.
func (s *WalletService) newChallenge(m Member, place string, kind WalletKind, value string) (*Challenge, error) {
	nonce, err := newNonce()
	if err != nil {
		return nil, err
	}
	// Whole seconds: the message shows them, and the stored times must say
	// the same.
	issued := s.clock.Now().UTC().Truncate(time.Second)
	c := &Challenge{
		Platform:  m.Platform,
		Place:     oneLine(place),
		Wallet:    value,
		Nonce:     nonce,
		IssuedAt:  issued,
		ExpiresAt: issued.Add(ChallengeTTL),
	}
	if kind == KindAddress {
		c.Address = value
	}
	c.Message = challengeMessage(s.name, m, kind, c)
	if s.site != nil && kind == KindAddress {
		c.Message = s.site.message(*c, siweStatement(s.name, m, place)).String()
	}
	return c, nil
}

// siweStatement is the statement of an EIP-4361 challenge: what signing
// does, for whom, where, in EIP-4361's character set (printable ASCII
// without " % < > \ ^ ` { | }). Names are the platform's, hostile input:
// cleaned as oneLine cleans them, then every run of other characters
// written "?", and quoted.
func siweStatement(bot string, m Member, place string) string {
	id := statementText(m.ExternalID)
	who := m.Platform.Title() + " member " + id
	if name := statementText(m.Name); name != "" && name != id {
		who = m.Platform.Title() + " member '" + name + "' (" + id + ")"
	}
	s := statementText(bot) + " asks you to prove you own this wallet, to link it to the " + who
	if p := statementText(place); p != "" {
		s += " in '" + p + "'"
	}
	return s + ". " + MessageFooter
}

// statementText is s made one line (oneLine) of EIP-4361 statement
// characters, without the single quote that quotes names.
func statementText(s string) string {
	var b strings.Builder
	replaced := false
	for _, r := range oneLine(s) {
		if r < 0x80 && r != '\'' && validStatement(string(r)) {
			b.WriteRune(r)
			replaced = false
		} else if !replaced {
			b.WriteByte('?')
			replaced = true
		}
	}
	return strings.TrimSpace(b.String())
}

// challengeMessage is the text the member signs. It is plain, so that a
// wallet app shows it legibly, and names everything the signature is bound
// to: the bot, the platform, the member, the wallet and the nonce.
func challengeMessage(bot string, m Member, kind WalletKind, c *Challenge) string {
	wallet := c.Wallet
	if kind == KindAddress {
		wallet = ChecksumAddress(wallet)
	}
	member := oneLine(m.ExternalID)
	if name := oneLine(m.Name); name != "" && name != member {
		member = name + " (" + member + ")"
	}
	const layout = "2006-01-02T15:04:05Z"
	return oneLine(bot) + MessageIntro + "\n\n" +
		"Platform: " + m.Platform.Title() + "\n" +
		"Member: " + member + "\n" +
		"Wallet: " + wallet + "\n" +
		"Nonce: " + c.Nonce + "\n" +
		"Issued: " + c.IssuedAt.UTC().Format(layout) + "\n" +
		"Expires: " + c.ExpiresAt.UTC().Format(layout) + "\n\n" +
		MessageFooter
}

// oneLine makes a display name safe inside the message and the code block
// that shows it: no line breaks or other control characters, no
// characters that change the direction of text (StripDirectionControls:
// the bot strips them where names come in, and this message is signed,
// so it strips them again), no backquotes, at most 64 characters.
func oneLine(s string) string {
	s = StripDirectionControls(s)
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '`':
			return '\''
		case unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp):
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 64 {
		s = string(r[:64])
	}
	return s
}

// newNonce returns 128 random bits in hex, from crypto/rand.
func newNonce() (string, error) {
	b := make([]byte, nonceBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("challenge nonce: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// validNonce reports whether s looks like a nonce at all, so that garbage
// from a URL never reaches the store.
func validNonce(s string) bool {
	if len(s) < 2*nonceBytes || len(s) > 128 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// alteredCopies are the ways a copied message commonly changes on its way
// into a wallet app: Windows line endings, a trailing line break, trimmed
// spaces added. A signature of one of them by the right wallet is told
// apart from a signature by the wrong wallet.
func alteredCopies(message string) []string {
	crlf := strings.ReplaceAll(message, "\n", "\r\n")
	return []string{
		crlf,
		message + "\n",
		crlf + "\r\n",
		" " + message,
		message + " ",
	}
}
