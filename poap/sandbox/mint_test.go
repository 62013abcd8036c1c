package sandbox_test

import (
	"encoding/hex"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/poapbot/poapbot/poap/sandbox"
)

// linksDrop creates a drop with n approved links through the Go API.
func linksDrop(t *testing.T, h *harness, n int) (id int64, code string, links []string) {
	t.Helper()
	d, code := h.CreateDrop(sandbox.Drop{Name: "Links Drop"}, n)
	return d.ID, code, h.MintLinksOf(d.ID)
}

func TestMint_Errors(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	id, _, links := linksDrop(t, h, 4)
	if r := h.call(t, "POST", "/actions/claim-qr", mintBody(links[0], wallet(1))); r.status != 200 {
		t.Fatalf("first mint = %d %v, want 200", r.status, r.body)
	}
	if err := h.SetLinkActive(links[2], false); err != nil {
		t.Fatal(err)
	}
	_, _, expiring := linksDrop(t, h, 1)
	tests := []struct {
		name       string
		hash, addr string
		wantStatus int
		wantMsg    string
	}{
		{"Unknown", "zzzzzz", wallet(2), 404, "Qr Claim not found"},
		{"BadAddress", links[1], "0x1234", 400, "Address is not valid"},
		{"UnknownENS", links[1], "nobody.eth", 400, "Address is not valid"},
		{"Claimed", links[0], wallet(2), 400, "QR Claim already claimed"},
		{"Deactivated", links[2], wallet(2), 400, "QR Claim expired"},
		{"AlreadyMinted", links[1], wallet(1), 400, "You already minted a POAP for this drop."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := h.call(t, "POST", "/actions/claim-qr", mintBody(tc.hash, tc.addr))
			if r.status != tc.wantStatus || r.message() != tc.wantMsg || r.field("error") == nil {
				t.Errorf("POST /actions/claim-qr = %d %v, want %d %q", r.status, r.body, tc.wantStatus, tc.wantMsg)
			}
		})
	}
	t.Run("DropExpired", func(t *testing.T) {
		h.clock.Advance(400 * 24 * time.Hour)
		defer h.clock.Advance(-400 * 24 * time.Hour)
		r := h.call(t, "POST", "/actions/claim-qr", mintBody(expiring[0], wallet(2)))
		status := h.call(t, "GET", "/actions/claim-qr?qr_hash="+expiring[0], nil)
		if r.status != 400 || r.message() != "QR Claim expired" || status.field("is_active") != false {
			t.Errorf("mint after expiry = %d %v, status %v, want 400 QR Claim expired and is_active false", r.status, r.body, status.body)
		}
	})
	if got := h.MintCount(id); got != 1 {
		t.Errorf("MintCount() = %d, want 1", got)
	}
	if r := h.call(t, "GET", "/actions/claim-qr", nil); r.status != 404 || r.message() != "Please send qr_hash as querystring parameter" {
		t.Errorf("GET claim-qr without hash = %d %v", r.status, r.body)
	}
}

func TestMint_Lifecycle(t *testing.T) {
	h := newHarness(t, sandbox.Options{TxDelay: time.Minute})
	id, _, links := linksDrop(t, h, 2)
	before := h.call(t, "GET", "/actions/claim-qr?qr_hash="+links[0], nil)
	if before.field("claimed") != false || before.field("is_active") != true || before.field("secret") != "NOT_REQUIRED_ANYMORE" ||
		before.field("beneficiary") != "" || before.field("result") != nil {
		t.Fatalf("unclaimed status = %v", before.body)
	}
	r := h.call(t, "POST", "/actions/claim-qr", mintBody(links[0], wallet(7)))
	txID, ok := r.field("transaction_request_id").(float64)
	if r.status != 200 || !ok || r.field("claimed") != true || r.field("queue_uid") != nil {
		t.Fatalf("mint = %d %v, want 200 with transaction_request_id", r.status, r.body)
	}
	txPath := "/transaction-requests/" + strconv.Itoa(int(txID))
	if tx := h.call(t, "GET", txPath, nil); tx.field("status") != "IN_PROCESS" || tx.field("result") != nil {
		t.Errorf("transaction before the delay = %v, want IN_PROCESS", tx.body)
	}
	if st := h.call(t, "GET", "/actions/claim-qr?qr_hash="+links[0], nil); st.field("tx_status") != "pending" || st.field("result") != nil {
		t.Errorf("claim before the delay = %v, want pending without result", st.body)
	}
	h.clock.Advance(time.Minute)
	tx := h.call(t, "GET", txPath, nil)
	result, _ := tx.field("result").(map[string]any)
	if tx.field("status") != "FINISH" || result["tx_hash"] == "" {
		t.Errorf("transaction after the delay = %v, want FINISH with tx_hash", tx.body)
	}
	st := h.call(t, "GET", "/actions/claim-qr?qr_hash="+links[0], nil)
	res, _ := st.field("result").(map[string]any)
	if st.field("tx_status") != "passed" || st.field("tx_hash") != result["tx_hash"] || res["token"] == nil ||
		st.field("beneficiary") != wallet(7) {
		t.Errorf("claim after the delay = %v, want passed with the hash and token", st.body)
	}
	txs := h.call(t, "GET", "/transactions?qr_hash="+links[0], nil)
	if txs.field("total") != 1.0 {
		t.Errorf("GET /transactions = %v, want one", txs.body)
	}
	token := strconv.Itoa(int(res["token"].(float64)))
	info := h.call(t, "GET", "/token/"+token, nil)
	if info.field("tokenId") != token || info.field("owner") != wallet(7) || info.field("layer") != "Layer2" {
		t.Errorf("GET /token/%s = %v", token, info.body)
	}
	holders := h.call(t, "GET", "/event/"+strconv.FormatInt(id, 10)+"/poaps", nil)
	tokens, _ := holders.field("tokens").([]any)
	if holders.field("total") != 1.0 || len(tokens) != 1 || tokens[0].(map[string]any)["transferCount"] != "0" {
		t.Errorf("holders = %v, want the one POAP", holders.body)
	}
	scan := h.call(t, "GET", "/actions/scan/"+wallet(7)+"/"+strconv.FormatInt(id, 10), nil)
	if scan.status != 200 || scan.field("tokenId") != token {
		t.Errorf("scan after mint = %d %v", scan.status, scan.body)
	}
}

