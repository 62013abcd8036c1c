package sandbox_test

import (
	"fmt"
	"testing"

	"github.com/poapbot/poapbot/poap/sandbox"
)

// claimStrings are the members of a claim record (GET /actions/claim-qr,
// POST /website/claim) that the OpenAPI definition types as strings, not
// nullable. claimed_date may be absent while the link is unclaimed.
var claimStrings = []string{"qr_hash", "tx_hash", "beneficiary", "user_input", "signer", "created_date", "secret", "tx_status"}

// checkClaimRecord reports the members of a claim record that break the
// OpenAPI definition's types.
func checkClaimRecord(t *testing.T, what string, r reply) {
	t.Helper()
	body, ok := r.body.(map[string]any)
	if r.status != 200 || !ok {
		t.Fatalf("%s = %d %v, want 200 with a claim record", what, r.status, r.body)
	}
	for _, name := range claimStrings {
		if _, ok := body[name].(string); !ok {
			t.Errorf("%s: %s = %#v, want a string", what, name, body[name])
		}
	}
	if v, present := body["claimed_date"]; present {
		if _, ok := v.(string); !ok {
			t.Errorf("%s: claimed_date = %#v, want a date-time or no member", what, v)
		}
	}
	for _, name := range []string{"claimed", "is_active", "delegated_mint"} {
		if _, ok := body[name].(bool); !ok {
			t.Errorf("%s: %s = %#v, want a boolean", what, name, body[name])
		}
	}
	if _, ok := body["event"].(map[string]any); !ok {
		t.Errorf("%s: event = %#v, want an object", what, body["event"])
	}
}

func TestClaimStatus_Document(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	_, _, links := linksDrop(t, h, 2)
	unclaimed := h.call(t, "GET", "/actions/claim-qr?qr_hash="+links[0], nil)
	checkClaimRecord(t, "unclaimed", unclaimed)
	if _, present := unclaimed.field("claimed_date").(string); present || unclaimed.field("beneficiary") != "" {
		t.Errorf("unclaimed = %v, want no claimed_date and an empty beneficiary", unclaimed.body)
	}
	h.call(t, "POST", "/actions/claim-qr", mintBody(links[1], wallet(1)))
	claimed := h.call(t, "GET", "/actions/claim-qr?qr_hash="+links[1], nil)
	checkClaimRecord(t, "claimed", claimed)
	if claimed.field("beneficiary") != wallet(1) || claimed.field("claimed_date") == nil {
		t.Errorf("claimed = %v, want the beneficiary and claimed_date", claimed.body)
	}
}

func TestValidateEditCode_Document(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	id, code, _ := linksDrop(t, h, 0)
	tests := []struct {
		name       string
		body       map[string]any
		wantStatus int
		want       string // the message of a 400, or valid as text
	}{
		{"Right", map[string]any{"event_id": id, "secret_code": code}, 200, "true"},
		{"Wrong", map[string]any{"event_id": id, "secret_code": "000000"}, 200, "false"},
		{"NoCode", map[string]any{"event_id": id}, 400, "SECRET_CODE_MISSING: secret_code is required"},
		{"EmptyCode", map[string]any{"event_id": id, "secret_code": ""}, 400, "SECRET_CODE_MISSING: secret_code is required"},
		{"NoEvent", map[string]any{"secret_code": code}, 400, "event_id is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := h.call(t, "POST", "/event/validate", tc.body)
			got := r.message()
			if r.status == 200 {
				got = fmt.Sprint(r.field("valid"))
			}
			if r.status != tc.wantStatus || got != tc.want {
				t.Errorf("POST /event/validate = %d %v, want %d %s", r.status, r.body, tc.wantStatus, tc.want)
			}
		})
	}
}
