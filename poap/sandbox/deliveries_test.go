package sandbox_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// deliveryBody is a valid body of POST /deliveries for two drops.
func deliveryBody(a, b int64, codeA, codeB string) map[string]any {
	return map[string]any{
		"slug": "test-delivery", "card_title": "Card", "card_text": "Text", "page_title": "Page", "page_text": "Text",
		"event_ids":    strconv.FormatInt(a, 10) + "," + strconv.FormatInt(b, 10),
		"secret_codes": codeA + "," + codeB,
		"image":        "https://example.org/i.png", "page_title_image": "https://example.org/t.png",
		"metadata_title": "Meta", "metadata_description": "Meta text",
		"addresses": []map[string]any{
			{"address": wallet(1), "events": []int64{a, b}},
			{"address": wallet(2), "events": []int64{b}},
		},
	}
}

func TestDeliveries(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	a, codeA, _ := linksDrop(t, h, 0)
	b, codeB, _ := linksDrop(t, h, 0)
	r := h.call(t, "POST", "/deliveries", deliveryBody(a, b, codeA, codeB))
	id, ok := r.field("id").(float64)
	if r.status != 200 || !ok || r.field("total_addresses") != 2.0 || r.field("slug") != "test-delivery" {
		t.Fatalf("POST /deliveries = %d %v", r.status, r.body)
	}
	claim := func(address string) reply {
		return h.call(t, "POST", "/actions/claim-delivery-v2", map[string]any{"id": id, "address": address})
	}
	first := claim(wallet(1))
	if uid, _ := first.field("queue_uid").(string); first.status != 200 || len(uid) != 36 {
		t.Fatalf("delivery claim = %d %v, want a queue_uid", first.status, first.body)
	}
	if tx := h.call(t, "GET", "/transaction-requests/"+first.field("queue_uid").(string), nil); tx.field("operation") != "mintDeliveryTokenV2" {
		t.Errorf("delivery transaction = %v", tx.body)
	}
	steps := []struct {
		name, address string
		wantStatus    int
		wantMsg       string
	}{
		{"Twice", wallet(1), 400, "Delivery already claimed"},
		{"NotListed", wallet(3), 400, "This address is not on the delivery's list"},
		{"BadAddress", "0xnope", 400, "Address is not valid"},
		{"Second", wallet(2), 200, ""},
	}
	for _, st := range steps {
		if r := claim(st.address); r.status != st.wantStatus || r.message() != st.wantMsg {
			t.Errorf("%s: claim = %d %v, want %d %q", st.name, r.status, r.body, st.wantStatus, st.wantMsg)
		}
	}
	if h.MintCount(a) != 1 || h.MintCount(b) != 2 {
		t.Errorf("POAPs: %d of a, %d of b, want 1 and 2", h.MintCount(a), h.MintCount(b))
	}
	if r := h.call(t, "POST", "/actions/claim-delivery-v2", map[string]any{"id": 1, "address": wallet(1)}); r.status != 404 {
		t.Errorf("unknown delivery = %d, want 404", r.status)
	}
}

func TestDeliveryBySlug(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	a, codeA, _ := linksDrop(t, h, 0)
	b, codeB, _ := linksDrop(t, h, 0)
	created := h.call(t, "POST", "/deliveries", deliveryBody(a, b, codeA, codeB))
	if created.status != 200 {
		t.Fatalf("POST /deliveries = %d %v", created.status, created.body)
	}
	got := getKeyOnly(t, h, "/delivery/slug/TEST-Delivery")
	if diff := cmp.Diff(created.body, got.body); got.status != 200 || diff != "" {
		t.Errorf("GET /delivery/slug/TEST-Delivery = %d, body mismatch with the creation's answer (-want +got):\n%s", got.status, diff)
	}
	h.call(t, "POST", "/actions/claim-delivery-v2", map[string]any{"id": created.field("id"), "address": wallet(2)})
	if r := getKeyOnly(t, h, "/delivery/slug/test-delivery"); r.field("claimed_addresses") != 1.0 || r.field("total_addresses") != 2.0 {
		t.Errorf("after a claim = %v, want 1 of 2 addresses claimed", r.body)
	}
	missing := getKeyOnly(t, h, "/delivery/slug/other-delivery")
	want := map[string]any{"statusCode": 404.0, "error": "Not Found", "message": "Delivery not found"}
	if diff := cmp.Diff(want, missing.body); missing.status != 404 || diff != "" {
		t.Errorf("unknown slug = %d, body mismatch (-want +got):\n%s", missing.status, diff)
	}
	if n := h.Requests(wire.OpDeliveryBySlug); n != 3 {
		t.Errorf("Requests(OpDeliveryBySlug) = %d, want 3", n)
	}
}

// getKeyOnly sends a GET with the API key and no access token, as the open
// routes take it, and decodes the answer.
func getKeyOnly(t *testing.T, h *harness, path string) reply {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, h.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := reply{status: resp.StatusCode, header: resp.Header}
	if err := json.NewDecoder(resp.Body).Decode(&out.body); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return out
}

