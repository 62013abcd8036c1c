package web

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/internal/testlog"
)

const (
	testNonce   = "00112233445566778899aabbccddeeff"
	testAddress = "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23"
)

// testSig has the shape of a signature; the fake Verifier does not check it.
var testSig = "0x" + strings.Repeat("ab", 65)

var testNow = time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)

// fakeVerifier answers with a fixed challenge or error and records calls.
type fakeVerifier struct {
	challenge core.Challenge
	err       error // returned by Challenge
	verifyErr error // returned by VerifyMessage

	mu    sync.Mutex
	calls []string // "challenge <nonce>" or "verify <nonce> <signature>[ <message>]"
}

func (f *fakeVerifier) Challenge(_ context.Context, nonce string) (core.Challenge, error) {
	f.record("challenge " + nonce)
	return f.challenge, f.err
}

func (f *fakeVerifier) VerifyMessage(_ context.Context, nonce, message, sig string) (core.Wallet, error) {
	call := "verify " + nonce + " " + sig
	if message != "" {
		call += " " + message
	}
	f.record(call)
	if f.verifyErr != nil {
		return core.Wallet{}, f.verifyErr
	}
	return core.Wallet{Kind: core.KindAddress, Value: f.challenge.Wallet, Address: f.challenge.Address}, nil
}

func (f *fakeVerifier) record(call string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
}

func (f *fakeVerifier) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// testChallenge is a pending challenge whose message tries to inject HTML.
func testChallenge() core.Challenge {
	return core.Challenge{
		Wallet:    testAddress,
		Address:   testAddress,
		Nonce:     testNonce,
		Message:   "Sign to link <script>alert(1)</script> & go\nNonce: " + testNonce,
		IssuedAt:  testNow.Add(-time.Minute),
		ExpiresAt: testNow.Add(9*time.Minute + time.Second),
	}
}

// newTestVerification returns the handler with a fixed clock, logging into log.
func newTestVerification(v Verifier, publicURL string, log *testlog.Buffer) http.Handler {
	var lg *slog.Logger
	if log != nil {
		lg = slog.New(slog.NewTextHandler(log, nil))
	}
	h := NewVerificationHandler(v, VerificationOptions{PublicURL: publicURL, BotName: "Test bot", Logger: lg})
	h.(*verification).now = func() time.Time { return testNow }
	return h
}

func serveGet(h http.Handler, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec
}

func TestVerificationPage(t *testing.T) {
	c := testChallenge()
	rec := serveGet(newTestVerification(&fakeVerifier{challenge: c}, "", nil), "/verify/"+testNonce)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET page: status = %d, want 200; body:\n%s", rec.Code, rec.Body)
	}
	wantHeaders := map[string]string{
		"Content-Type":            "text/html; charset=utf-8",
		"Content-Security-Policy": verifyCSP,
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "no-referrer",
		"Cache-Control":           "no-store",
		"X-Frame-Options":         "DENY",
	}
	if diff := cmp.Diff(wantHeaders, headers(rec, wantHeaders)); diff != "" {
		t.Errorf("GET page: headers (-want +got):\n%s", diff)
	}
	body := rec.Body.String()
	for _, want := range []string{
		"Sign to link &lt;script&gt;alert(1)&lt;/script&gt; &amp; go\nNonce: " + testNonce + "</pre>",
		`<code>` + testAddress + `</code>`,
		`data-address="` + testAddress + `"`,
		`data-message-hex="0x` + hex.EncodeToString([]byte(c.Message)) + `"`,
		`<meta name="viewport" content="width=device-width, initial-scale=1">`,
		`<script src="app.js"></script>`,
		"No browser wallet found.",
		"/verify &lt;signature&gt;",
		"expires in 10 minutes",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("GET page: body lacks %q; body:\n%s", want, body)
		}
	}
	if strings.Contains(body, "<script>alert") {
		t.Errorf("GET page: the message's <script> was not escaped; body:\n%s", body)
	}
	// The page loads nothing from elsewhere: the only addresses in it
	// are the wallet apps' links (followed by the member, not loaded),
	// the page's own address as text, and the SVG namespace.
	rest := regexp.MustCompile(`<a class="button" href="[^"]*"|<code id="page-url">[^<]*</code>`).ReplaceAllString(body, "")
	rest = strings.ReplaceAll(rest, `xmlns="http://www.w3.org/2000/svg"`, "")
	if strings.Contains(rest, "http://") || strings.Contains(rest, "https://") || strings.Count(body, "src=") != 1 {
		t.Errorf("GET page: body names an external resource; body:\n%s", body)
	}
}

// headers picks the response headers named in want.
func headers(rec *httptest.ResponseRecorder, want map[string]string) map[string]string {
	got := make(map[string]string)
	for k := range want {
		got[k] = rec.Header().Get(k)
	}
	return got
}

