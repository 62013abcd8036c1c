package sandbox_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap/sandbox"
)

func TestRedeemRequests_Review(t *testing.T) {
	h := newHarness(t, sandbox.Options{ReviewDelay: time.Hour})
	fields := dropFields()
	fields["requested_codes"] = "5"
	id := h.createDrop(t, fields)
	countPath := "/redeem-requests/active/count?event_id=" + strconv.FormatInt(id, 10) + "&redeem_type=qr_code"
	if r := h.call(t, "GET", countPath, nil); !cmp.Equal(r.body, []any{map[string]any{"active": 1.0, "type": "qr_code"}}) {
		t.Errorf("pending count after creation = %v, want one qr_code", r.body)
	}
	body := map[string]any{"event_id": id, "requested_codes": 3, "secret_code": "654321", "redeem_type": "qr_code"}
	if r := h.call(t, "POST", "/redeem-requests", body); r.status != 400 {
		t.Errorf("second pending request = %d %v, want 400", r.status, r.body)
	}
	h.clock.Advance(time.Hour)
	if r := h.call(t, "GET", countPath, nil); !cmp.Equal(r.body, []any{}) {
		t.Errorf("pending count after the review delay = %v, want []", r.body)
	}
	if n := len(h.MintLinksOf(id)); n != 5 {
		t.Errorf("after review: %d links, want 5", n)
	}
	r := h.call(t, "POST", "/redeem-requests", body)
	if _, ok := r.field("id").(string); r.status != 200 || !ok {
		t.Fatalf("top-up request = %d %v, want 200 {id: string}", r.status, r.body)
	}
	h.clock.Advance(59 * time.Minute)
	codes := h.call(t, "POST", "/event/"+strconv.FormatInt(id, 10)+"/qr-codes", map[string]string{"secret_code": "654321"})
	if n := len(codes.body.([]any)); n != 5 {
		t.Errorf("before the top-up's review: %d links, want 5", n)
	}
	h.clock.Advance(time.Minute)
	codes = h.call(t, "POST", "/event/"+strconv.FormatInt(id, 10)+"/qr-codes", map[string]string{"secret_code": "654321"})
	if n := len(codes.body.([]any)); n != 8 {
		t.Errorf("after the top-up's review: %d links, want 8", n)
	}
}

func TestRedeemRequests_Manual(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	id := h.createDrop(t, dropFields())
	body := map[string]any{"event_id": strconv.FormatInt(id, 10), "requested_codes": 2, "secret_code": "654321", "redeem_type": "qr_code"}
	if r := h.call(t, "POST", "/redeem-requests", body); r.status != 200 {
		t.Fatalf("request = %d %v, want 200", r.status, r.body)
	}
	h.clock.Advance(72 * time.Hour)
	if n := len(h.MintLinksOf(id)); n != 0 {
		t.Errorf("without a review delay, after 3 days: %d links, want 0", n)
	}
	if h.RejectRequests(id) != 1 || len(h.MintLinksOf(id)) != 0 {
		t.Errorf("RejectRequests: %d links, want 0", len(h.MintLinksOf(id)))
	}
	if r := h.call(t, "POST", "/redeem-requests", body); r.status != 200 || h.ApproveRequests(id) != 1 || len(h.MintLinksOf(id)) != 2 {
		t.Errorf("request after a rejection, approved: %d %v, %d links, want 200 and 2", r.status, r.body, len(h.MintLinksOf(id)))
	}
}

func TestRedeemRequests_Errors(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	id := h.createDrop(t, dropFields())
	valid := func() map[string]any {
		return map[string]any{"event_id": id, "requested_codes": 2, "secret_code": "654321", "redeem_type": "qr_code"}
	}
	tests := []struct {
		name       string
		change     map[string]any
		wantStatus int
		wantMsg    string
	}{
		{"WrongCode", map[string]any{"secret_code": "000000"}, 400, "Invalid edit code"},
		{"NoCode", map[string]any{"secret_code": ""}, 400, "SECRET_CODE_MISSING: secret_code is required"},
		{"NoCodes", map[string]any{"requested_codes": 0}, 400, "requested_codes must be a whole number from 1 to 50000"},
		{"TooMany", map[string]any{"requested_codes": 50001}, 400, "requested_codes must be a whole number from 1 to 50000"},
		{"BadType", map[string]any{"redeem_type": "links"}, 400, "redeem_type must be qr_code, secret_website or secret_word"},
		{"NoWebsite", map[string]any{"redeem_type": "secret_website"}, 400, "the drop has no website claim to add codes to; create it with POST /secret-requests"},
		{"UnknownDrop", map[string]any{"event_id": 1}, 404, "Event not found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := valid()
			for k, v := range tc.change {
				body[k] = v
			}
			r := h.call(t, "POST", "/redeem-requests", body)
			if r.status != tc.wantStatus || r.message() != tc.wantMsg {
				t.Errorf("POST /redeem-requests = %d %v, want %d %q", r.status, r.body, tc.wantStatus, tc.wantMsg)
			}
		})
	}
	if r := h.call(t, "GET", "/redeem-requests/active/count?event_id="+strconv.FormatInt(id, 10), nil); r.status != 503 {
		t.Errorf("count without redeem_type = %d, want 503", r.status)
	}
}
