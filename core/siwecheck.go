package core

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Errors of a signed EIP-4361 message that is not the challenge's. Each
// comes inside a *MessageError that names the term.
var (
	// ErrMessageMalformed means the text is not an EIP-4361 message.
	ErrMessageMalformed = errors.New("signed text is not an EIP-4361 message")
	// ErrMessageDomain means the message names another site (domain or
	// scheme) than the bot's verification page: the mark of a phisher's
	// copy.
	ErrMessageDomain = errors.New("signed message is for another site")
	// ErrMessageURI means the message names another page.
	ErrMessageURI = errors.New("signed message is for another page")
	// ErrMessageAddress means the message names another wallet.
	ErrMessageAddress = errors.New("signed message is for another wallet")
	// ErrMessageNonce means the message carries another nonce.
	ErrMessageNonce = errors.New("signed message carries another nonce")
	// ErrMessageChain means the message names another version or chain.
	ErrMessageChain = errors.New("signed message is for another chain")
	// ErrMessageTime means the message's times are not the challenge's,
	// or it says it was issued in the future.
	ErrMessageTime = errors.New("signed message has other times")
	// ErrMessageChanged means the message differs from the challenge's
	// elsewhere: its statement, or terms the bot never writes.
	ErrMessageChanged = errors.New("signed message was changed")
)

// MessageError says which term of a signed EIP-4361 message differs from
// the challenge's. It matches its sentinel (ErrMessageDomain, ...) with
// errors.Is.
type MessageError struct {
	Term string // EIP-4361's name: "domain", "uri", "nonce", ...
	Got  string
	Want string
	Err  error
}

func (e *MessageError) Error() string {
	return fmt.Sprintf("%v: %s is %q, want %q", e.Err, e.Term, e.Got, e.Want)
}

// Unwrap returns the sentinel.
func (e *MessageError) Unwrap() error { return e.Err }

// DefaultChainID is the EIP-155 chain id of EIP-4361 challenges unless
// WalletServiceDeps.ChainID names another: Ethereum mainnet.
const DefaultChainID = 1

// issueSkew is how far in the future a message's issue time may be: the
// clocks of the replicas of the bot that made and check it may differ.
const issueSkew = time.Minute

// siweSite is where EIP-4361 challenges send members: PUBLIC_URL's
// authority, its verification pages and the chain id.
type siweSite struct {
	publicURL string
	scheme    string
	domain    string
	chainID   string
}

// newSIWESite reads PUBLIC_URL; an empty one is no site (nil).
func newSIWESite(publicURL string, chainID int64) (*siweSite, error) {
	if publicURL == "" {
		return nil, nil
	}
	u, err := url.Parse(publicURL)
	if err != nil || u.Host == "" || !validAuthority(u.Host) {
		return nil, fmt.Errorf("wallet service: PublicURL %q is not an absolute URL with a host", publicURL)
	}
	if chainID == 0 {
		chainID = DefaultChainID
	}
	if chainID < 0 {
		return nil, fmt.Errorf("wallet service: chain id %d is negative", chainID)
	}
	return &siweSite{publicURL: publicURL, scheme: u.Scheme, domain: strings.ToLower(u.Host),
		chainID: strconv.FormatInt(chainID, 10)}, nil
}

// message is the EIP-4361 message of challenge c, of an address, with
// that statement.
func (site *siweSite) message(c Challenge, statement string) SIWEMessage {
	return SIWEMessage{
		Domain:         site.domain,
		Address:        ChecksumAddress(c.Address),
		Statement:      statement,
		URI:            VerificationURL(site.publicURL, c.Nonce),
		Version:        SIWEVersion,
		ChainID:        site.chainID,
		Nonce:          c.Nonce,
		IssuedAt:       c.IssuedAt.UTC(),
		ExpirationTime: c.ExpiresAt.UTC(),
	}
}

// checkMessage holds the text of challenge c, and the text the member
// says they signed (signed, empty when unknown: /verify sends only a
// signature), to the challenge. An EIP-4361 challenge's stored message is
// parsed and every term compared with the challenge record and this
// site; a signed text that is not the stored one is parsed and compared
// term by term, so that the member hears which one differs. Errors:
// ErrMessageMalformed, a *MessageError, ErrChallengeExpired.
func (s *WalletService) checkMessage(c Challenge, signed string) error {
	if !IsSIWE(c.Message) {
		if signed != "" && signed != c.Message {
			return &MessageError{Term: "text", Err: ErrMessageChanged}
		}
		return nil
	}
	stored, err := ParseSIWE(c.Message)
	if err != nil {
		return err
	}
	if err := s.checkStored(c, stored); err != nil {
		return err
	}
	if signed == "" || signed == c.Message {
		return nil
	}
	got, err := ParseSIWE(signed)
	if err != nil {
		return err
	}
	if err := diffSIWE(got, stored); err != nil {
		return err
	}
	return &MessageError{Term: "text", Err: ErrMessageChanged}
}

// checkStored compares a stored EIP-4361 message with what challenge c's
// message is on this site now, and its times with the clock.
func (s *WalletService) checkStored(c Challenge, m SIWEMessage) error {
	site := s.site
	if site == nil || c.Address == "" {
		// PUBLIC_URL was unset since: no page of this bot is that site.
		return &MessageError{Term: "domain", Got: m.Domain, Err: ErrMessageDomain}
	}
	if err := diffSIWE(m, site.message(c, m.Statement)); err != nil {
		return err
	}
	now := s.clock.Now()
	switch {
	case m.IssuedAt.After(now.Add(issueSkew)):
		return &MessageError{Term: "issued at", Got: stamp(m.IssuedAt), Want: "before " + stamp(now), Err: ErrMessageTime}
	case !now.Before(m.ExpirationTime):
		return ErrChallengeExpired
	}
	return nil
}

// diffSIWE returns a *MessageError for the first term of got that is not
// want's, in the order a member would care: where, who, which challenge,
// when, then the rest.
func diffSIWE(got, want SIWEMessage) error {
	terms := []struct {
		term      string
		got, want string
		err       error
	}{
		{"scheme", got.Scheme, want.Scheme, ErrMessageDomain},
		{"domain", got.Domain, want.Domain, ErrMessageDomain},
		{"uri", got.URI, want.URI, ErrMessageURI},
		{"address", got.Address, want.Address, ErrMessageAddress},
		{"nonce", got.Nonce, want.Nonce, ErrMessageNonce},
		{"version", got.Version, want.Version, ErrMessageChain},
		{"chain id", got.ChainID, want.ChainID, ErrMessageChain},
		{"issued at", stamp(got.IssuedAt), stamp(want.IssuedAt), ErrMessageTime},
		{"expiration time", stamp(got.ExpirationTime), stamp(want.ExpirationTime), ErrMessageTime},
		{"not before", stamp(got.NotBefore), stamp(want.NotBefore), ErrMessageTime},
		{"statement", got.Statement, want.Statement, ErrMessageChanged},
		{"request id", got.RequestID, want.RequestID, ErrMessageChanged},
		// URIs hold no spaces: joined, two lists are equal when they are.
		{"resources", strings.Join(got.Resources, " "), strings.Join(want.Resources, " "), ErrMessageChanged},
	}
	for _, t := range terms {
		if t.got != t.want {
			return &MessageError{Term: t.term, Got: t.got, Want: t.want, Err: t.err}
		}
	}
	return nil
}

// stamp writes a time for comparison and logs: RFC 3339 in UTC, empty
// for none.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}
