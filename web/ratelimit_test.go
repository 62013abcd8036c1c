package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// postFrom sends a signature to the page's POST endpoint from the remote
// address remote.
func postFrom(h http.Handler, remote string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/verify/"+testNonce, strings.NewReader(sigBody(testSig)))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = remote
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestVerificationSubmit_RateLimit: an address gets submitBurst POSTs,
// then 429 with Retry-After and words in the page's JSON shape, and the
// core is not asked; other addresses are not held up; a token comes back
// every submitEvery; addresses of one IPv6 /64 share a bucket.
func TestVerificationSubmit_RateLimit(t *testing.T) {
	f := &fakeVerifier{challenge: testChallenge()}
	h := newTestVerification(f, "", nil)
	now := testNow
	h.(*verification).now = func() time.Time { return now }
	for i := range submitBurst {
		if rec := postFrom(h, "192.0.2.1:4000"); rec.Code != http.StatusOK {
			t.Fatalf("POST %d of %d = %d, want 200", i+1, submitBurst, rec.Code)
		}
	}
	rec := postFrom(h, "192.0.2.1:4001")
	got := decodeResult(t, rec)
	if rec.Code != http.StatusTooManyRequests || got.OK || !strings.Contains(got.Error, "Too many signatures were sent from your network. Please wait 1 second,") {
		t.Errorf("POST past the burst = %d %+v, want 429 with words to wait", rec.Code, got)
	}
	if ra := rec.Header().Get("Retry-After"); ra != "1" {
		t.Errorf("Retry-After = %q, want 1", ra)
	}
	if n := len(f.Calls()); n != submitBurst {
		t.Errorf("Verifier calls = %d, want %d: the refused POST reached the core", n, submitBurst)
	}
	if rec := postFrom(h, "198.51.100.7:4000"); rec.Code != http.StatusOK {
		t.Errorf("POST from another address = %d, want 200", rec.Code)
	}
	now = now.Add(submitEvery)
	if rec := postFrom(h, "192.0.2.1:4002"); rec.Code != http.StatusOK {
		t.Errorf("POST after %s = %d, want 200", submitEvery, rec.Code)
	}
	if rec := postFrom(h, "192.0.2.1:4003"); rec.Code != http.StatusTooManyRequests {
		t.Errorf("POST right after = %d, want 429", rec.Code)
	}

	for i := range submitBurst {
		postFrom(h, fmt.Sprintf("[2001:db8:1:2::%x]:443", i+1))
	}
	if rec := postFrom(h, "[2001:db8:1:2:ffff::1]:443"); rec.Code != http.StatusTooManyRequests {
		t.Errorf("POST from the same IPv6 /64 = %d, want 429", rec.Code)
	}
	if rec := postFrom(h, "[2001:db8:1:3::1]:443"); rec.Code != http.StatusOK {
		t.Errorf("POST from another IPv6 /64 = %d, want 200", rec.Code)
	}
}

// TestVerificationPage_NotLimited: the GET page does not spend the POST
// limit.
func TestVerificationPage_NotLimited(t *testing.T) {
	h := newTestVerification(&fakeVerifier{challenge: testChallenge()}, "", nil)
	for range submitBurst + 1 {
		if rec := serveGet(h, "/verify/"+testNonce); rec.Code != http.StatusOK {
			t.Fatalf("GET = %d, want 200", rec.Code)
		}
	}
	if rec := postFrom(h, "192.0.2.1:4000"); rec.Code != http.StatusOK {
		t.Errorf("POST after %d GETs = %d, want 200", submitBurst+1, rec.Code)
	}
}

// TestAddressLimiter_Bounded: however many addresses come, at most max
// buckets are kept, and an address that spent its bucket is still held to
// it while the others it shares the table with are idle and full.
func TestAddressLimiter_Bounded(t *testing.T) {
	l := newAddressLimiter(2, time.Second, 4)
	now := testNow
	req := func(remote string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		r.RemoteAddr = remote
		return r
	}
	for range 2 {
		l.allow(req("192.0.2.1:1"), now)
	}
	for i := range 1000 {
		l.allow(req(fmt.Sprintf("10.0.%d.%d:1", i/256, i%256)), now)
		if n := len(l.buckets); n > 4 {
			t.Fatalf("after %d addresses %d buckets are kept, want at most 4", i+1, n)
		}
	}
	l = newAddressLimiter(2, time.Second, 4)
	for range 2 {
		l.allow(req("192.0.2.1:1"), now)
	}
	for i := range 3 {
		l.allow(req(fmt.Sprintf("10.0.0.%d:1", i)), now.Add(-time.Hour))
	}
	l.allow(req("10.0.1.1:1"), now)
	if ok, wait := l.allow(req("192.0.2.1:1"), now); ok || wait != time.Second {
		t.Errorf("allow(spent address, after room was made) = %v, %s, want false, 1s", ok, wait)
	}
}

func TestAddressKey(t *testing.T) {
	tests := []struct{ remote, want string }{
		{"192.0.2.1:1234", "192.0.2.1/32"},
		{"[::ffff:192.0.2.1]:1234", "192.0.2.1/32"},
		{"[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1:2::/64"},
		{"[fe80::1%eth0]:443", "fe80::/64"},
		{"192.0.2.1", "192.0.2.1/32"},
		{"@", "invalid Prefix"},
	}
	for _, tt := range tests {
		if got := addressKey(tt.remote).String(); got != tt.want {
			t.Errorf("addressKey(%q) = %s, want %s", tt.remote, got, tt.want)
		}
	}
}
