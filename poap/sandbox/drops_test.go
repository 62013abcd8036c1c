package sandbox_test

import (
	"bytes"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

func TestCreateDrop_Invalid(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	png := pngImage(t)
	gif := []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;")
	tests := []struct {
		name     string
		change   map[string]string // "" deletes the field
		filename string
		img      []byte
		want     string
	}{
		{"LongDescription", map[string]string{"description": strings.Repeat("é", 1501)}, "a.png", png, "description must be at most 1500 characters"},
		{"NoName", map[string]string{"name": "  "}, "a.png", png, "name is required"},
		{"SpaceCity", map[string]string{"city": "   "}, "a.png", png, "city must not be only spaces"},
		{"SpaceCountry", map[string]string{"country": " "}, "a.png", png, "country must not be only spaces"},
		{"SpaceURL", map[string]string{"event_url": "  "}, "a.png", png, "event_url must not be only spaces"},
		{"BadStart", map[string]string{"start_date": "10/03/2026"}, "a.png", png, "start_date must be YYYY-MM-DD or MM-DD-YYYY"},
		{"BadEnd", map[string]string{"end_date": "2026-3-10"}, "a.png", png, "end_date must be YYYY-MM-DD or MM-DD-YYYY"},
		{"BadExpiry", map[string]string{"expiry_date": "10-Apr-2026"}, "a.png", png, "expiry_date must be YYYY-MM-DD or MM-DD-YYYY"},
		{"NoExpiry", map[string]string{"expiry_date": ""}, "a.png", png, "expiry_date is required"},
		{"EndBeforeStart", map[string]string{"end_date": "2026-03-09"}, "a.png", png, "end_date must not be before start_date"},
		{"ExpiryBeforeEnd", map[string]string{"expiry_date": "2026-03-09", "end_date": "2026-03-10"}, "a.png", png, "expiry_date must not be before end_date"},
		{"VirtualYes", map[string]string{"virtual_event": "yes"}, "a.png", png, "virtual_event must be true or false"},
		{"VirtualMissing", map[string]string{"virtual_event": ""}, "a.png", png, "virtual_event must be true or false"},
		{"PrivateOne", map[string]string{"private_event": "1"}, "a.png", png, "private_event must be true or false"},
		{"CodeFive", map[string]string{"secret_code": "12345"}, "a.png", png, "secret_code must be 6 digits"},
		{"CodeLetters", map[string]string{"secret_code": "12345a"}, "a.png", png, "secret_code must be 6 digits"},
		{"NoEmail", map[string]string{"email": ""}, "a.png", png, "email must be an e-mail address"},
		{"NoImage", nil, "", nil, "image is required"},
		{"JPEG", nil, "a.png", []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), "image must be a png or gif file, not image/jpeg"},
		{"GIFExtension", nil, "a.gif", gif, "image file name must end in .png or .webp"},
		{"Big", nil, "a.png", append(bytes.Clone(png), make([]byte, 4<<20)...), "image must be under 4 MB"},
		{"Codes", map[string]string{"requested_codes": "-1"}, "a.png", png, "requested_codes must be a whole number from 0 to 50000"},
		{"Year", map[string]string{"year": "twenty"}, "a.png", png, "year must be a whole number from 1900 to 9999"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fields := dropFields()
			for k, v := range tc.change {
				if v == "" && k != "city" {
					delete(fields, k)
				} else {
					fields[k] = v
				}
			}
			r := h.postForm(t, http.MethodPost, "/events", fields, tc.filename, tc.img)
			want := map[string]any{"statusCode": 400.0, "error": "Bad Request", "message": tc.want}
			if diff := cmp.Diff(want, r.body); r.status != 400 || diff != "" {
				t.Errorf("POST /events = %d, body mismatch (-want +got):\n%s", r.status, diff)
			}
		})
	}
	if got := h.Requests(wire.OpCreateDrop); got != len(tests) {
		t.Errorf("Requests(OpCreateDrop) = %d, want %d", got, len(tests))
	}
}

func TestCreateDrop_OK(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	fields := dropFields()
	fields["city"], fields["requested_codes"] = "Berlin", "3"
	gifFile := []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;")
	r := h.postForm(t, http.MethodPost, "/events", fields, "art.webp", gifFile)
	if r.status != 200 {
		t.Fatalf("POST /events = %d %v, want 200", r.status, r.body)
	}
	id := int64(r.field("id").(float64))
	day := regexp.MustCompile(`^\d\d-[A-Z][a-z]{2}-\d{4}$`)
	for _, f := range []string{"start_date", "end_date", "expiry_date"} {
		if !day.MatchString(r.field(f).(string)) {
			t.Errorf("%s = %v, want DD-Mon-YYYY", f, r.field(f))
		}
	}
	if r.field("fancy_id") != "test-drop-1-of-3-2026" || r.field("virtual_event") != true || r.field("city") != "Berlin" {
		t.Errorf("POST /events = %v, want the fancy id, virtual_event and city", r.body)
	}
	again := h.createDrop(t, dropFields())
	byID := h.call(t, "GET", "/events/id/"+strconv.FormatInt(again, 10), nil)
	if byID.field("fancy_id") != "test-drop-1-of-3-2026-2" {
		t.Errorf("second drop of the same name: fancy_id %v, want a unique one", byID.field("fancy_id"))
	}
	byFancy := h.call(t, "GET", "/events/test-drop-1-of-3-2026", nil)
	img, _ := byFancy.field("drop_image").(map[string]any)
	gateways, _ := img["gateways"].([]any)
	if byFancy.status != 200 || len(gateways) != 2 || byFancy.field("id") != float64(id) {
		t.Fatalf("GET /events/{fancyId} = %d %v, want the drop with two gateways", byFancy.status, byFancy.body)
	}
	types := []any{gateways[0].(map[string]any)["type"], gateways[1].(map[string]any)["type"]}
	if diff := cmp.Diff([]any{"ORIGINAL", "CROP"}, types); diff != "" {
		t.Errorf("gateway types mismatch (-want +got):\n%s", diff)
	}
	if r := h.call(t, "GET", "/events/id/999", nil); r.status != 404 || r.message() != "Event not found" {
		t.Errorf("GET /events/id/999 = %d %v, want 404 Event not found", r.status, r.body)
	}
	if n := len(h.MintLinksOf(id)); n != 0 {
		t.Errorf("before review: %d links, want 0", n)
	}
	if h.ApproveRequests(id) != 1 || len(h.MintLinksOf(id)) != 3 {
		t.Errorf("after ApproveRequests: %d links, want the 3 requested", len(h.MintLinksOf(id)))
	}
}