func TestMint_Email(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	id, _, links := linksDrop(t, h, 2)
	r := h.call(t, "POST", "/actions/claim-qr", map[string]any{"qr_hash": links[0], "address": "Fan@Example.org", "sendEmail": true})
	if r.status != 200 || r.field("transaction_request_id") != nil || r.field("beneficiary") != "fan@example.org" {
		t.Fatalf("e-mail mint = %d %v, want 200 without a transaction", r.status, r.body)
	}
	scan := h.call(t, "GET", "/actions/scan/fan@example.org", nil)
	items, _ := scan.body.([]any)
	if len(items) != 1 || items[0].(map[string]any)["tokenId"] != "" {
		t.Errorf("scan of the e-mail = %v, want one reservation with tokenId \"\"", scan.body)
	}
	if r := h.call(t, "POST", "/actions/claim-qr", mintBody(links[1], "fan@example.org")); r.message() != "You already minted a POAP for this drop." {
		t.Errorf("second e-mail mint = %d %v, want already minted", r.status, r.body)
	}
	holders := h.call(t, "GET", "/event/"+strconv.FormatInt(id, 10)+"/poaps", nil)
	if holders.field("total") != 0.0 {
		t.Errorf("holders = %v, want reservations left out", holders.body)
	}
}

func TestMint_Secret(t *testing.T) {
	h := newHarness(t, sandbox.Options{RequireSecret: true, QueueUID: true})
	_, _, links := linksDrop(t, h, 1)
	st := h.call(t, "GET", "/actions/claim-qr?qr_hash="+links[0], nil)
	secret, _ := st.field("secret").(string)
	if _, err := hex.DecodeString(secret); err != nil || len(secret) != 64 {
		t.Fatalf("secret = %q, want 64 hex digits", secret)
	}
	body := mintBody(links[0], wallet(1))
	body["secret"] = "00"
	if r := h.call(t, "POST", "/actions/claim-qr", body); r.status != 400 || r.message() != "Invalid secret" {
		t.Errorf("wrong secret = %d %v, want 400 Invalid secret", r.status, r.body)
	}
	body["secret"] = secret
	r := h.call(t, "POST", "/actions/claim-qr", body)
	uid, _ := r.field("queue_uid").(string)
	if r.status != 200 || len(uid) != 36 || r.field("transaction_request_id") != nil {
		t.Fatalf("mint with the secret = %d %v, want queue_uid", r.status, r.body)
	}
	if tx := h.call(t, "GET", "/transaction-requests/"+uid, nil); tx.field("status") != "FINISH" {
		t.Errorf("transaction by queue_uid = %v, want FINISH", tx.body)
	}
}

func TestMintLinks(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	id, code, links := linksDrop(t, h, 3)
	h.call(t, "POST", "/actions/claim-qr", mintBody(links[1], wallet(1)))
	path := "/event/" + strconv.FormatInt(id, 10) + "/qr-codes"
	r := h.call(t, "POST", path, map[string]string{"secret_code": code})
	items, _ := r.body.([]any)
	if r.status != 200 || len(items) != 3 || items[1].(map[string]any)["claimed"] != true || items[0].(map[string]any)["qr_hash"] != links[0] {
		t.Fatalf("POST qr-codes = %d %v, want 3 links, the second claimed", r.status, r.body)
	}
	if r := h.call(t, "POST", path, map[string]string{"secret_code": "000000"}); r.status != 400 || r.message() != "Invalid edit code" {
		t.Errorf("wrong code = %d %v, want 400 Invalid edit code", r.status, r.body)
	}
	if r := h.call(t, "POST", "/event/1/qr-codes", map[string]string{"secret_code": code}); r.status != 404 {
		t.Errorf("unknown drop = %d, want 404", r.status)
	}
	for c, want := range map[string]bool{code: true, "000000": false} {
		r := h.call(t, "POST", "/event/validate", map[string]any{"event_id": id, "secret_code": c})
		if r.field("valid") != want {
			t.Errorf("validate %s = %v, want valid %v", c, r.body, want)
		}
	}
	req, _ := http.NewRequest("POST", h.base+path, nil)
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("qr-codes without a bearer = %d, want 401", resp.StatusCode)
	}
}
