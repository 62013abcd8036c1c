package web

import (
	"crypto/tls"
	"encoding/hex"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
)

// TestVerificationPage_DirectionControls: a message whose member name
// holds characters that reorder text (a challenge made before names were
// cleaned) is shown without them; the bytes the wallet signs are the
// message's own.
func TestVerificationPage_DirectionControls(t *testing.T) {
	c := testChallenge()
	c.Message = "POAP bot asks you to prove you own this wallet.\n\nMember: Ann\u202Egnp.exe\u202C\u2067 (42)\u2069\u200F\nNonce: " + testNonce
	rec := serveGet(newTestVerification(&fakeVerifier{challenge: c}, "", nil), "/verify/"+testNonce)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET page: status = %d, want 200", rec.Code)
	}
	body := rec.Body.String()
	if !strings.Contains(body, "Member: Anngnp.exe (42)\nNonce: ") {
		t.Errorf("GET page: body lacks the cleaned name; body:\n%s", body)
	}
	for _, r := range []string{"\u202E", "\u202C", "\u2067", "\u2069", "\u200F"} {
		if strings.Contains(body, r) {
			t.Errorf("GET page: body holds %U", []rune(r)[0])
		}
	}
	if want := `data-message-hex="0x` + hex.EncodeToString([]byte(c.Message)) + `"`; !strings.Contains(body, want) {
		t.Errorf("GET page: the signed bytes are not the message's own")
	}
}

// TestVerificationPage_WhoAsks: the page names the bot, the community the
// member linked from, the platform and the wallet, escaped and without
// direction controls, and says what signing does and does not do; a
// challenge stored without a community names none.
func TestVerificationPage_WhoAsks(t *testing.T) {
	c := testChallenge()
	c.Platform = core.Discord
	c.Place = "<img src=x onerror=alert(1)> Café\u202E & co"
	h := NewVerificationHandler(&fakeVerifier{challenge: c}, VerificationOptions{BotName: "Bot <b>\u2067x"})
	h.(*verification).now = func() time.Time { return testNow }
	body := serveGet(h, "/verify/"+testNonce).Body.String()
	for _, want := range []string{
		"<strong>Bot &lt;b&gt;x</strong> asks you to prove that you own this wallet, for <strong>&lt;img src=x onerror=alert(1)&gt; Café &amp; co</strong> on Discord:",
		"<code>" + testAddress + "</code>",
		"links it to your Discord account",
		"It sends no transaction and costs no gas.",
		"It gives no one access to your funds.",
		"Bot &lt;b&gt;x will never ask for your seed phrase (recovery phrase) or your private key.",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("GET page: body lacks %q; body:\n%s", want, body)
		}
	}
	if strings.Contains(body, "<img src=x") || strings.ContainsAny(body, "\u202E\u2067") {
		t.Errorf("GET page: a name was not escaped or kept a direction control; body:\n%s", body)
	}
	c.Place = ""
	body = serveGet(newTestVerification(&fakeVerifier{challenge: c}, "", nil), "/verify/"+testNonce).Body.String()
	if want := "<strong>Test bot</strong> asks you to prove that you own this wallet on Discord:"; !strings.Contains(body, want) {
		t.Errorf("GET page without a place: body lacks %q; body:\n%s", want, body)
	}
}

// TestVerificationPage_Address: the address the QR code and the wallet
// links carry is the page's below PUBLIC_URL; without PUBLIC_URL the page
// offers neither, and never takes an address from the request's Host.
func TestVerificationPage_Address(t *testing.T) {
	page := "/verify/" + testNonce
	for _, tt := range []struct {
		name, publicURL string
		tls             bool
		want            string
	}{
		{"PublicURL", "https://bot.example.org/", false, "https://bot.example.org" + page},
		{"PublicURLPath", "https://example.org/poap", true, "https://example.org/poap" + page},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newTestVerification(&fakeVerifier{challenge: testChallenge()}, tt.publicURL, nil)
			req := httptest.NewRequest(http.MethodGet, page, nil)
			req.Host = "bot.test:8080"
			if tt.tls {
				req.TLS = &tls.ConnectionState{}
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			body := rec.Body.String()
			if got := decodeQRSVG(t, body); got != tt.want {
				t.Errorf("QR code = %q, want %q", got, tt.want)
			}
			if want := `<code id="page-url">` + tt.want + `</code>`; !strings.Contains(body, want) {
				t.Errorf("page lacks its address as text, %q; body:\n%s", want, body)
			}
			if want := html.EscapeString(appLinks(tt.want)[2].URL); !strings.Contains(body, `href="`+want+`"`) {
				t.Errorf("page lacks the Trust Wallet link %q; body:\n%s", want, body)
			}
			if strings.Contains(body, "bot.test") {
				t.Errorf("page names the request's Host; body:\n%s", body)
			}
		})
	}
	for _, withTLS := range []bool{false, true} {
		h := newTestVerification(&fakeVerifier{challenge: testChallenge()}, "", nil)
		req := httptest.NewRequest(http.MethodGet, page, nil)
		req.Host = "evil.example:8080"
		if withTLS {
			req.TLS = &tls.ConnectionState{}
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		body := rec.Body.String()
		if rec.Code != http.StatusOK || !strings.Contains(body, "/verify &lt;signature&gt;") {
			t.Errorf("without PUBLIC_URL (TLS %v): status %d, want 200 and the /verify instructions; body:\n%s", withTLS, rec.Code, body)
		}
		for _, bad := range []string{"evil.example", "<svg", `id="apps"`, `id="scan"`, `id="page-url"`, `class="button"`} {
			if strings.Contains(body, bad) {
				t.Errorf("without PUBLIC_URL (TLS %v): page has %q, want no address, QR code or wallet-app link; body:\n%s", withTLS, bad, body)
			}
		}
	}
}