// editFields are the fields of a valid PUT /events/{fancyId} of the drop
// dropFields makes, with changes applied; a change to "" removes the field.
func editFields(changes map[string]string) map[string]string {
	fields := map[string]string{
		"name": "Test Drop 1 of 3", "description": "A private test drop, added context here.",
		"city": "", "country": "", "start_date": "2026-03-10", "end_date": "2026-03-10",
		"expiry_date": "2026-04-10", "event_url": "https://example.org/test",
		"virtual_event": "true", "private_event": "true", "secret_code": "654321",
	}
	for k, v := range changes {
		fields[k] = v
		if v == "" && k != "city" && k != "country" {
			delete(fields, k)
		}
	}
	return fields
}

func TestEditDrop(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	id := h.createDrop(t, dropFields())
	path := "/events/test-drop-1-of-3-2026"
	img := pngImage(t)
	tests := []struct {
		name       string
		fields     map[string]string
		noImage    bool
		wantStatus int
		wantMsg    string
	}{
		{"NoCode", editFields(map[string]string{"secret_code": ""}), false, 400, "SECRET_CODE_MISSING: secret_code is required"},
		{"WrongCode", editFields(map[string]string{"secret_code": "111111"}), false, 400, "Invalid edit code"},
		{"NoImage", editFields(nil), true, 400, "image is required"},
		{"OnlyTheChange", map[string]string{"name": "New", "secret_code": "654321"}, false, 400, "description is required"},
		{"NoEventURL", editFields(map[string]string{"event_url": ""}), false, 400, "event_url is required"},
		{"SpaceCity", editFields(map[string]string{"city": "  "}), false, 400, "city must not be only spaces"},
		{"LongDescription", editFields(map[string]string{"description": strings.Repeat("x", 1501)}), false, 400, "description must be at most 1500 characters"},
		{"OK", editFields(map[string]string{"name": "Renamed", "city": "Paris", "end_date": "2026-03-11"}), false, 204, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			filename := "art.png"
			if tc.noImage {
				filename = ""
			}
			r := h.postForm(t, http.MethodPut, path, tc.fields, filename, img)
			if r.status != tc.wantStatus || r.message() != tc.wantMsg {
				t.Errorf("PUT %s = %d %v, want %d %q", path, r.status, r.body, tc.wantStatus, tc.wantMsg)
			}
		})
	}
	got := h.call(t, "GET", "/events/id/"+strconv.FormatInt(id, 10), nil)
	if got.field("name") != "Renamed" || got.field("city") != "Paris" || got.field("end_date") != "11-Mar-2026" ||
		got.field("fancy_id") != "test-drop-1-of-3-2026" || got.field("private_event") != true {
		t.Errorf("after edit: %v, want name, city and end date changed, fancy id and privacy kept", got.body)
	}
	// A form without the flags takes their defaults: the drop turns public.
	if r := h.postForm(t, http.MethodPut, path, editFields(map[string]string{"private_event": "", "virtual_event": ""}), "art.png", img); r.status != 204 {
		t.Fatalf("PUT without flags = %d %v, want 204", r.status, r.body)
	}
	if got := h.call(t, "GET", "/events/id/"+strconv.FormatInt(id, 10), nil); got.field("private_event") != false || got.field("virtual_event") != false {
		t.Errorf("after an edit without flags: %v, want private_event and virtual_event false", got.body)
	}
	if r := h.call(t, "PUT", "/events/nope", map[string]any{"secret_code": "654321"}); r.status != 404 {
		t.Errorf("PUT /events/nope = %d, want 404", r.status)
	}
}

func TestListDrops(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	h.SeedDemo()
	r := h.call(t, "GET", "/paginated-events?limit=3&offset=1&sort_field=id&sort_dir=asc", nil)
	items, _ := r.field("items").([]any)
	if r.status != 200 || len(items) != 3 || r.field("total") != 17.0 || r.field("limit") != 3.0 || r.field("offset") != 1.0 {
		t.Fatalf("GET /paginated-events = %d %v, want 3 of 17 items", r.status, r.body)
	}
	if id := items[0].(map[string]any)["id"]; id != 27730.0 {
		t.Errorf("second drop by id = %v, want 27730", id)
	}
	for _, q := range []string{"limit=1001", "offset=-1", "sort_field=color", "sort_dir=up"} {
		if r := h.call(t, "GET", "/paginated-events?"+q, nil); r.status != 400 {
			t.Errorf("GET /paginated-events?%s = %d, want 400", q, r.status)
		}
	}
	if r := h.call(t, "GET", "/events", nil); len(r.body.([]any)) != 17 {
		t.Errorf("GET /events = %d drops, want 17", len(r.body.([]any)))
	}
}
