package sandbox_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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

// holderPage is the part of GET /event/{id}/poaps the tests read.
type holderPage struct {
	status, total, transfers int
	owners, counts           []string
}

// holders reads one page of drop id's holders over HTTP.
func (h *harness) holders(t *testing.T, id int64, offset, limit int) holderPage {
	t.Helper()
	r := h.call(t, "GET", fmt.Sprintf("/event/%d/poaps?offset=%d&limit=%d", id, offset, limit), nil)
	p := holderPage{status: r.status}
	total, _ := r.field("total").(float64)
	transfers, _ := r.field("transferCount").(float64)
	p.total, p.transfers = int(total), int(transfers)
	tokens, _ := r.field("tokens").([]any)
	for _, tok := range tokens {
		m := tok.(map[string]any)
		p.owners = append(p.owners, m["owner"].(map[string]any)["id"].(string))
		p.counts = append(p.counts, m["transferCount"].(string))
	}
	return p
}

func TestSeedHolders(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	d := h.AddDrop(sandbox.Drop{Name: "Crowd"})
	other := h.AddDrop(sandbox.Drop{Name: "Side event"})
	addresses := make([]string, 10000)
	for i := range addresses {
		addresses[i] = wallet(i)
	}
	if err := h.SeedHolders(d.ID, addresses); err != nil {
		t.Fatalf("SeedHolders() = %v", err)
	}
	if err := h.SeedHolders(other.ID, addresses[:1]); err != nil {
		t.Fatalf("SeedHolders() = %v", err)
	}
	seen := map[string]bool{}
	for offset := 0; offset < len(addresses); offset += 300 {
		p := h.holders(t, d.ID, offset, 300)
		if want := min(300, len(addresses)-offset); p.status != 200 || p.total != len(addresses) || len(p.owners) != want {
			t.Fatalf("page at %d = %d, total %d, %d holders; want 200, total %d, %d holders",
				offset, p.status, p.total, len(p.owners), len(addresses), want)
		}
		for _, o := range p.owners {
			seen[o] = true
		}
	}
	if len(seen) != len(addresses) {
		t.Errorf("the pages name %d holders, want %d", len(seen), len(addresses))
	}
	r := h.call(t, "GET", "/actions/scan/"+wallet(0), nil)
	if items, _ := r.body.([]any); len(items) != 2 {
		t.Errorf("scan of %s = %d POAPs, want 2 (both drops)", wallet(0), len(items))
	}
	if h.MintCount(d.ID) != len(addresses) {
		t.Errorf("MintCount() = %d, want %d", h.MintCount(d.ID), len(addresses))
	}
}

func TestSeedHolders_Errors(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	d := h.AddDrop(sandbox.Drop{Name: "Crowd"})
	if err := h.SeedHolders(d.ID+1, []string{wallet(1)}); err == nil {
		t.Error("SeedHolders() of an unknown drop = nil, want an error")
	}
	if err := h.SeedHolders(d.ID, []string{wallet(1), "someone@example.org"}); err == nil {
		t.Error("SeedHolders() with an e-mail = nil, want an error")
	}
	if n := h.MintCount(d.ID); n != 0 {
		t.Errorf("MintCount() after refused seeds = %d, want 0", n)
	}
}

// BenchmarkServer_Holders reads every page of a drop of 10,000 holders,
// then scans a thousand of them, as a sweep of a gate does.
func BenchmarkServer_Holders(b *testing.B) {
	s := sandbox.New(sandbox.Options{})
	d := s.AddDrop(sandbox.Drop{Name: "Crowd"})
	addresses := make([]string, 10000)
	for i := range addresses {
		addresses[i] = wallet(i)
	}
	if err := s.SeedHolders(d.ID, addresses); err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(s)
	b.Cleanup(srv.Close)
	get := func(path string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("GET %s = %d", path, resp.StatusCode)
		}
	}
	for b.Loop() {
		for offset := 0; offset < len(addresses); offset += 300 {
			get(fmt.Sprintf("/event/%d/poaps?offset=%d&limit=300", d.ID, offset))
		}
		for _, a := range addresses[:1000] {
			get("/actions/scan/" + a)
		}
	}
}
