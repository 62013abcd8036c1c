package sandbox_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// post sends a JSON POST with client and returns the status, or 0 when the
// connection failed.
func post(t *testing.T, h *harness, client *http.Client, path string, body any) int {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Error(err)
		return 0
	}
	req, err := http.NewRequest(http.MethodPost, h.base+path, bytes.NewReader(b))
	if err != nil {
		t.Error(err)
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Authorization", "Bearer "+h.IssueToken(sandbox.DefaultAudience))
	resp, err := client.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestMint_Concurrent(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	const n = 1000
	id, _, links := linksDrop(t, h, n+1)
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 64, MaxIdleConnsPerHost: 64}}
	var wg sync.WaitGroup
	var ok atomic.Int64
	for i := range n {
		wg.Go(func() {
			if post(t, h, client, "/actions/claim-qr", mintBody(links[i], wallet(i))) == 200 {
				ok.Add(1)
			}
		})
	}
	var sameOK atomic.Int64
	for i := range 50 {
		wg.Go(func() {
			if post(t, h, client, "/actions/claim-qr", mintBody(links[n], wallet(n+i))) == 200 {
				sameOK.Add(1)
			}
		})
	}
	wg.Wait()
	if ok.Load() != n || sameOK.Load() != 1 || h.MintCount(id) != n+1 {
		t.Errorf("%d of %d distinct mints and %d of 50 mints of one link succeeded, %d POAPs; want all, one, %d",
			ok.Load(), n, sameOK.Load(), h.MintCount(id), n+1)
	}
}

func TestDropMintResponses(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	id, _, links := linksDrop(t, h, 200)
	h.DropMintResponses(10)
	var lost []int
	for i, link := range links {
		if post(t, h, http.DefaultClient, "/actions/claim-qr", mintBody(link, wallet(i))) == 0 {
			lost = append(lost, i)
		}
	}
	if len(lost) != 20 || lost[0] != 9 || h.MintCount(id) != 200 {
		t.Fatalf("%d responses lost (first %v), %d POAPs; want 20 from the tenth on, 200 POAPs", len(lost), lost[:min(1, len(lost))], h.MintCount(id))
	}
	st := h.call(t, "GET", "/actions/claim-qr?qr_hash="+links[lost[0]], nil)
	if st.field("claimed") != true || st.field("beneficiary") != wallet(lost[0]) || !h.LinkClaimed(links[lost[0]]) {
		t.Errorf("status of a lost mint = %v, want it claimed", st.body)
	}
	retry := h.call(t, "POST", "/actions/claim-qr", mintBody(links[lost[0]], wallet(lost[0])))
	if retry.message() != "QR Claim already claimed" {
		t.Errorf("retry of a lost mint = %d %v, want already claimed", retry.status, retry.body)
	}
	h.DropMintResponses(0)
	h.DropNextMintResponses(1)
	more, _ := h.AddMintLinks(id, 2)
	first := post(t, h, http.DefaultClient, "/actions/claim-qr", mintBody(more[0], wallet(500)))
	second := post(t, h, http.DefaultClient, "/actions/claim-qr", mintBody(more[1], wallet(501)))
	if first != 0 || second != 200 {
		t.Errorf("DropNextMintResponses(1): statuses %d, %d, want lost then 200", first, second)
	}
}

func TestFailNextOp(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	_, _, links := linksDrop(t, h, 1)
	h.FailNextOp(wire.OpMint, 2, http.StatusServiceUnavailable)
	for range 2 {
		r := h.call(t, "POST", "/actions/claim-qr", mintBody(links[0], wallet(1)))
		if diff := cmp.Diff(map[string]any{"message": "Service Unavailable"}, r.body); r.status != 503 || diff != "" {
			t.Errorf("planned failure = %d, body mismatch (-want +got):\n%s", r.status, diff)
		}
	}
	if r := h.call(t, "GET", "/actions/claim-qr?qr_hash="+links[0], nil); r.status != 200 || r.field("claimed") != false {
		t.Errorf("other operation during the failures = %d %v, want 200 unclaimed", r.status, r.body)
	}
	if r := h.call(t, "POST", "/actions/claim-qr", mintBody(links[0], wallet(1))); r.status != 200 {
		t.Errorf("third mint = %d, want 200", r.status)
	}
	if got := h.Requests(wire.OpMint); got != 3 {
		t.Errorf("Requests(OpMint) = %d, want 3", got)
	}
}
