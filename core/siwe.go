package core

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Sign-In with Ethereum (EIP-4361, https://eips.ethereum.org/EIPS/eip-4361)
// is a message format wallets recognise: they show its fields, and they
// warn when the domain in the message is not the site that asks for the
// signature. That warning is what stops a phisher from having a member sign
// the phisher's own challenge on a look-alike site.

// SIWEVersion is the only version EIP-4361 defines.
const SIWEVersion = "1"

// MaxSIWELen bounds the text ParseSIWE reads: EIP-4361 sets no maximum and
// asks implementers to choose one; ours are well under a kilobyte.
const MaxSIWELen = 8 << 10

// siweIntro follows the domain on the first line of every EIP-4361 message.
const siweIntro = " wants you to sign in with your Ethereum account:"

// The tags of the message's lines, as EIP-4361 spells them.
const (
	tagURI        = "URI: "
	tagVersion    = "Version: "
	tagChainID    = "Chain ID: "
	tagNonce      = "Nonce: "
	tagIssuedAt   = "Issued At: "
	tagExpiration = "Expiration Time: "
	tagNotBefore  = "Not Before: "
	tagRequestID  = "Request ID: "
	tagResources  = "Resources:"
)

// SIWEMessage is an EIP-4361 message, term by term. Optional terms are
// empty (times zero) when absent.
type SIWEMessage struct {
	Scheme         string // optional, before "://" on the first line
	Domain         string // RFC 3986 authority: host and port
	Address        string // 0x and 40 hex digits, EIP-55 checksummed
	Statement      string // optional, one line of printable ASCII
	URI            string
	Version        string
	ChainID        string // decimal digits
	Nonce          string // at least 8 letters and digits
	IssuedAt       time.Time
	ExpirationTime time.Time
	NotBefore      time.Time
	RequestID      string
	Resources      []string
}

// String writes the message in EIP-4361's layout; times are written in
// RFC 3339 in their own offset, in whole seconds unless they have more.
func (m SIWEMessage) String() string {
	var b strings.Builder
	if m.Scheme != "" {
		b.WriteString(m.Scheme + "://")
	}
	b.WriteString(m.Domain + siweIntro + "\n" + m.Address + "\n\n")
	if m.Statement != "" {
		b.WriteString(m.Statement + "\n")
	}
	b.WriteString("\n" + tagURI + m.URI + "\n" + tagVersion + m.Version + "\n" + tagChainID + m.ChainID + "\n" +
		tagNonce + m.Nonce + "\n" + tagIssuedAt + m.IssuedAt.Format(time.RFC3339Nano))
	if !m.ExpirationTime.IsZero() {
		b.WriteString("\n" + tagExpiration + m.ExpirationTime.Format(time.RFC3339Nano))
	}
	if !m.NotBefore.IsZero() {
		b.WriteString("\n" + tagNotBefore + m.NotBefore.Format(time.RFC3339Nano))
	}
	if m.RequestID != "" {
		b.WriteString("\n" + tagRequestID + m.RequestID)
	}
	if m.Resources != nil {
		b.WriteString("\n" + tagResources)
		for _, r := range m.Resources {
			b.WriteString("\n- " + r)
		}
	}
	return b.String()
}

// IsSIWE reports whether text reads as an EIP-4361 message: its first line
// ends as EIP-4361's first line does. It says nothing of the rest.
func IsSIWE(text string) bool {
	first, _, _ := strings.Cut(text, "\n")
	return strings.HasSuffix(first, siweIntro)
}

// ParseSIWE reads an EIP-4361 message, held to the specification's ABNF:
// lines in its order, separated by a single LF, no line break at the end,
// each term in its character set. It returns ErrMessageMalformed, wrapped
// with the first thing wrong, for anything else.
func ParseSIWE(text string) (SIWEMessage, error) {
	if len(text) > MaxSIWELen {
		return SIWEMessage{}, malformed("it is longer than %d bytes", MaxSIWELen)
	}
	p := &siweParser{lines: strings.Split(text, "\n")}
	var m SIWEMessage
	steps := []func(*SIWEMessage) error{p.header, p.address, p.statement, p.required, p.optional}
	for _, step := range steps {
		if err := step(&m); err != nil {
			return SIWEMessage{}, err
		}
	}
	if p.i < len(p.lines) {
		return SIWEMessage{}, malformed("line %d (%.40q) is not expected there", p.i+1, p.lines[p.i])
	}
	return m, nil
}

// malformed is ErrMessageMalformed with what is wrong.
func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMessageMalformed, fmt.Sprintf(format, args...))
}

