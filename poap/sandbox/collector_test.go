package sandbox_test

import (
	"testing"

	"github.com/poapbot/poapbot/poap/sandbox"
)

func TestSeedCollector(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	const collector = "0x00000000000000000000000000000000c011ec70"
	if err := h.SeedCollector(collector, 1200); err != nil {
		t.Fatalf("SeedCollector() = %v", err)
	}
	r := h.call(t, "GET", "/actions/scan/"+collector, nil)
	items, _ := r.body.([]any)
	if r.status != 200 || len(items) != 1200 {
		t.Fatalf("GET /actions/scan = %d with %d items, want 200 with 1200", r.status, len(items))
	}
	newest := items[0].(map[string]any)
	event := newest["event"].(map[string]any)
	if event["name"] != "Collection drop #1200" || event["supply"] != 1.0 || newest["created"] != "2021-02-20 08:00:00" {
		t.Errorf("newest POAP = %v, want drop #1200 with supply 1, minted 2021-02-20 08:00:00", newest)
	}
	for _, bad := range []struct {
		address string
		n       int
	}{{"not-an-address", 1}, {collector, -1}} {
		if err := h.SeedCollector(bad.address, bad.n); err == nil {
			t.Errorf("SeedCollector(%q, %d) = nil, want an error", bad.address, bad.n)
		}
	}
}