func TestVerificationPage_Problems(t *testing.T) {
	used := testNow.Add(-time.Minute)
	tests := []struct {
		name      string
		path      string
		fake      *fakeVerifier
		wantCode  int
		wantText  string
		wantCalls int
	}{
		{"ErrNotFound", "/verify/" + testNonce, &fakeVerifier{err: core.ErrNotFound}, 404, "This verification link is not valid", 1},
		{"ErrNoChallenge", "/verify/" + testNonce, &fakeVerifier{err: core.ErrNoChallenge}, 404, "This verification link is not valid", 1},
		{"BadNonce", "/verify/not-a-nonce", &fakeVerifier{}, 404, "This verification link is not valid", 0},
		{"ShortNonce", "/verify/abc", &fakeVerifier{}, 404, "This verification link is not valid", 0},
		{"ErrChallengeExpired", "/verify/" + testNonce, &fakeVerifier{err: core.ErrChallengeExpired}, 410, "Run /link in the chat again", 1},
		{"Expired", "/verify/" + testNonce, &fakeVerifier{challenge: core.Challenge{ExpiresAt: testNow}}, 410, "has expired", 1},
		{"ErrChallengeUsed", "/verify/" + testNonce, &fakeVerifier{err: core.ErrChallengeUsed}, 410, "Run /link in the chat again", 1},
		{"Used", "/verify/" + testNonce, &fakeVerifier{challenge: core.Challenge{UsedAt: &used}}, 410, "already used", 1},
		{"ErrChallengeLocked", "/verify/" + testNonce, &fakeVerifier{err: core.ErrChallengeLocked}, 410, "locked after 10 wrong signatures", 1},
		{"Locked", "/verify/" + testNonce, &fakeVerifier{challenge: core.Challenge{ExpiresAt: testNow.Add(time.Minute), WrongSignatures: 10}}, 410, "Run /link in the chat again", 1},
		{"Unknown", "/verify/" + testNonce, &fakeVerifier{err: errors.New("pq: connection refused")}, 500, "reference ", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log testlog.Buffer
			rec := serveGet(newTestVerification(tt.fake, "", &log), tt.path)
			body := rec.Body.String()
			if rec.Code != tt.wantCode || !strings.Contains(body, tt.wantText) {
				t.Errorf("GET %s = %d, want %d with %q; body:\n%s", tt.path, rec.Code, tt.wantCode, tt.wantText, body)
			}
			if got := len(tt.fake.Calls()); got != tt.wantCalls {
				t.Errorf("GET %s: %d Verifier calls, want %d", tt.path, got, tt.wantCalls)
			}
			if strings.Contains(body, "pq:") {
				t.Errorf("GET %s: body shows the raw error:\n%s", tt.path, body)
			}
			if got := rec.Header().Get("Content-Security-Policy"); got != verifyCSP {
				t.Errorf("GET %s: CSP = %q, want %q", tt.path, got, verifyCSP)
			}
		})
	}
}

func TestVerificationScript(t *testing.T) {
	rec := serveGet(newTestVerification(&fakeVerifier{}, "", nil), "/verify/app.js")
	if rec.Code != http.StatusOK || rec.Body.String() != string(verifyJS) {
		t.Fatalf("GET app.js = %d with %d bytes, want 200 with the embedded script", rec.Code, rec.Body.Len())
	}
	if got, want := rec.Header().Get("Content-Type"), "text/javascript; charset=utf-8"; got != want {
		t.Errorf("GET app.js: Content-Type = %q, want %q", got, want)
	}
}

// TestVerificationCSP checks that the CSP admits the page's inline style:
// its hash must be of the exact text between the style tags.
func TestVerificationCSP(t *testing.T) {
	body := serveGet(newTestVerification(&fakeVerifier{challenge: testChallenge()}, "", nil), "/verify/"+testNonce).Body.String()
	_, rest, _ := strings.Cut(body, "<style>")
	style, _, ok := strings.Cut(rest, "</style>")
	if !ok {
		t.Fatalf("GET page: no <style> block; body:\n%s", body)
	}
	if want := "style-src '" + cspHash(style) + "'"; !strings.Contains(verifyCSP, want) {
		t.Errorf("CSP = %q, want it to contain %q", verifyCSP, want)
	}
}

func TestServer_HandleVerification(t *testing.T) {
	s, _ := newTestServer(t, fakePinger{}, nil)
	c := testChallenge()
	c.ExpiresAt = time.Now().Add(time.Hour) // the server's clock is real
	s.HandleVerification(&fakeVerifier{challenge: c}, VerificationOptions{PublicURL: "https://bot.example.org/"})
	rec := httptest.NewRecorder()
	s.srv.Handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/verify/"+testNonce, nil))
	if rec.Code != http.StatusOK {
		t.Errorf("GET /verify/{nonce} on the server = %d, want 200", rec.Code)
	}
}

// decodeResult reads the JSON answer of a POST.
func decodeResult(t *testing.T, rec *httptest.ResponseRecorder) submitResult {
	t.Helper()
	var res submitResult
	if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil {
		t.Fatalf("POST answer %q is not JSON: %v", rec.Body, err)
	}
	return res
}

// TestVerificationPage_SIWE: the page of an EIP-4361 challenge names the
// site the wallet shows it signs in to; a plain challenge's names none.
func TestVerificationPage_SIWE(t *testing.T) {
	c := testChallenge()
	c.Message = core.SIWEMessage{Domain: "bot.example.org", Address: core.ChecksumAddress(testAddress),
		URI: "https://bot.example.org/verify/" + testNonce, Version: "1", ChainID: "1", Nonce: testNonce,
		IssuedAt: c.IssuedAt, ExpirationTime: c.ExpiresAt}.String()
	const note = "Your wallet shows this as a sign-in to <strong>bot.example.org</strong>"
	body := serveGet(newTestVerification(&fakeVerifier{challenge: c}, "", nil), "/verify/"+testNonce).Body.String()
	if !strings.Contains(body, note) || !strings.Contains(body, "0x"+hex.EncodeToString([]byte(c.Message))) {
		t.Errorf("page of an EIP-4361 challenge lacks %q or the message's hex:\n%s", note, body)
	}
	body = serveGet(newTestVerification(&fakeVerifier{challenge: testChallenge()}, "", nil), "/verify/"+testNonce).Body.String()
	if strings.Contains(body, "sign-in to") {
		t.Errorf("page of a plain challenge names a sign-in:\n%s", body)
	}
}