// siweParser walks the lines of a message.
type siweParser struct {
	lines []string
	i     int
}

// next returns the next line, or false at the end.
func (p *siweParser) next() (string, bool) {
	if p.i >= len(p.lines) {
		return "", false
	}
	p.i++
	return p.lines[p.i-1], true
}

// tagged reads the next line, which must start with tag.
func (p *siweParser) tagged(tag string) (string, error) {
	line, ok := p.next()
	if !ok || !strings.HasPrefix(line, tag) {
		return "", malformed("line %d should start with %q", p.i, tag)
	}
	return line[len(tag):], nil
}

// header reads "[scheme://]domain wants you to sign in ...".
func (p *siweParser) header(m *SIWEMessage) error {
	line, _ := p.next()
	authority, ok := strings.CutSuffix(line, siweIntro)
	if !ok {
		return malformed("the first line should end with %q", siweIntro)
	}
	if scheme, rest, found := strings.Cut(authority, "://"); found {
		if !validScheme(scheme) {
			return malformed("the scheme %.40q is not an RFC 3986 scheme", scheme)
		}
		m.Scheme, authority = scheme, rest
	}
	if !validAuthority(authority) {
		return malformed("the domain %.40q is not an RFC 3986 authority", authority)
	}
	m.Domain = authority
	return nil
}

// address reads the EIP-55 address and the blank line after it.
func (p *siweParser) address(m *SIWEMessage) error {
	line, _ := p.next()
	if _, err := ParseAddress(line); err != nil || ChecksumAddress(line) != line {
		return malformed("the second line should be a 0x address with its EIP-55 checksum")
	}
	m.Address = line
	if blank, ok := p.next(); !ok || blank != "" {
		return malformed("the address should be followed by an empty line")
	}
	return nil
}

// statement reads the optional statement and the blank line that ends it.
func (p *siweParser) statement(m *SIWEMessage) error {
	line, ok := p.next()
	if !ok {
		return malformed("the message ends after the address")
	}
	if line == "" {
		return nil
	}
	if !validStatement(line) {
		return malformed("the statement has a character EIP-4361 does not allow")
	}
	m.Statement = line
	if blank, ok := p.next(); !ok || blank != "" {
		return malformed("the statement should be followed by an empty line")
	}
	return nil
}

// required reads URI, Version, Chain ID, Nonce and Issued At.
func (p *siweParser) required(m *SIWEMessage) error {
	var err error
	if m.URI, err = p.tagged(tagURI); err != nil {
		return err
	}
	if !validURI(m.URI) {
		return malformed("the URI %.60q is not an RFC 3986 URI", m.URI)
	}
	if m.Version, err = p.tagged(tagVersion); err != nil {
		return err
	}
	if m.Version != SIWEVersion {
		return malformed("the version is %.10q, want %s", m.Version, SIWEVersion)
	}
	if m.ChainID, err = p.tagged(tagChainID); err != nil {
		return err
	}
	if m.ChainID == "" || !allIn(m.ChainID, digits) {
		return malformed("the chain id %.20q is not a number", m.ChainID)
	}
	if m.Nonce, err = p.tagged(tagNonce); err != nil {
		return err
	}
	if len(m.Nonce) < 8 || !allIn(m.Nonce, digits+letters) {
		return malformed("the nonce should be at least 8 letters and digits")
	}
	return p.time(tagIssuedAt, &m.IssuedAt)
}

// time reads a line tag and an RFC 3339 date-time.
func (p *siweParser) time(tag string, t *time.Time) error {
	s, err := p.tagged(tag)
	if err != nil {
		return err
	}
	if *t, err = parseDateTime(s); err != nil {
		return malformed("%q%.40q is not an RFC 3339 date-time", tag, s)
	}
	return nil
}

