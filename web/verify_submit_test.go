package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/internal/testlog"
)

// post sends body to the page's POST endpoint with the given headers
// (Content-Type defaults to application/json; "" removes it).
func post(h http.Handler, path, body string, hdr map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func sigBody(sig string) string { return `{"signature": "` + sig + `"}` }

func TestVerificationSubmit(t *testing.T) {
	f := &fakeVerifier{challenge: testChallenge()}
	h := newTestVerification(f, "", nil)
	rec := post(h, "/verify/"+testNonce, sigBody(" "+testSig+" "), map[string]string{"Origin": "http://example.com"})
	want := submitResult{OK: true, Wallet: testAddress}
	if diff := cmp.Diff(want, decodeResult(t, rec)); rec.Code != http.StatusOK || diff != "" {
		t.Errorf("POST = %d, want 200; answer (-want +got):\n%s", rec.Code, diff)
	}
	// The page posts the message it had the wallet sign; the Verifier
	// gets it as it came, to hold it to the challenge.
	msg := `{"signature": "` + testSig + `", "message": "line\nNonce: ` + testNonce + `"}`
	if rec := post(h, "/verify/"+testNonce, msg, nil); rec.Code != http.StatusOK {
		t.Errorf("POST with the message = %d, want 200", rec.Code)
	}
	want2 := []string{"verify " + testNonce + " " + testSig, "verify " + testNonce + " " + testSig + " line\nNonce: " + testNonce}
	if diff := cmp.Diff(want2, f.Calls()); diff != "" {
		t.Errorf("Verifier calls (-want +got):\n%s", diff)
	}
	if got := rec.Header().Get("Content-Type"); got != "application/json; charset=utf-8" {
		t.Errorf("POST: Content-Type = %q, want application/json; charset=utf-8", got)
	}
}

// TestVerificationSubmit_Errors maps each core sentinel to its status and
// words; the words are checked by a distinctive phrase.
func TestVerificationSubmit_Errors(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantCode int
		wantText string
	}{
		{"ErrNotFound", core.ErrNotFound, 404, "This verification link is not valid."},
		{"ErrNoChallenge", core.ErrNoChallenge, 404, "This verification link is not valid."},
		{"ErrChallengeExpired", core.ErrChallengeExpired, 410, "has expired. Links work for 10 minutes. Run /link"},
		{"ErrChallengeUsed", core.ErrChallengeUsed, 410, "already used. Check your wallets with /wallet. Run /link"},
		{"ErrBadSignature", core.ErrBadSignature, 400, "130 of them for an ordinary wallet, more for a smart-contract wallet"},
		{"ContractUnchecked", core.ErrChainsNotConfigured, 422, "looks like a smart-contract wallet's signature"},
		{"MismatchNoChains", fmt.Errorf("%w: %w", core.ErrChainsNotConfigured, &core.SignatureError{Recovered: "0x01", Want: "0x02"}), 422, "not made by the linked wallet's key"},
		{"ErrChallengeLocked", core.ErrChallengeLocked, 410, "locked after 10 wrong signatures. It takes no signature now, not even the right one. Run /link"},
		{"LockedNow", fmt.Errorf("%w: %w", core.ErrChallengeLocked, &core.SignatureError{Recovered: "0x01", Want: "0x02"}), 410, "locked after 10 wrong signatures"},
		{"ErrSignatureOldMessage", core.ErrSignatureOldMessage, 422, "earlier message"},
		{"ErrSignatureAltered", core.ErrSignatureAltered, 422, "changed copy of the message"},
		{"ErrSignatureMismatch", core.ErrSignatureMismatch, 422, "not made by the linked wallet"},
		{"SignatureError", &core.SignatureError{Recovered: "0x01", Want: "0x02"}, 422, "not made by the linked wallet"},
		{"ErrChainUnavailable", &core.ChainError{Chain: 8453, Err: core.ErrChainUnavailable}, 503, "could not be reached"},
		{"ErrTooManyChainChecks", fmt.Errorf("%w: %w", core.ErrTooManyChainChecks, core.ErrChainUnavailable), 429, "Too many signatures were checked"},
		{"ErrEmailNotVerifiable", core.ErrEmailNotVerifiable, 422, "e-mail address cannot be verified"},
		{"ErrMessageMalformed", core.ErrMessageMalformed, 422, "not this page's sign-in message"},
		{"ErrMessageDomain", &core.MessageError{Term: "domain", Err: core.ErrMessageDomain}, 422, "a sign-in to another site"},
		{"ErrMessageURI", &core.MessageError{Term: "uri", Err: core.ErrMessageURI}, 422, "names another page"},
		{"ErrMessageAddress", &core.MessageError{Term: "address", Err: core.ErrMessageAddress}, 422, "names another wallet"},
		{"ErrMessageNonce", &core.MessageError{Term: "nonce", Err: core.ErrMessageNonce}, 422, "belongs to another challenge"},
		{"ErrMessageChain", &core.MessageError{Term: "chain id", Err: core.ErrMessageChain}, 422, "another chain or version"},
		{"ErrMessageTime", &core.MessageError{Term: "expiration time", Err: core.ErrMessageTime}, 422, "times in the signed message"},
		{"ErrMessageChanged", &core.MessageError{Term: "statement", Err: core.ErrMessageChanged}, 422, "message was changed"},
		{"Unknown", errors.New("verify: pq: deadlock detected"), 500, "Something went wrong on our side. Please try again in a minute (reference "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log testlog.Buffer
			h := newTestVerification(&fakeVerifier{verifyErr: tt.err}, "", &log)
			rec := post(h, "/verify/"+testNonce, sigBody(testSig), nil)
			got := decodeResult(t, rec)
			if rec.Code != tt.wantCode || got.OK || !strings.Contains(got.Error, tt.wantText) {
				t.Errorf("POST with %v = %d %+v, want %d with %q", tt.err, rec.Code, got, tt.wantCode, tt.wantText)
			}
			if strings.Contains(got.Error, "pq:") {
				t.Errorf("POST with %v: answer shows the raw error: %q", tt.err, got.Error)
			}
			if tt.wantCode == 500 {
				ref := strings.TrimSuffix(strings.SplitAfter(got.Error, "reference ")[1], ").")
				if l := log.String(); !strings.Contains(l, "ref="+ref) || !strings.Contains(l, "deadlock detected") {
					t.Errorf("log lacks ref=%s and the error:\n%s", ref, l)
				}
			}
		})
	}
}

