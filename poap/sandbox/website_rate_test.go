package sandbox_test

import (
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// rateSite is the website claim of the throttle tests.
const rateSite = "rate-site"

// websiteDrop creates a drop with an approved website claim, rateSite, of
// codes mints, open around the harness clock's start, and returns its id.
func websiteDrop(t *testing.T, h *harness, codes int) int64 {
	t.Helper()
	id := h.createDrop(t, dropFields())
	body := secretRequest(id, rateSite, "website")
	body["requested_codes"] = codes
	if r := h.call(t, "POST", "/secret-requests", body); r.status != http.StatusOK {
		t.Fatalf("POST /secret-requests = %d %v", r.status, r.body)
	}
	if n := h.ApproveRequests(id); n != 1 {
		t.Fatalf("ApproveRequests() = %d, want 1", n)
	}
	return id
}

// checkThrottled fails unless r is the gateway's 429 asking to come back in
// retryAfter seconds.
func checkThrottled(t *testing.T, what string, r reply, retryAfter string) {
	t.Helper()
	want := map[string]any{"message": "Too Many Requests"}
	if diff := cmp.Diff(want, r.body); r.status != http.StatusTooManyRequests || diff != "" {
		t.Errorf("%s = %d, want 429, body mismatch (-want +got):\n%s", what, r.status, diff)
	}
	if got := r.header.Get("Retry-After"); got != retryAfter {
		t.Errorf("%s: Retry-After = %q, want %q", what, got, retryAfter)
	}
}

// checkClaimed fails unless the website claim counts want mints and
// address holds none of drop id.
func checkClaimed(t *testing.T, h *harness, id int64, want int, address string) {
	t.Helper()
	if got := h.call(t, "GET", "/secret/"+rateSite, nil).field("claimed"); got != float64(want) {
		t.Errorf("claimed = %v, want %d", got, want)
	}
	if slices.Contains(h.Holders(id), address) {
		t.Errorf("Holders() = %v, want %s not among them", h.Holders(id), address)
	}
}

// TestWebsiteClaimRate walks the throttle on the test clock: a burst
// passes, the next claim is refused with the wait for the next token, in
// whole seconds rounded up, and is not applied; once the token is earned a
// claim passes.
func TestWebsiteClaimRate(t *testing.T) {
	h := newHarness(t, sandbox.Options{WebsiteClaimRate: 0.25, WebsiteClaimBurst: 2})
	id := websiteDrop(t, h, 5)
	steps := []struct {
		name       string
		advance    time.Duration
		wallet     int
		retryAfter string // "" for a claim that passes
	}{
		{"Burst1", 0, 1, ""},
		{"Burst2", 0, 2, ""},
		{"Empty", 0, 3, "4"},
		{"RoundedUp", 1500 * time.Millisecond, 3, "3"},
		{"LastTenth", 2400 * time.Millisecond, 3, "1"},
		{"Earned", 100 * time.Millisecond, 3, ""},
		{"EmptyAgain", 0, 4, "4"},
	}
	minted := 0
	for _, st := range steps {
		h.clock.Advance(st.advance)
		r := h.claimWebsite(t, rateSite, wallet(st.wallet))
		if st.retryAfter == "" {
			minted++
			if r.status != http.StatusOK {
				t.Errorf("%s: website claim = %d %v, want 200", st.name, r.status, r.body)
			}
			continue
		}
		checkThrottled(t, st.name, r, st.retryAfter)
		checkClaimed(t, h, id, minted, wallet(st.wallet))
	}
	if got := h.MintCount(id); got != 3 {
		t.Errorf("MintCount() = %d, want 3", got)
	}
	if got := h.Requests(wire.OpWebsiteClaim); got != len(steps) {
		t.Errorf("Requests(OpWebsiteClaim) = %d, want %d: throttled claims are counted", got, len(steps))
	}
}

// TestSetWebsiteClaimRate checks that no rate is no limit, that the knob
// sets one and lifts it, and that every claim spends a token, refused by
// the service or not, as the gateway throttles requests rather than mints.
func TestSetWebsiteClaimRate(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	id := websiteDrop(t, h, 10)
	for i := range 5 {
		if r := h.claimWebsite(t, rateSite, wallet(i)); r.status != http.StatusOK {
			t.Fatalf("claim %d without a rate = %d %v, want 200", i, r.status, r.body)
		}
	}
	h.SetWebsiteClaimRate(1, 1)
	if r := h.claimWebsite(t, rateSite, wallet(0)); r.message() != "You already minted a POAP for this drop." {
		t.Errorf("claim of a holder = %d %v, want already minted", r.status, r.body)
	}
	checkThrottled(t, "claim after a refused one", h.claimWebsite(t, rateSite, wallet(5)), "1")
	checkClaimed(t, h, id, 5, wallet(5))
	h.SetWebsiteClaimRate(0, 0)
	if r := h.claimWebsite(t, rateSite, wallet(5)); r.status != http.StatusOK {
		t.Errorf("claim with the rate lifted = %d %v, want 200", r.status, r.body)
	}
}

// TestWebsiteClaimRate_Concurrent sends more claims at once than the burst
// at a clock that does not move: exactly a burst of them pass.
func TestWebsiteClaimRate_Concurrent(t *testing.T) {
	const burst, n = 10, 30
	h := newHarness(t, sandbox.Options{WebsiteClaimRate: 1, WebsiteClaimBurst: burst})
	id := websiteDrop(t, h, n)
	var wg sync.WaitGroup
	var ok, throttled atomic.Int64
	for i := range n {
		wg.Go(func() {
			switch post(t, h, http.DefaultClient, "/website/claim", map[string]string{"website": rateSite, "address": wallet(i)}) {
			case http.StatusOK:
				ok.Add(1)
			case http.StatusTooManyRequests:
				throttled.Add(1)
			}
		})
	}
	wg.Wait()
	if ok.Load() != burst || throttled.Load() != n-burst || h.MintCount(id) != burst {
		t.Errorf("%d claims passed, %d throttled, %d POAPs; want %d, %d, %d",
			ok.Load(), throttled.Load(), h.MintCount(id), burst, n-burst, burst)
	}
}
