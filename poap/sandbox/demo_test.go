package sandbox_test

import (
	"strconv"
	"testing"

	"github.com/poapbot/poapbot/poap/sandbox"
)

func TestSeedDemo_Distribution(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	h.SeedDemo()
	h.SeedDemo()
	id := strconv.FormatInt(sandbox.DemoLinksDropID, 10)
	links := h.MintLinksOf(sandbox.DemoLinksDropID)
	if len(links) != sandbox.DemoClaimedLinks+sandbox.DemoUnclaimedLinks || links[0] != "sbx001" {
		t.Fatalf("MintLinksOf(DemoLinksDropID) = %d links from %q, want 55 from sbx001", len(links), links[0])
	}
	codes := h.call(t, "POST", "/event/"+id+"/qr-codes", map[string]string{"secret_code": sandbox.DemoEditCode})
	claimed := 0
	for _, item := range codes.body.([]any) {
		if item.(map[string]any)["claimed"] == true {
			claimed++
		}
	}
	if claimed != sandbox.DemoClaimedLinks {
		t.Errorf("%d demo links claimed, want %d", claimed, sandbox.DemoClaimedLinks)
	}
	holders := h.call(t, "GET", "/event/"+id+"/poaps?limit=300", nil)
	if holders.field("total") != 5.0 {
		t.Errorf("demo drop holders = %v, want 5", holders.body)
	}
	if r := h.call(t, "POST", "/actions/claim-qr", mintBody("sbx006", wallet(1))); r.status != 200 {
		t.Errorf("mint of a free demo link = %d %v", r.status, r.body)
	}
	if r := h.claimWebsite(t, sandbox.DemoWebsite, wallet(2)); r.status != 200 {
		t.Errorf("demo website claim = %d %v", r.status, r.body)
	}
	old := h.call(t, "GET", "/event/"+strconv.FormatInt(sandbox.DemoDropID, 10)+"/poaps", nil)
	tokens := old.field("tokens").([]any)
	if len(tokens) != 2 || tokens[1].(map[string]any)["owner"].(map[string]any)["ens"] != sandbox.DemoENS {
		t.Errorf("holders of DemoDropID = %v, want DemoWallet2 then DemoWallet with its ENS name", old.body)
	}
	if r := h.call(t, "GET", "/event/1/poaps?limit=301", nil); r.status != 400 {
		t.Errorf("holders with limit 301 = %d, want 400", r.status)
	}
	if r := h.call(t, "GET", "/health-check", nil); r.field("status") != "healthy" {
		t.Errorf("health check = %v", r.body)
	}
}
