package sandbox_test

import (
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/poap/sandbox"
)

// page is a page's answer.
type page struct {
	status int
	header http.Header
	body   string
}

// openPage sends a request to a page as a browser does: without the API
// key nor a token; form, when not nil, is posted as a form.
func (h *harness) openPage(t *testing.T, path string, form url.Values) page {
	t.Helper()
	return h.postRaw(t, path, form, "")
}

// postRaw is openPage with a raw body when raw is not "".
func (h *harness) postRaw(t *testing.T, path string, form url.Values, raw string) page {
	t.Helper()
	method, body := http.MethodGet, ""
	switch {
	case raw != "":
		method, body = http.MethodPost, raw
	case form != nil:
		method, body = http.MethodPost, form.Encode()
	}
	req, err := http.NewRequest(method, h.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
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
	return page{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// address is a form with one address.
func address(a string) url.Values { return url.Values{"address": {a}} }

func TestMintPage(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	h.SeedDemo()
	_, _, links := linksDrop(t, h, 6)
	if err := h.SetLinkActive(links[4], false); err != nil {
		t.Fatal(err)
	}
	expiring, _ := h.CreateDrop(sandbox.Drop{Name: "Short Drop", ExpiryDate: h.clock.Now().AddDate(0, 0, -2)}, 1)
	expired := h.MintLinksOf(expiring.ID)[0]
	tests := []struct {
		name       string
		hash       string
		form       url.Values
		wantStatus int
		want       string
		wantForm   bool
	}{
		{"Open", "sbx006", nil, 200, "Sandbox Demo Drop", true},
		{"Mint", "sbx006", address(wallet(1)), 200, "Minted: the POAP of Sandbox Demo Drop goes to " + wallet(1), false},
		{"Used", "sbx006", nil, 410, "used already", false},
		{"UsedPost", "sbx006", address(wallet(2)), 410, "used already", false},
		{"Unknown", "nope12", nil, 404, "does not exist", false},
		{"UnknownPost", "nope12", address(wallet(2)), 404, "does not exist", false},
		{"BadAddress", links[0], address("0x12"), 400, "not an address this page can mint to", true},
		{"UnknownENS", links[0], address("nobody.eth"), 400, "not an address this page can mint to", true},
		{"ControlCharacters", links[0], address(wallet(2) + "\x00"), 400, "not an address this page can mint to", true},
		{"TooLong", links[0], address(strings.Repeat("a", 300) + "@example.org"), 400, "not an address", true},
		{"ENS", links[0], address(sandbox.DemoENS), 200, "goes to " + sandbox.DemoWallet, false},
		{"HoldsAlready", links[1], address(sandbox.DemoWallet), 409, "POAP already: an address gets one", true},
		{"Email", links[2], address("Fan@Example.org"), 200, "Reserved: the POAP of Links Drop waits for fan@example.org", false},
		{"Deactivated", links[4], nil, 410, "deactivated", false},
		{"Expired", expired, address(wallet(3)), 410, "expired on", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := h.openPage(t, "/mint/"+tc.hash, tc.form)
			if p.status != tc.wantStatus || !strings.Contains(p.body, tc.want) {
				t.Errorf("%s /mint/%s = %d, want %d with %q:\n%s", methodOf(tc.form), tc.hash, p.status, tc.wantStatus, tc.want, p.body)
			}
			if got := strings.Contains(p.body, "<form"); got != tc.wantForm {
				t.Errorf("page has a form: %v, want %v", got, tc.wantForm)
			}
			if ct := p.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type = %q, want HTML", ct)
			}
		})
	}
	if !h.LinkClaimed("sbx006") || h.LinkClaimed(links[0]) == false || h.LinkClaimed(links[1]) {
		t.Errorf("claimed: sbx006 %v, %s %v, %s %v; want the minted links only", h.LinkClaimed("sbx006"), links[0], h.LinkClaimed(links[0]), links[1], h.LinkClaimed(links[1]))
	}
	st := h.call(t, "GET", "/actions/claim-qr?qr_hash=sbx006", nil)
	if st.field("claimed") != true || st.field("beneficiary") != strings.ToLower(wallet(1)) {
		t.Errorf("claim status of sbx006 after the page's mint = %v, want claimed by %s", st.body, wallet(1))
	}
	scan := h.call(t, "GET", "/actions/scan/"+wallet(1), nil)
	if poaps, _ := scan.body.([]any); len(poaps) != 1 {
		t.Errorf("scan of %s after the page's mint = %v, want its POAP", wallet(1), scan.body)
	}
}

// methodOf names the method openPage uses for form.
func methodOf(form url.Values) string {
	if form == nil {
		return "GET"
	}
	return "POST"
}

func TestMintPage_Input(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	_, _, links := linksDrop(t, h, 1)
	for name, raw := range map[string]string{
		"TooLarge": "address=" + strings.Repeat("a", 8<<10),
		"Twice":    "address=" + wallet(1) + "&address=" + wallet(2),
		"None":     "name=" + wallet(1),
		"BadForm":  "address=%zz",
	} {
		t.Run(name, func(t *testing.T) {
			p := h.postRaw(t, "/mint/"+links[0], nil, raw)
			if p.status != 400 || !strings.Contains(p.body, "Form not readable") {
				t.Errorf("POST %.40q = %d, want 400 Form not readable:\n%s", raw, p.status, p.body)
			}
		})
	}
	t.Run("Escaped", func(t *testing.T) {
		p := h.openPage(t, "/mint/"+links[0], address(`"><script>alert(1)</script>`))
		if p.status != 400 || strings.Contains(p.body, "<script>") || !strings.Contains(p.body, "&lt;script&gt;") {
			t.Errorf("hostile address was not given back escaped: %d\n%s", p.status, p.body)
		}
	})
	if h.LinkClaimed(links[0]) || h.Requests(sandbox.OpPage) != 5 {
		t.Errorf("after bad forms: claimed %v, %d page requests; want unclaimed, 5", h.LinkClaimed(links[0]), h.Requests(sandbox.OpPage))
	}
}

func TestDeliveryPage(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	h.SeedDemo()
	a, codeA, _ := linksDrop(t, h, 0)
	b, codeB, _ := linksDrop(t, h, 0)
	if r := h.call(t, "POST", "/deliveries", deliveryBody(a, b, codeA, codeB)); r.status != 200 {
		t.Fatalf("POST /deliveries = %d %v", r.status, r.body)
	}
	tests := []struct {
		name       string
		form       url.Values
		wantStatus int
		want       string
		wantForm   bool
	}{
		{"Open", nil, 200, "0 of the 2 addresses on this delivery&#39;s list have claimed", true},
		{"NotListed", address(wallet(3)), 403, wallet(3) + " is not on this delivery&#39;s list", true},
		{"Email", address("fan@example.org"), 400, "Enter the wallet the delivery lists", true},
		{"Bad", address("0x12"), 400, "Enter the wallet the delivery lists", true},
		{"ListedLower", address(wallet(1)), 200, "Claimed for " + wallet(1) + ": minted the POAP of Links Drop, Links Drop.", false},
		{"Twice", address(wallet(1)), 410, "has claimed this delivery already", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := h.openPage(t, "/delivery/test-delivery", tc.form)
			if p.status != tc.wantStatus || !strings.Contains(p.body, tc.want) {
				t.Errorf("%s /delivery/test-delivery = %d, want %d with %q:\n%s", methodOf(tc.form), p.status, tc.wantStatus, tc.want, p.body)
			}
			if got := strings.Contains(p.body, "<form"); got != tc.wantForm {
				t.Errorf("page has a form: %v, want %v", got, tc.wantForm)
			}
		})
	}
	if !h.DeliveryClaimed("test-delivery", wallet(1)) || h.DeliveryClaimed("test-delivery", wallet(2)) {
		t.Errorf("delivery claimed by %s %v, %s %v; want the first only", wallet(1), h.DeliveryClaimed("test-delivery", wallet(1)), wallet(2), h.DeliveryClaimed("test-delivery", wallet(2)))
	}
	for _, id := range []int64{a, b} {
		if got := h.Holders(id); len(got) != 1 || !strings.EqualFold(got[0], wallet(1)) {
			t.Errorf("Holders(%d) = %v, want %s", id, got, wallet(1))
		}
	}
	bySlug := h.call(t, "GET", "/delivery/slug/test-delivery", nil)
	if bySlug.field("claimed_addresses") != 1.0 {
		t.Errorf("GET /delivery/slug/test-delivery = %v, want 1 claimed address", bySlug.body)
	}
	if p := h.openPage(t, "/delivery/nope", nil); p.status != 404 || !strings.Contains(p.body, "No delivery has this address") {
		t.Errorf("GET /delivery/nope = %d:\n%s", p.status, p.body)
	}
	if p := h.openPage(t, "/delivery/nope", address(wallet(1))); p.status != 404 {
		t.Errorf("POST /delivery/nope = %d, want 404", p.status)
	}
}

// TestPages_Open: the pages need no key, the API still does, and a path
// the Server does not have is still the gateway's refusal without one.
func TestPages_Open(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	h.SeedDemo()
	if p := h.openPage(t, "/mint/sbx006", nil); p.status != 200 {
		t.Errorf("GET /mint/sbx006 without a key = %d, want 200", p.status)
	}
	for _, path := range []string{"/events/id/" + strconv.FormatInt(sandbox.DemoLinksDropID, 10), "/nowhere", "/mint/sbx006/more"} {
		if p := h.openPage(t, path, nil); p.status != 403 {
			t.Errorf("GET %s without a key = %d, want the gateway's 403", path, p.status)
		}
	}
}