func TestDropNextDeliveryResponses(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	a, codeA, _ := linksDrop(t, h, 0)
	b, codeB, _ := linksDrop(t, h, 0)
	h.DropNextDeliveryResponses(1)
	if status := post(t, h, http.DefaultClient, "/deliveries", deliveryBody(a, b, codeA, codeB)); status != 0 {
		t.Fatalf("POST /deliveries with its answer dropped = %d, want no answer", status)
	}
	if r := getKeyOnly(t, h, "/delivery/slug/test-delivery"); r.status != 200 || r.field("total_addresses") != 2.0 {
		t.Errorf("GET of the lost creation = %d %v, want the delivery", r.status, r.body)
	}
	if r := h.call(t, "POST", "/deliveries", deliveryBody(a, b, codeA, codeB)); r.status != 400 || r.message() != `slug "test-delivery" is already taken` {
		t.Errorf("creation sent again = %d %v, want the slug taken", r.status, r.body)
	}
	next := deliveryBody(a, b, codeA, codeB)
	next["slug"] = "next-delivery"
	if status := post(t, h, http.DefaultClient, "/deliveries", next); status != 200 {
		t.Errorf("next creation = %d, want 200: the knob drops one answer", status)
	}
}

func TestDeliveryAddresses(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	a, codeA, _ := linksDrop(t, h, 0)
	b, codeB, _ := linksDrop(t, h, 0)
	body := deliveryBody(a, b, codeA, codeB)
	mixed := "0x00000000000000000000000000000000000ABC09"
	body["addresses"] = []map[string]any{
		{"address": wallet(7), "events": []int64{a}},
		{"address": mixed, "events": []int64{b}},
	}
	created := h.call(t, "POST", "/deliveries", body)
	want := []string{strings.ToLower(mixed), wallet(7)}
	if diff := cmp.Diff(want, h.DeliveryAddresses("Test-Delivery")); diff != "" {
		t.Errorf("DeliveryAddresses() mismatch (-want +got):\n%s", diff)
	}
	if got := h.DeliveryAddresses("other"); got != nil {
		t.Errorf("DeliveryAddresses(unknown) = %v, want nil", got)
	}
	if h.DeliveryClaimed("test-delivery", mixed) {
		t.Error("DeliveryClaimed() before any claim = true")
	}
	h.call(t, "POST", "/actions/claim-delivery-v2", map[string]any{"id": created.field("id"), "address": mixed})
	if !h.DeliveryClaimed("test-delivery", strings.ToLower(mixed)) || h.DeliveryClaimed("test-delivery", wallet(7)) ||
		h.DeliveryClaimed("other", mixed) {
		t.Error("DeliveryClaimed() after one claim: want only the claimer's address claimed")
	}
}

func TestDeliveries_Invalid(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	a, codeA, _ := linksDrop(t, h, 0)
	b, codeB, _ := linksDrop(t, h, 0)
	tests := []struct {
		name    string
		change  map[string]any
		wantMsg string
	}{
		{"WrongCode", map[string]any{"secret_codes": codeA + ",000000"}, "Invalid edit code"},
		{"OneCode", map[string]any{"secret_codes": codeA}, "secret_codes must give one edit code for each of event_ids, in the same order"},
		{"NoSlug", map[string]any{"slug": ""}, "slug must be 1 to 100 letters, digits, hyphens or underscores"},
		{"NoAddresses", map[string]any{"addresses": []any{}}, "addresses must list at least one address"},
		{"BadAddress", map[string]any{"addresses": []map[string]any{{"address": "x@example.org", "events": []int64{a}}}}, "Address is not valid: addresses[0]"},
		{"OtherDrop", map[string]any{"addresses": []map[string]any{{"address": wallet(1), "events": []int64{999}}}}, "addresses[0].events: 999 is not one of event_ids"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := deliveryBody(a, b, codeA, codeB)
			for k, v := range tc.change {
				body[k] = v
			}
			if r := h.call(t, "POST", "/deliveries", body); r.status != 400 || r.message() != tc.wantMsg {
				t.Errorf("POST /deliveries = %d %v, want 400 %q", r.status, r.body, tc.wantMsg)
			}
		})
	}
}

func TestMintingConfig(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	id, code, links := linksDrop(t, h, 1)
	path := "/drops/" + strconv.FormatInt(id, 10) + "/minting-config"
	editCode, _ := strconv.Atoi(code)
	if r := h.call(t, "POST", path, map[string]any{"edit_code": editCode}); r.field("supported_mint_blockchains").([]any)[0] != 100.0 {
		t.Errorf("default config = %v, want chain 100", r.body)
	}
	tests := []struct {
		name    string
		body    map[string]any
		wantMsg string
	}{
		{"Mainnet", map[string]any{"edit_code": editCode, "supported_mint_blockchains": []int{1}}, "chain id 1 is not supported; use one of [100 130 137 5000 8453 33139 42161 42220 59144 88888]"},
		{"Two", map[string]any{"edit_code": editCode, "supported_mint_blockchains": []int{100, 137}}, "supported_mint_blockchains must hold exactly one chain id: a drop mints on one network"},
		{"NoCode", map[string]any{"supported_mint_blockchains": []int{137}}, "edit_code is required"},
		{"WrongCode", map[string]any{"edit_code": editCode + 1, "supported_mint_blockchains": []int{137}}, "Invalid edit code"},
	}
	for _, tc := range tests {
		if r := h.call(t, "PATCH", path, tc.body); r.status != 400 || r.message() != tc.wantMsg {
			t.Errorf("%s: PATCH = %d %v, want 400 %q", tc.name, r.status, r.body, tc.wantMsg)
		}
	}
	if r := h.call(t, "PATCH", path, map[string]any{"edit_code": editCode, "supported_mint_blockchains": []int{8453}}); r.status != 200 {
		t.Fatalf("PATCH base = %d %v", r.status, r.body)
	}
	h.call(t, "POST", "/actions/claim-qr", mintBody(links[0], wallet(1)))
	scan := h.call(t, "GET", "/actions/scan/"+wallet(1), nil)
	if chain := scan.body.([]any)[0].(map[string]any)["chain"]; chain != "base" {
		t.Errorf("chain of the mint = %v, want base", chain)
	}
}