// TestVerificationSubmit_Rejects checks what is refused before the core is
// asked: the Verifier must see no call.
func TestVerificationSubmit_Rejects(t *testing.T) {
	tests := []struct {
		name     string
		path     string
		body     string
		hdr      map[string]string
		wantCode int
	}{
		{"TextPlain", "/verify/" + testNonce, sigBody(testSig), map[string]string{"Content-Type": "text/plain"}, 415},
		{"FormEncoded", "/verify/" + testNonce, "signature=" + testSig, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415},
		{"NoContentType", "/verify/" + testNonce, sigBody(testSig), map[string]string{"Content-Type": ""}, 415},
		{"Oversized", "/verify/" + testNonce, sigBody(strings.Repeat("a", maxSubmitBytes)), nil, 413},
		{"OversizedPadding", "/verify/" + testNonce, sigBody(testSig) + strings.Repeat(" ", maxSubmitBytes), nil, 413},
		{"ForeignOrigin", "/verify/" + testNonce, sigBody(testSig), map[string]string{"Origin": "https://evil.example"}, 403},
		{"NullOrigin", "/verify/" + testNonce, sigBody(testSig), map[string]string{"Origin": "null"}, 403},
		{"OtherPort", "/verify/" + testNonce, sigBody(testSig), map[string]string{"Origin": "http://example.com:8081"}, 403},
		{"BadJSON", "/verify/" + testNonce, `{"signature":`, nil, 400},
		{"NoSignature", "/verify/" + testNonce, `{"sig": "0x00"}`, nil, 400},
		{"BadNonce", "/verify/zz" + testNonce, sigBody(testSig), nil, 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeVerifier{challenge: testChallenge()}
			rec := post(newTestVerification(f, "https://bot.example.org", nil), tt.path, tt.body, tt.hdr)
			got := decodeResult(t, rec)
			if rec.Code != tt.wantCode || got.OK || got.Error == "" {
				t.Errorf("POST = %d %+v, want %d with an error sentence", rec.Code, got, tt.wantCode)
			}
			if calls := f.Calls(); len(calls) != 0 {
				t.Errorf("Verifier calls = %q, want none", calls)
			}
		})
	}
}

func TestVerificationSubmit_Origins(t *testing.T) {
	tests := []struct {
		name, publicURL, origin string
		wantCode                int
	}{
		{"NoOrigin", "", "", 200},
		{"RequestHost", "", "http://example.com", 200},
		{"RequestHostHTTPS", "https://bot.example.org", "https://example.com", 200},
		{"PublicURL", "https://bot.example.org/poap", "https://bot.example.org", 200},
		{"PublicURLOtherScheme", "https://bot.example.org", "http://bot.example.org", 403},
		{"Foreign", "https://bot.example.org", "https://bot.example.org.evil.example", 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newTestVerification(&fakeVerifier{challenge: testChallenge()}, tt.publicURL, nil)
			rec := post(h, "/verify/"+testNonce, sigBody(testSig), map[string]string{"Origin": tt.origin})
			if rec.Code != tt.wantCode {
				t.Errorf("POST with Origin %q, PUBLIC_URL %q = %d, want %d", tt.origin, tt.publicURL, rec.Code, tt.wantCode)
			}
		})
	}
}

func TestVerificationSubmit_Method(t *testing.T) {
	h := newTestVerification(&fakeVerifier{}, "", nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPut, "/verify/"+testNonce, nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("PUT /verify/{nonce} = %d, want 405", rec.Code)
	}
}
