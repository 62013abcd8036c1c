package sandbox_test

import (
	"testing"
	"time"

	"github.com/poapbot/poapbot/poap/sandbox"
)

// secretRequest is a valid body of POST /secret-requests for drop id.
func secretRequest(id int64, name, kind string) map[string]any {
	return map[string]any{
		"event_id": id, "requested_codes": 2, "secret_code": "654321", "claim_name": name,
		"from": "2026-03-10T10:00:00Z", "to": "2026-03-10T18:00:00Z", "timezone": 0, "captcha": true, "active": true, "secret_type": kind,
	}
}

// claimWebsite posts a website claim and returns the answer.
func (h *harness) claimWebsite(t *testing.T, website, address string) reply {
	t.Helper()
	return h.call(t, "POST", "/website/claim", map[string]string{"website": website, "address": address})
}

func TestWebsiteClaim(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	id := h.createDrop(t, dropFields())
	r := h.call(t, "POST", "/secret-requests", secretRequest(id, "my-test-site", "website"))
	if _, ok := r.body.(float64); r.status != 200 || !ok {
		t.Fatalf("POST /secret-requests = %d %v, want 200 with a number", r.status, r.body)
	}
	if r := h.call(t, "GET", "/secret/my-test-site", nil); r.field("active") != false || r.field("type") != "website" {
		t.Errorf("secret before review = %v, want inactive website", r.body)
	}
	if r := h.claimWebsite(t, "my-test-site", wallet(1)); r.message() != "This website claim is not active" {
		t.Errorf("claim before review = %d %v", r.status, r.body)
	}
	h.ApproveRequests(id)
	sec := h.call(t, "GET", "/secret/my-test-site", nil)
	if sec.field("active") != true || sec.field("total") != 2.0 || sec.field("from") != "2026-03-10T10:00:00.000Z" {
		t.Errorf("secret after review = %v, want active with 2 codes from 10:00", sec.body)
	}
	first := h.claimWebsite(t, "My-Test-Site", wallet(1))
	if hash, _ := first.field("qr_hash").(string); first.status != 200 || first.field("claimed") != true || len(hash) != 6 {
		t.Fatalf("website claim = %d %v, want a claimed record", first.status, first.body)
	}
	steps := []struct {
		name, address, wantMsg string
	}{
		{"AlreadyMinted", wallet(1), "You already minted a POAP for this drop."},
		{"BadAddress", "not an address", "Address is not valid"},
		{"Second", wallet(2), ""},
		{"LimitExceeded", wallet(3), "LIMIT_EXCEEDED"},
	}
	for _, st := range steps {
		if r := h.claimWebsite(t, "my-test-site", st.address); r.message() != st.wantMsg {
			t.Errorf("%s: website claim = %d %v, want %q", st.name, r.status, r.body, st.wantMsg)
		}
	}
	topUp := map[string]any{"event_id": id, "requested_codes": 1, "secret_code": "654321", "redeem_type": "secret_website"}
	if r := h.call(t, "POST", "/redeem-requests", topUp); r.status != 200 || h.ApproveRequests(id) != 1 {
		t.Fatalf("top-up = %d %v", r.status, r.body)
	}
	if r := h.claimWebsite(t, "my-test-site", wallet(3)); r.status != 200 {
		t.Errorf("claim after the top-up = %d %v, want 200", r.status, r.body)
	}
	h.clock.Advance(7 * time.Hour)
	if r := h.claimWebsite(t, "my-test-site", wallet(4)); r.message() != "EVENT_EXPIRED: this website claim has expired" {
		t.Errorf("claim after the window = %d %v, want expired", r.status, r.body)
	}
	h.clock.Advance(-10 * time.Hour)
	if r := h.claimWebsite(t, "my-test-site", wallet(4)); r.message() != "This website claim has not started yet" {
		t.Errorf("claim before the window = %d %v, want not started", r.status, r.body)
	}
	if r := h.claimWebsite(t, "nope", wallet(4)); r.status != 404 {
		t.Errorf("unknown website = %d, want 404", r.status)
	}
	if got := len(h.Holders(id)); got != 3 {
		t.Errorf("Holders() = %d, want 3", got)
	}
}

