package sandbox_test

import (
	"strconv"
	"testing"

	"github.com/poapbot/poapbot/poap/sandbox"
)

func TestServer_SetEditCode(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	id, code, _ := linksDrop(t, h, 1)
	if chain, ok := h.DropChain(id); chain != 100 || !ok {
		t.Errorf("DropChain() = %d, %v, want the default 100", chain, ok)
	}
	if err := h.SetEditCode(id, "024680"); err != nil {
		t.Fatalf("SetEditCode() = %v", err)
	}
	path := "/drops/" + strconv.FormatInt(id, 10) + "/minting-config"
	old, _ := strconv.Atoi(code)
	if r := h.call(t, "PATCH", path, map[string]any{"edit_code": old, "supported_mint_blockchains": []int{8453}}); r.status != 400 || r.message() != "Invalid edit code" {
		t.Errorf("PATCH with the old code = %d %v, want 400 Invalid edit code", r.status, r.body)
	}
	if r := h.call(t, "PATCH", path, map[string]any{"edit_code": 24680, "supported_mint_blockchains": []int{8453}}); r.status != 200 {
		t.Errorf("PATCH with the new code = %d %v, want 200", r.status, r.body)
	}
	if chain, ok := h.DropChain(id); chain != 8453 || !ok {
		t.Errorf("DropChain() after the change = %d, %v, want 8453", chain, ok)
	}
	if err := h.SetEditCode(id+1000, "024680"); err == nil {
		t.Errorf("SetEditCode(unknown drop) = nil, want an error")
	}
	if _, ok := h.DropChain(id + 1000); ok {
		t.Errorf("DropChain(unknown drop) is ok, want false")
	}
}