// optional reads the optional lines, each at most once and in order.
func (p *siweParser) optional(m *SIWEMessage) error {
	if p.peek(tagExpiration) {
		if err := p.time(tagExpiration, &m.ExpirationTime); err != nil {
			return err
		}
	}
	if p.peek(tagNotBefore) {
		if err := p.time(tagNotBefore, &m.NotBefore); err != nil {
			return err
		}
	}
	if p.peek(tagRequestID) {
		m.RequestID, _ = p.tagged(tagRequestID)
		if !allIn(m.RequestID, pchars) {
			return malformed("the request id has a character EIP-4361 does not allow")
		}
	}
	if p.i < len(p.lines) && p.lines[p.i] == tagResources {
		p.i++
		return p.resources(m)
	}
	return nil
}

// resources reads the "- URI" lines after "Resources:".
func (p *siweParser) resources(m *SIWEMessage) error {
	m.Resources = []string{}
	for p.i < len(p.lines) {
		r, ok := strings.CutPrefix(p.lines[p.i], "- ")
		if !ok || !validURI(r) {
			return malformed("line %d should be a resource: \"- \" and a URI", p.i+1)
		}
		m.Resources = append(m.Resources, r)
		p.i++
	}
	return nil
}

// peek reports whether the next line starts with tag.
func (p *siweParser) peek(tag string) bool {
	return p.i < len(p.lines) && strings.HasPrefix(p.lines[p.i], tag)
}

// Character sets of RFC 3986 and RFC 5234, as EIP-4361 uses them.
const (
	digits     = "0123456789"
	letters    = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	unreserved = letters + digits + "-._~"
	subDelims  = "!$&'()*+,;="
	reserved   = ":/?#[]@" + subDelims
	pchars     = unreserved + subDelims + ":@%"
	// uriChars are all the characters a URI may hold (pct-encoded's % too).
	uriChars = unreserved + reserved + "%"
)

// allIn reports whether every byte of s is in set.
func allIn(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(set, rune(s[i])) {
			return false
		}
	}
	return true
}

// validStatement: *( reserved / unreserved / " " ).
func validStatement(s string) bool { return allIn(s, reserved+unreserved+" ") }

// validScheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
func validScheme(s string) bool {
	return s != "" && strings.ContainsRune(letters, rune(s[0])) && allIn(s, letters+digits+"+-.")
}

// validAuthority: [ userinfo "@" ] host [ ":" port ], host a reg-name, an
// IPv4 address or a bracketed IP literal, port digits.
func validAuthority(s string) bool {
	if s == "" || !allIn(s, unreserved+subDelims+":@%[]") {
		return false
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		if strings.ContainsAny(s[:i], "@[]") {
			return false
		}
		s = s[i+1:]
	}
	host, port := s, ""
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return false
		}
		host, port = s[:end+1], s[end+1:]
		if port != "" && port[0] != ':' {
			return false
		}
		port = strings.TrimPrefix(port, ":")
	} else if i := strings.LastIndexByte(s, ':'); i >= 0 {
		host, port = s[:i], s[i+1:]
	}
	return host != "" && !strings.ContainsAny(strings.Trim(host, "[]"), "[]") &&
		(strings.HasPrefix(host, "[") || !strings.Contains(host, ":")) && allIn(port, digits)
}

// validURI: an RFC 3986 URI, which has a scheme; url.Parse checks the rest
// of its shape once the characters are known to be URI characters.
func validURI(s string) bool {
	if s == "" || !allIn(s, uriChars) {
		return false
	}
	scheme, _, ok := strings.Cut(s, ":")
	if !ok || !validScheme(scheme) {
		return false
	}
	_, err := url.Parse(s)
	return err == nil
}

// parseDateTime reads an RFC 3339 date-time: T and Z in either case,
// seconds required, fractions and offsets allowed (time.Parse refuses
// out-of-range fields and offsets in RFC 3339 layouts).
func parseDateTime(s string) (time.Time, error) {
	if len(s) < len("2006-01-02T15:04:05Z") || (s[10] != 'T' && s[10] != 't') {
		return time.Time{}, errors.New("not a date-time")
	}
	return time.Parse(time.RFC3339, strings.ToUpper(s))
}