func TestSecretRequests(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	id := h.createDrop(t, dropFields())
	if r := h.call(t, "POST", "/secret-requests", secretRequest(id, "hidden-word", "word")); r.status != 200 {
		t.Fatalf("word request = %d %v", r.status, r.body)
	}
	h.ApproveRequests(id)
	if r := h.claimWebsite(t, "hidden-word", wallet(1)); r.status != 400 {
		t.Errorf("website claim of a secret word = %d %v, want 400", r.status, r.body)
	}
	tests := []struct {
		name    string
		change  map[string]any
		wantMsg string
	}{
		{"Taken", map[string]any{"claim_name": "Hidden-Word", "secret_type": "website"}, `claim_name "Hidden-Word" is already taken`},
		{"BadName", map[string]any{"claim_name": "a b"}, "claim_name must be 1 to 100 letters, digits, hyphens or underscores"},
		{"BadFrom", map[string]any{"from": "10am"}, "from must be a date-time such as 2022-07-18T00:01:00Z"},
		{"Backwards", map[string]any{"from": "2026-03-10T18:00:00Z", "to": "2026-03-10T10:00:00.000"}, "to must be after from"},
		{"BadType", map[string]any{"secret_type": "email"}, "secret_type must be website or word"},
		{"WrongCode", map[string]any{"secret_code": "111111"}, "Invalid edit code"},
		{"Timezone", map[string]any{"timezone": 13}, "timezone must be an offset in hours from -12 to 12"},
		{"SecondWord", map[string]any{}, `the drop already has a word claim "hidden-word"; change it with PUT /secret-requests`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := secretRequest(id, "other-site", "word")
			for k, v := range tc.change {
				body[k] = v
			}
			if r := h.call(t, "POST", "/secret-requests", body); r.status != 400 || r.message() != tc.wantMsg {
				t.Errorf("POST /secret-requests = %d %v, want 400 %q", r.status, r.body, tc.wantMsg)
			}
		})
	}
	edit := map[string]any{"event_id": id, "secret_code": "654321", "secret_type": "word", "claim_name": "new-word",
		"from": "2026-03-10T08:00:00", "to": "2026-03-10T20:00:00", "timezone": 2, "active": false, "accepted_redeems": 7}
	if r := h.call(t, "PUT", "/secret-requests", edit); r.status != 200 {
		t.Fatalf("PUT /secret-requests = %d %v", r.status, r.body)
	}
	sec := h.call(t, "GET", "/secret/new-word", nil)
	if sec.field("active") != false || sec.field("total") != 7.0 || sec.field("from") != "2026-03-10T06:00:00.000Z" || sec.field("timezone") != 2.0 {
		t.Errorf("after PUT: %v, want renamed, inactive, 7 codes, from 06:00 UTC", sec.body)
	}
	if r := h.call(t, "GET", "/secret/hidden-word", nil); r.status != 404 {
		t.Errorf("old name after rename = %d, want 404", r.status)
	}
}

// TestSecretRequests_Document checks the fields the OpenAPI definition
// requires of POST and PUT /secret-requests, the whole window included, and
// its date-time format.
func TestSecretRequests_Document(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	id := h.createDrop(t, dropFields())
	if r := h.call(t, "POST", "/secret-requests", secretRequest(id, "doc-site", "website")); r.status != 200 {
		t.Fatalf("POST /secret-requests = %d %v", r.status, r.body)
	}
	edit := func() map[string]any {
		return map[string]any{"event_id": id, "secret_code": "654321", "secret_type": "website", "claim_name": "doc-site",
			"from": "2026-03-10T09:00:00Z", "to": "2026-03-10T19:00:00Z", "timezone": 0, "active": true}
	}
	tests := []struct {
		name    string
		method  string
		drop    []string       // members removed
		change  map[string]any // members changed
		wantMsg string
	}{
		{"EditNoWindow", "PUT", []string{"from", "to"}, nil, "from is required"},
		{"EditNoTo", "PUT", []string{"to"}, nil, "to is required"},
		{"EditNoActive", "PUT", []string{"active"}, nil, "active is required"},
		{"EditNoName", "PUT", []string{"claim_name"}, nil, "claim_name is required"},
		{"EditNoType", "PUT", []string{"secret_type"}, nil, "secret_type is required"},
		{"EditClock", "PUT", nil, map[string]any{"from": "09:00"}, "from must be a date-time such as 2022-07-18T00:01:00Z"},
		{"CreateClock", "POST", nil, map[string]any{"to": "19:00"}, "to must be a date-time such as 2022-07-18T00:01:00Z"},
		{"CreateNoWindow", "POST", []string{"from"}, nil, "from is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := edit()
			if tc.method == "POST" {
				body = secretRequest(id, "other-doc-site", "word")
				body["from"], body["to"] = "2026-03-10T09:00:00Z", "2026-03-10T19:00:00Z"
			}
			for _, k := range tc.drop {
				delete(body, k)
			}
			for k, v := range tc.change {
				body[k] = v
			}
			if r := h.call(t, tc.method, "/secret-requests", body); r.status != 400 || r.message() != tc.wantMsg {
				t.Errorf("%s /secret-requests = %d %v, want 400 %q", tc.method, r.status, r.body, tc.wantMsg)
			}
		})
	}
	if r := h.call(t, "PUT", "/secret-requests", edit()); r.status != 200 {
		t.Errorf("PUT /secret-requests with the whole window = %d %v, want 200", r.status, r.body)
	}
}
