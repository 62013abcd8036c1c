package sandbox_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/poap/sandbox"
)

func TestMoveToken(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	d := h.AddDrop(sandbox.Drop{Name: "Moved"})
	// The move matches from without regard to case; to is stored as given.
	from, to := wallet(1), "0x"+strings.ToUpper(wallet(2)[2:])
	if err := h.SeedHolders(d.ID, []string{from, wallet(3)}); err != nil {
		t.Fatalf("SeedHolders() = %v", err)
	}
	id, err := h.MoveToken(d.ID, strings.ToUpper(from), to)
	if err != nil || id == "" {
		t.Fatalf("MoveToken() = %q, %v, want a token id", id, err)
	}

	p := h.holders(t, d.ID, 0, 300)
	if p.total != 2 || p.transfers != 1 || !slices.Contains(p.owners, to) || slices.Contains(p.owners, from) {
		t.Errorf("holders after the move = %+v, want %s instead of %s, 1 transfer", p, to, from)
	}
	for i, owner := range p.owners {
		if want := map[bool]string{true: "1", false: "0"}[owner == to]; p.counts[i] != want {
			t.Errorf("transferCount of %s's POAP = %s, want %s", owner, p.counts[i], want)
		}
	}
	if r := h.call(t, "GET", "/actions/scan/"+from, nil); len(r.body.([]any)) != 0 {
		t.Errorf("scan of %s after the move = %v, want []", from, r.body)
	}
	if r := h.call(t, "GET", "/actions/scan/"+wallet(2), nil); len(r.body.([]any)) != 1 {
		t.Errorf("scan of %s after the move = %v, want its one POAP", wallet(2), r.body)
	}
	if r := h.call(t, "GET", fmt.Sprintf("/actions/scan/%s/%d", from, d.ID), nil); r.status != 404 {
		t.Errorf("scan of %s for the drop = %d, want 404", from, r.status)
	}
	if r := h.call(t, "GET", fmt.Sprintf("/actions/scan/%s/%d", wallet(2), d.ID), nil); r.status != 200 || r.field("tokenId") != id {
		t.Errorf("scan of %s for the drop = %d %v, want 200 with token %s", wallet(2), r.status, r.body, id)
	}
	if r := h.call(t, "GET", "/token/"+id, nil); r.field("owner") != to {
		t.Errorf("GET /token/%s owner = %v, want %s", id, r.field("owner"), to)
	}
}

func TestMoveToken_Errors(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	d := h.AddDrop(sandbox.Drop{Name: "Moved"})
	if _, err := h.Mint(d.ID, "someone@example.org", "", h.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if err := h.SeedHolders(d.ID, []string{wallet(1)}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		drop     int64
		from, to string
	}{
		{"NotHeld", d.ID, wallet(2), wallet(3)},
		{"OtherDrop", d.ID + 1, wallet(1), wallet(3)},
		{"Email", d.ID, "someone@example.org", wallet(3)},
		{"BadTo", d.ID, wallet(1), "nobody"},
		{"Same", d.ID, wallet(1), strings.ToUpper(wallet(1))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if id, err := h.MoveToken(tt.drop, tt.from, tt.to); err == nil {
				t.Errorf("MoveToken(%d, %q, %q) = %q, nil, want an error", tt.drop, tt.from, tt.to, id)
			}
		})
	}
	if p := h.holders(t, d.ID, 0, 300); p.transfers != 0 || len(p.owners) != 1 || p.owners[0] != wallet(1) {
		t.Errorf("holders after refused moves = %+v, want %s alone, no transfer", p, wallet(1))
	}
}
