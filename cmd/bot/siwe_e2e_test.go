package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

// pageAnswer is the JSON answer of the verification page to a POST, with
// its HTTP status.
type pageAnswer struct {
	Status int    `json:"-"`
	OK     bool   `json:"ok"`
	Wallet string `json:"wallet"`
	Chain  string `json:"chain"`
	Error  string `json:"error"`
}

// postSigned posts a signature and the message signed (when not empty) to
// the page at url, as verify.js does.
func postSigned(t *testing.T, url, message, signature string) pageAnswer {
	t.Helper()
	req := map[string]string{"signature": signature}
	if message != "" {
		req["message"] = message
	}
	body, _ := json.Marshal(req)
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	a := pageAnswer{Status: resp.StatusCode}
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatalf("POST %s: answer is not JSON: %v", url, err)
	}
	return a
}

// TestMain_VerificationPage_SIWE: with PUBLIC_URL set, the page has the
// wallet sign an EIP-4361 message for PUBLIC_URL's host and this page; a
// copy with another domain, page, nonce or expiration, signed by the
// wallet itself, is refused each with its own words and costs nothing;
// the message as it is verifies the wallet.
func TestMain_VerificationPage_SIWE(t *testing.T) {
	t.Parallel()
	s := startMainWith(t, map[string]string{"PUBLIC_URL": "https://bot.example.org"}, true)
	fmt.Fprintf(s.stdin, "/link %s\n", coretest.TestAddress)
	waitOutput(t, s, "https://bot.example.org/verify/")
	out := s.out.String()
	if !strings.Contains(out, "Your wallet shows it as a sign-in to bot.example.org") {
		t.Errorf("the /link reply does not say where the message may be signed:\n%s", out)
	}
	i := strings.Index(out, "https://bot.example.org/verify/")
	nonce := strings.Fields(out[i+len("https://bot.example.org/verify/"):])[0]
	page := "http://" + s.m.Web.Addr() + "/verify/" + nonce
	hexes := regexp.MustCompile(`data-message-hex="0x([0-9a-f]+)"`).FindStringSubmatch(get(t, page))
	if hexes == nil {
		t.Fatalf("the page carries no message to sign")
	}
	raw, _ := hex.DecodeString(hexes[1])
	message := string(raw)
	m, err := core.ParseSIWE(message)
	if err != nil {
		t.Fatalf("ParseSIWE(the page's message) = %v\n%s", err, message)
	}
	if m.Domain != "bot.example.org" || m.URI != "https://bot.example.org/verify/"+nonce || m.Nonce != nonce ||
		m.Address != core.ChecksumAddress(coretest.TestAddress) || !strings.Contains(m.Statement, "Console member") {
		t.Errorf("the page's message = %+v, want a sign-in to bot.example.org for this page and wallet", m)
	}
	later := m.ExpirationTime.Add(time.Hour).Format(time.RFC3339)
	altered := []struct{ name, old, new, want string }{
		{"Domain", "bot.example.org wants", "bot-example.org wants", "a sign-in to another site"},
		{"URI", "URI: https://bot.example.org/", "URI: https://bot-example.org/", "names another page"},
		{"Nonce", "Nonce: " + nonce, "Nonce: 0123456789abcdef", "belongs to another challenge"},
		{"Expiration", "Expiration Time: " + m.ExpirationTime.Format(time.RFC3339), "Expiration Time: " + later, "times in the signed message"},
	}
	for _, tt := range altered {
		copied := strings.Replace(message, tt.old, tt.new, 1)
		if copied == message {
			t.Fatalf("%s: %q is not in the message:\n%s", tt.name, tt.old, message)
		}
		if a := postSigned(t, page, copied, coretest.Sign(coretest.TestKey, copied)); a.OK || !strings.Contains(a.Error, tt.want) {
			t.Errorf("POST of a copy with another %s = %+v, want refused with %q", tt.name, a, tt.want)
		}
	}
	a := postSigned(t, page, message, coretest.Sign(coretest.TestKey, message))
	if !a.OK || a.Wallet != coretest.TestAddress {
		t.Errorf("POST of the message = %+v, want %s verified", a, coretest.TestAddress)
	}
}
