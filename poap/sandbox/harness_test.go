package sandbox_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/poap/sandbox"
)

// clock is a settable test clock for Options.Now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

// Now tells the clock's time.
func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on by d.
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// harness is a sandbox on loopback with a test clock.
type harness struct {
	*sandbox.Server
	base  string
	clock *clock
}

// newHarness serves a sandbox made with opts (APIKey and Now filled in)
// whose clock starts on 2026-03-10 at noon UTC.
func newHarness(t *testing.T, opts sandbox.Options) *harness {
	t.Helper()
	c := &clock{now: time.Date(2026, time.March, 10, 12, 0, 0, 0, time.UTC)}
	opts.APIKey, opts.Now = key, c.Now
	s := sandbox.New(opts)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return &harness{Server: s, base: srv.URL, clock: c}
}

// reply is a decoded answer.
type reply struct {
	status int
	header http.Header
	body   any
}

// field returns the member name of an object body.
func (r reply) field(name string) any {
	m, _ := r.body.(map[string]any)
	return m[name]
}

// message returns the backend error message of the body.
func (r reply) message() string {
	s, _ := r.field("message").(string)
	return s
}

// call sends a JSON request (body nil for none) with the key and a bearer
// token and decodes the answer.
func (h *harness) call(t *testing.T, method, path string, body any) reply {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, h.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return h.send(t, req)
}

// send adds the credentials to req, a fresh access token included (the
// tests move the clock by more than a token lives), sends it and decodes
// the answer.
func (h *harness) send(t *testing.T, req *http.Request) reply {
	t.Helper()
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Authorization", "Bearer "+h.IssueToken(sandbox.DefaultAudience))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := reply{status: resp.StatusCode, header: resp.Header}
	if len(b) > 0 {
		if err := json.Unmarshal(b, &out.body); err != nil {
			t.Fatalf("%s %s: body %q is not JSON: %v", req.Method, req.URL.Path, b, err)
		}
	}
	return out
}

// dropFields are valid fields of POST /events.
func dropFields() map[string]string {
	return map[string]string{
		"name":          "Test Drop 1 of 3",
		"description":   "A private test drop, added context here.",
		"city":          "",
		"country":       "",
		"start_date":    "2026-03-10",
		"end_date":      "03-10-2026",
		"expiry_date":   "2026-04-10",
		"year":          "2026",
		"event_url":     "https://example.org/test",
		"virtual_event": "true",
		"private_event": "true",
		"secret_code":   "654321",
		"email":         "issuer@example.org",
	}
}

// pngImage encodes a small PNG.
func pngImage(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// postForm sends fields and, unless filename is "", the image as a
// multipart form.
func (h *harness) postForm(t *testing.T, method, path string, fields map[string]string, filename string, img []byte) reply {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if filename != "" {
		fw, err := mw.CreateFormFile("image", filename)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(img)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, h.base+path, &buf)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return h.send(t, req)
}

// createDrop creates a valid drop over HTTP and returns its id.
func (h *harness) createDrop(t *testing.T, fields map[string]string) int64 {
	t.Helper()
	r := h.postForm(t, http.MethodPost, "/events", fields, "art.png", pngImage(t))
	id, ok := r.field("id").(float64)
	if r.status != http.StatusOK || !ok {
		t.Fatalf("POST /events = %d %v, want 200 with an id", r.status, r.body)
	}
	return int64(id)
}

// mintBody is the body of POST /actions/claim-qr.
func mintBody(hash, address string) map[string]any {
	return map[string]any{"qr_hash": hash, "address": address, "sendEmail": false}
}

// wallet returns the i-th test address.
func wallet(i int) string {
	return fmt.Sprintf("0x%040x", 0xabc000+i)
}
