package sandbox_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

const key = "sandbox-key"

// start serves a seeded sandbox on loopback.
func start(t *testing.T) (*sandbox.Server, string) {
	t.Helper()
	s := sandbox.New(sandbox.Options{APIKey: key})
	s.SeedDemo()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL
}

// get sends a GET with the key (unless withKey is false) and returns the
// status, the Content-Type and the decoded JSON body.
func get(t *testing.T, url string, withKey bool) (int, string, any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if withKey {
		req.Header.Set("X-API-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var body any
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("GET %s: body %q is not JSON: %v", url, b, err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), body
}

func TestServer_Errors(t *testing.T) {
	_, base := start(t)
	backend := func(status int, reason, msg string) any {
		return map[string]any{"statusCode": float64(status), "error": reason, "message": msg}
	}
	tests := []struct {
		name       string
		path       string
		withKey    bool
		wantStatus int
		wantBody   any
	}{
		{"NoToken", "/actions/scan/" + sandbox.EmptyWallet + "/14187", true, 404,
			backend(404, "Not Found", "Address does not have token for this event")},
		{"BadAddress", "/actions/scan/0x1234", true, 400, backend(400, "Bad Request", "Address is not valid")},
		{"UnknownENS", "/actions/scan/nobody-here.eth", true, 400, backend(400, "Bad Request", "Address is not valid")},
		{"BadAddressByEvent", "/actions/scan/not-an-address/14187", true, 400, backend(400, "Bad Request", "Address is not valid")},
		{"BadEventID", "/actions/scan/" + sandbox.DemoWallet + "/abc", true, 400,
			backend(400, "Bad Request", "params/eventId must be integer")},
		{"NoKey", "/actions/scan/" + sandbox.DemoWallet, false, 403, map[string]any{"message": "Forbidden"}},
		{"UnknownRoute", "/nope", true, 404, backend(404, "Not Found", "Route GET:/nope not found")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, ctype, body := get(t, base+tc.path, tc.withKey)
			if status != tc.wantStatus || !strings.HasPrefix(ctype, "application/json") {
				t.Errorf("GET %s = %d %q, want %d application/json", tc.path, status, ctype, tc.wantStatus)
			}
			if diff := cmp.Diff(tc.wantBody, body); diff != "" {
				t.Errorf("GET %s body mismatch (-want +got):\n%s", tc.path, diff)
			}
		})
	}
}

func TestServer_ScanShape(t *testing.T) {
	_, base := start(t)
	status, _, body := get(t, base+"/actions/scan/"+strings.ToLower(sandbox.DemoWallet), true)
	items, ok := body.([]any)
	if status != 200 || !ok || len(items) != 14 {
		t.Fatalf("scan = %d with %T of %d items, want 200 and a bare array of 14", status, body, len(items))
	}
	created := regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$`)
	day := regexp.MustCompile(`^\d\d-[A-Z][a-z]{2}-\d{4}$`)
	for i, it := range items {
		item := it.(map[string]any)
		event := item["event"].(map[string]any)
		if _, ok := item["tokenId"].(string); !ok {
			t.Errorf("item %d: tokenId = %#v, want a string", i, item["tokenId"])
		}
		if !created.MatchString(item["created"].(string)) {
			t.Errorf("item %d: created = %q, want YYYY-MM-DD HH:MM:SS", i, item["created"])
		}
		for _, f := range []string{"start_date", "end_date", "expiry_date"} {
			if !day.MatchString(event[f].(string)) {
				t.Errorf("item %d: %s = %q, want DD-Mon-YYYY", i, f, event[f])
			}
		}
		if _, ok := item["migrated"]; !ok || item["image_url"] != nil || event["image_url"] == "" || event["supply"] == nil {
			t.Errorf("item %d = %v, want migrated, supply and image_url inside event only", i, item)
		}
	}
	_, _, one := get(t, base+"/actions/scan/"+sandbox.DemoWallet+"/14187", true)
	obj := one.(map[string]any)
	if _, hasChain := obj["chain"]; hasChain || obj["event"].(map[string]any)["supply"] != nil || obj["tokenId"] == "" {
		t.Errorf("scan by event = %v, want event without supply, tokenId and owner only", obj)
	}
}

func TestServer_SeedDemo(t *testing.T) {
	s, base := start(t)
	s.SeedDemo()
	counts := map[string]int{
		sandbox.DemoWallet: 14, sandbox.DemoENS: 14, strings.ToUpper(sandbox.DemoENS): 14,
		sandbox.DemoWallet2: 2, sandbox.DemoEmail: 1, sandbox.EmptyWallet: 0, "someone@example.org": 0,
	}
	for address, want := range counts {
		_, _, body := get(t, base+"/actions/scan/"+address, true)
		if got := len(body.([]any)); got != want {
			t.Errorf("scan %s: %d POAPs, want %d", address, got, want)
		}
	}
	_, _, body := get(t, base+"/actions/scan/"+sandbox.DemoEmail, true)
	if id := body.([]any)[0].(map[string]any)["tokenId"]; id != "" {
		t.Errorf("e-mail POAP tokenId = %q, want \"\"", id)
	}
}

func TestServer_Knobs(t *testing.T) {
	s, base := start(t)
	s.FailNext(2, http.StatusTooManyRequests)
	for range 2 {
		if status, _, body := get(t, base+"/actions/scan/"+sandbox.DemoWallet, true); status != 429 ||
			!cmp.Equal(body, map[string]any{"message": "Too Many Requests"}) {
			t.Errorf("after FailNext: %d %v, want 429 gateway body", status, body)
		}
	}
	if status, _, _ := get(t, base+"/actions/scan/"+sandbox.DemoWallet, true); status != 200 {
		t.Errorf("third request = %d, want 200", status)
	}
	get(t, base+"/actions/scan/"+sandbox.DemoWallet+"/1", true)
	get(t, base+"/elsewhere", true)
	for op, want := range map[string]int{wire.OpScan: 3, wire.OpScanEvent: 1, sandbox.OpUnknown: 1} {
		if got := s.Requests(op); got != want {
			t.Errorf("Requests(%q) = %d, want %d", op, got, want)
		}
	}
	s.SetLatency(time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/actions/scan/"+sandbox.DemoWallet, nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("with a minute of latency the request answered %d, want a timeout", resp.StatusCode)
	}
}

func TestServer_AddDropMint(t *testing.T) {
	now := time.Date(2025, time.June, 1, 10, 0, 0, 500, time.UTC)
	s := sandbox.New(sandbox.Options{Now: func() time.Time { return now }})
	d := s.AddDrop(sandbox.Drop{Name: "Test Drop 1 of 3", StartDate: now})
	if d.ID == 0 || d.FancyID != "test-drop-1-of-3-2025" || d.Year != 2025 {
		t.Errorf("AddDrop() = %+v, want an id, a fancy id and the year", d)
	}
	if d2 := s.AddDrop(sandbox.Drop{Name: "Other"}); d2.ID == d.ID {
		t.Errorf("AddDrop() reused id %d", d.ID)
	}
	tok, err := s.Mint(d.ID, "0x0000000000000000000000000000000000000001", "", time.Time{})
	if err != nil || tok.ID == 0 || tok.Chain != "xdai" || !tok.Created.Equal(now.Truncate(time.Second)) {
		t.Errorf("Mint() = %+v, %v, want an id, xdai and now", tok, err)
	}
	if _, err := s.Mint(d.ID+100, "0x0000000000000000000000000000000000000001", "", now); err == nil {
		t.Error("Mint() of an unknown drop succeeded")
	}
	if _, err := s.Mint(d.ID, "nobody.eth", "", now); err == nil {
		t.Error("Mint() to an unknown ENS name succeeded")
	}
	if err := s.SetENS("not a name", "0x01"); err == nil {
		t.Error("SetENS() of bad values succeeded")
	}
}
