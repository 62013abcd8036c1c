package core

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// specExample is the example message of EIP-4361.
const specExample = "service.org wants you to sign in with your Ethereum account:\n" +
	"0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2\n" +
	"\n" +
	"I accept the ServiceOrg Terms of Service: https://service.org/tos\n" +
	"\n" +
	"URI: https://service.org/login\n" +
	"Version: 1\n" +
	"Chain ID: 1\n" +
	"Nonce: 32891756\n" +
	"Issued At: 2021-09-30T16:25:24Z\n" +
	"Resources:\n" +
	"- ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/\n" +
	"- https://example.com/my-web2-claim.json"

func TestParseSIWE(t *testing.T) {
	issued := time.Date(2021, 9, 30, 16, 25, 24, 0, time.UTC)
	tests := []struct {
		name string
		in   string
		want SIWEMessage
	}{
		{"SpecExample", specExample, SIWEMessage{
			Domain: "service.org", Address: "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2",
			Statement: "I accept the ServiceOrg Terms of Service: https://service.org/tos",
			URI:       "https://service.org/login", Version: "1", ChainID: "1", Nonce: "32891756", IssuedAt: issued,
			Resources: []string{"ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/", "https://example.com/my-web2-claim.json"},
		}},
		{"SchemeAndPort", "https://example.com:3388 wants you to sign in with your Ethereum account:\n" +
			"0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2\n\n\n" +
			"URI: https://example.com:3388/login\nVersion: 1\nChain ID: 137\nNonce: abcDEF12\nIssued At: 2021-09-30T16:25:24Z",
			SIWEMessage{Scheme: "https", Domain: "example.com:3388", Address: "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2",
				URI: "https://example.com:3388/login", Version: "1", ChainID: "137", Nonce: "abcDEF12", IssuedAt: issued}},
		{"AllOptionalTerms", "localhost:8080 wants you to sign in with your Ethereum account:\n" +
			"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed\n\nSign in.\n\n" +
			"URI: urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6\nVersion: 1\nChain ID: 1\nNonce: 0123456789abcdef\n" +
			"Issued At: 2021-09-30T16:25:24.5+02:00\nExpiration Time: 2021-09-30T17:25:24Z\nNot Before: 2021-09-30T16:00:00Z\n" +
			"Request ID: req-1:%20@x\nResources:",
			SIWEMessage{Domain: "localhost:8080", Address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", Statement: "Sign in.",
				URI: "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6", Version: "1", ChainID: "1", Nonce: "0123456789abcdef",
				IssuedAt:       time.Date(2021, 9, 30, 14, 25, 24, 5e8, time.UTC),
				ExpirationTime: time.Date(2021, 9, 30, 17, 25, 24, 0, time.UTC), NotBefore: time.Date(2021, 9, 30, 16, 0, 0, 0, time.UTC),
				RequestID: "req-1:%20@x", Resources: []string{}}},
		{"IPLiteralAndUserinfo", "user@[::1]:443 wants you to sign in with your Ethereum account:\n" +
			"0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2\n\n\n" +
			"URI: https://[::1]/\nVersion: 1\nChain ID: 1\nNonce: 12345678\nIssued At: 2021-09-30t16:25:24z",
			SIWEMessage{Domain: "user@[::1]:443", Address: "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2",
				URI: "https://[::1]/", Version: "1", ChainID: "1", Nonce: "12345678", IssuedAt: issued}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSIWE(tt.in)
			if err != nil {
				t.Fatalf("ParseSIWE() = %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(time.Time.Equal)); diff != "" {
				t.Errorf("ParseSIWE() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSIWEMessage_String: messages written by String parse back to
// themselves, and the spec's example is written back byte for byte.
func TestSIWEMessage_String(t *testing.T) {
	m, err := ParseSIWE(specExample)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.String(); got != specExample {
		t.Errorf("String() =\n%s\nwant\n%s", got, specExample)
	}
	m.Statement, m.Resources = "", nil
	m.ExpirationTime = m.IssuedAt.Add(time.Hour)
	back, err := ParseSIWE(m.String())
	if err != nil {
		t.Fatalf("ParseSIWE(String()) = %v", err)
	}
	if diff := cmp.Diff(m, back); diff != "" {
		t.Errorf("ParseSIWE(String()) mismatch (-want +got):\n%s", diff)
	}
}

func TestParseSIWE_Malformed(t *testing.T) {
	valid := strings.Split(specExample, "\n")
	// with replaces line i (0-based) of the spec example; "\x00" drops it.
	with := func(i int, line string) string {
		lines := append([]string(nil), valid...)
		if line == "\x00" {
			lines = append(lines[:i], lines[i+1:]...)
		} else {
			lines[i] = line
		}
		return strings.Join(lines, "\n")
	}
	tests := []struct{ name, in string }{
		{"Empty", ""},
		{"PlainText", "POAP bot asks you to prove you own this wallet."},
		{"NoIntro", with(0, "service.org wants you to sign in")},
		{"EmptyDomain", with(0, " wants you to sign in with your Ethereum account:")},
		{"DomainWithSpace", with(0, "service org wants you to sign in with your Ethereum account:")},
		{"DomainWithPath", with(0, "service.org/x wants you to sign in with your Ethereum account:")},
		{"PortNotDigits", with(0, "service.org:http wants you to sign in with your Ethereum account:")},
		{"BadScheme", with(0, "1https://service.org wants you to sign in with your Ethereum account:")},
		{"LowerCaseAddress", with(1, "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2")},
		{"BadChecksum", with(1, "0xC02AAA39b223FE8D0A0e5C4F27eAD9083C756Cc2")},
		{"ShortAddress", with(1, "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc")},
		{"NoBlankAfterAddress", with(2, "\x00")},
		{"StatementNotASCII", with(3, "I accept — the terms")},
		{"StatementQuote", with(3, `I accept "the terms"`)},
		{"NoBlankAfterStatement", with(4, "\x00")},
		{"NoURI", with(5, "\x00")},
		{"URINotAURI", with(5, "URI: not a uri")},
		{"URINoScheme", with(5, "URI: //service.org/login")},
		{"Version2", with(6, "Version: 2")},
		{"NoVersion", with(6, "\x00")},
		{"ChainIDNotNumber", with(7, "Chain ID: one")},
		{"ChainIDEmpty", with(7, "Chain ID: ")},
		{"NonceShort", with(8, "Nonce: 1234567")},
		{"NonceNotAlphanumeric", with(8, "Nonce: 12345678-9")},
		{"IssuedAtNotATime", with(9, "Issued At: yesterday")},
		{"IssuedAtNoSeconds", with(9, "Issued At: 2021-09-30T16:25Z")},
		{"IssuedAtNoZone", with(9, "Issued At: 2021-09-30T16:25:24")},
		{"IssuedAtSpace", with(9, "Issued At: 2021-09-30 16:25:24Z")},
		{"NoIssuedAt", with(9, "\x00")},
		{"ResourceNotDashed", with(11, "ipfs://bafy/")},
		{"ResourceNotURI", with(11, "- not a uri")},
		{"TrailingLF", specExample + "\n"},
		{"CRLF", strings.ReplaceAll(specExample, "\n", "\r\n")},
		{"LeadingSpace", " " + specExample},
		{"UnknownLine", with(10, "Colour: blue")},
		{"OutOfOrder", strings.Replace(specExample, "Version: 1\nChain ID: 1", "Chain ID: 1\nVersion: 1", 1)},
		{"NotBeforeBeforeExpiration", strings.Replace(specExample, "Resources:",
			"Not Before: 2021-09-30T16:25:24Z\nExpiration Time: 2021-09-30T17:25:24Z\nResources:", 1)},
		{"ExpirationTwice", strings.Replace(specExample, "Resources:",
			"Expiration Time: 2021-09-30T17:25:24Z\nExpiration Time: 2021-09-30T17:25:24Z\nResources:", 1)},
		{"RequestIDSpace", strings.Replace(specExample, "Resources:", "Request ID: a b\nResources:", 1)},
		{"TooLong", specExample + strings.Repeat("\n- https://example.com/", MaxSIWELen/20)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if m, err := ParseSIWE(tt.in); !errors.Is(err, ErrMessageMalformed) {
				t.Errorf("ParseSIWE(%.80q) = %+v, %v, want ErrMessageMalformed", tt.in, m, err)
			}
		})
	}
}

func TestIsSIWE(t *testing.T) {
	for in, want := range map[string]bool{
		specExample:                  true,
		"POAP bot asks you to prove": false,
		"":                           false,
		"x\n" + specExample:          false,
	} {
		if got := IsSIWE(in); got != want {
			t.Errorf("IsSIWE(%.40q) = %v, want %v", in, got, want)
		}
	}
}

func FuzzParseSIWE(f *testing.F) {
	f.Add(specExample)
	f.Fuzz(func(t *testing.T, in string) {
		m, err := ParseSIWE(in)
		if err != nil {
			return
		}
		if again, err := ParseSIWE(m.String()); err != nil || !cmp.Equal(m, again) {
			t.Errorf("ParseSIWE(String(ParseSIWE(%q))) = %+v, %v, want %+v", in, again, err, m)
		}
	})
}
