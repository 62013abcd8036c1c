package sandbox_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// author is the 0x address the test Moments are posted by.
const author = "0xd3eeee483984730e415b604b6a526c504a7b1eca"

// pngFile is content http.DetectContentType takes for a PNG image.
var pngFile = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0, 7, 42}, 300)...)

// momentClock is a settable clock for the sandbox's Now.
type momentClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *momentClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *momentClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// momentsEnv is a sandbox serving Moments on loopback, with a drop to post
// to, a Moments access token, the clock it runs on and the directory it
// keeps its media files under (Options.MediaDir).
type momentsEnv struct {
	s        *sandbox.Server
	url      string
	bearer   string
	dropID   int64
	clock    *momentClock
	mediaDir string
}

// startMoments serves a sandbox whose media take delay to process. It is
// closed when the test ends, after its HTTP server.
func startMoments(t *testing.T, delay time.Duration) *momentsEnv {
	t.Helper()
	clock := &momentClock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
	dir := t.TempDir()
	s := sandbox.New(sandbox.Options{APIKey: key, Now: clock.Now, MediaDelay: delay, MediaDir: dir})
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close() error = %v", err)
		}
	})
	drop := s.AddDrop(sandbox.Drop{Name: "Moments test", StartDate: clock.Now(), EndDate: clock.Now(), ExpiryDate: clock.Now()})
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return &momentsEnv{s: s, url: srv.URL, bearer: s.IssueToken(sandbox.DefaultMomentsAudience), dropID: drop.ID, clock: clock, mediaDir: dir}
}

// call sends a request to path (below the sandbox, or an absolute URL) with
// the header pairs and returns the status and the body.
func (e *momentsEnv) call(t *testing.T, method, path string, body io.Reader, header ...string) (int, []byte) {
	t.Helper()
	target := path
	if !strings.HasPrefix(path, "http") {
		target = e.url + path
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
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
	return resp.StatusCode, b
}

// uploadURL asks for a signed upload address and returns it with its key.
func (e *momentsEnv) uploadURL(t *testing.T) (string, string) {
	t.Helper()
	status, b := e.call(t, http.MethodPost, "/moments/media-upload-url", nil, "Authorization", "Bearer "+e.bearer)
	var target struct{ URL, Key string }
	if err := json.Unmarshal(b, &target); status != http.StatusOK || err != nil || target.Key == "" {
		t.Fatalf("POST /moments/media-upload-url = %d %s, want 200 with url and key", status, b)
	}
	return target.URL, target.Key
}

// upload uploads content as contentType and returns its media key.
func (e *momentsEnv) upload(t *testing.T, content []byte, contentType string) string {
	t.Helper()
	target, key := e.uploadURL(t)
	if status, b := e.call(t, http.MethodPut, target, bytes.NewReader(content), "Content-Type", contentType); status != http.StatusOK {
		t.Fatalf("PUT upload = %d %s, want 200", status, b)
	}
	return key
}

// media reads the status of key and returns the HTTP status and the body.
func (e *momentsEnv) media(t *testing.T, key string) (int, map[string]any) {
	t.Helper()
	status, b := e.call(t, http.MethodGet, "/media/"+key, nil)
	var body map[string]any
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("GET /media/%s: body %q is not JSON", key, b)
	}
	return status, body
}

// create posts a Moment and returns the status and the body.
func (e *momentsEnv) create(t *testing.T, in any) (int, map[string]any) {
	t.Helper()
	payload, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	status, b := e.call(t, http.MethodPost, "/moments", bytes.NewReader(payload),
		"Authorization", "Bearer "+e.bearer, "Content-Type", "application/json")
	var body map[string]any
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("POST /moments: body %q is not JSON", b)
	}
	return status, body
}

func TestServer_MomentFlow(t *testing.T) {
	e := startMoments(t, 0)
	key := e.upload(t, pngFile, "image/png")
	sum := sha256.Sum256(pngFile)
	hash := hex.EncodeToString(sum[:])
	status, body := e.media(t, key)
	want := map[string]any{
		"key": key, "status": "PROCESSED", "mimeType": "image/png", "hash": hash,
		"location": "poap://media/" + key,
		"gateways": []any{map[string]any{"type": "image/png", "url": e.url + "/gateway/media/" + key}},
	}
	if diff := cmp.Diff(want, body); status != http.StatusOK || diff != "" {
		t.Fatalf("GET /media/{key} = %d, diff (-want +got):\n%s", status, diff)
	}
	status, created := e.create(t, map[string]any{
		"author": author, "mediaKeys": []string{key}, "dropIds": []int64{e.dropID}, "description": "gm",
	})
	if status != http.StatusCreated || created["id"] == "" || created["author"] != author ||
		created["createdOn"] != "2025-06-01T12:00:00.000Z" || created["description"] != "gm" {
		t.Fatalf("POST /moments = %d %v, want 201 with the Moment", status, created)
	}
	moments := e.s.Moments()
	if len(moments) != 1 || moments[0].ID != created["id"] || !cmp.Equal(moments[0].MediaKeys, []string{key}) {
		t.Errorf("Moments() = %+v, want the created Moment with its media", moments)
	}
	if m, ok := e.s.Media(key); !ok || m.MomentID != created["id"] || m.Size != int64(len(pngFile)) || m.Hash != hash {
		t.Errorf("Media(%s) = %+v, %v, want attached, size %d", key, m, ok, len(pngFile))
	}
}

func TestServer_MediaStates(t *testing.T) {
	text := []byte("plain words, no picture here")
	tests := []struct {
		name, contentType string
		content           []byte
		want              string
	}{
		{"PNG", "image/png", pngFile, "PROCESSED"},
		{"TypeWithParameters", "IMAGE/PNG; name=a.png", pngFile, "PROCESSED"},
		{"TextAsPNG", "image/png", text, "INVALID"},
		{"PNGAsVideo", "video/mp4", pngFile, "INVALID"},
		{"Text", "text/plain; charset=utf-8", text, "INVALID"},
		{"Empty", "image/png", nil, "FAILED"},
	}
	e := startMoments(t, 0)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key := e.upload(t, tc.content, tc.contentType)
			if status, body := e.media(t, key); status != http.StatusOK || body["status"] != tc.want {
				t.Errorf("GET /media/{key} = %d %v, want status %s", status, body, tc.want)
			}
		})
	}
}

func TestServer_MediaDelay(t *testing.T) {
	e := startMoments(t, 10*time.Second)
	key := e.upload(t, pngFile, "image/png")
	steps := []struct {
		advance    time.Duration
		wantStatus int
		want       any
	}{
		{0, http.StatusNotFound, nil},
		{6 * time.Second, http.StatusOK, "IN_PROCESS"},
		{5 * time.Second, http.StatusOK, "PROCESSED"},
	}
	for _, step := range steps {
		e.clock.Advance(step.advance)
		if status, body := e.media(t, key); status != step.wantStatus || body["status"] != step.want {
			t.Errorf("after %v more: GET /media/{key} = %d %v, want %d %v", step.advance, status, body, step.wantStatus, step.want)
		}
	}
	e.s.SetMediaDelay(time.Hour)
	if status, _ := e.media(t, key); status != http.StatusNotFound {
		t.Errorf("after SetMediaDelay(1h): GET /media/{key} = %d, want 404", status)
	}
	if m, ok := e.s.Media(key); !ok || m.Status != "IN_PROCESS" {
		t.Errorf("Media(%s) = %+v, %v, want IN_PROCESS", key, m, ok)
	}
}

func TestServer_UploadErrors(t *testing.T) {
	e := startMoments(t, 0)
	target, _ := e.uploadURL(t)
	tests := []struct {
		name   string
		target string
		body   io.Reader
		header []string
		want   int
	}{
		{"BadSignature", strings.Replace(target, "signature=", "signature=0", 1), bytes.NewReader(pngFile), []string{"Content-Type", "image/png"}, http.StatusForbidden},
		{"NoSignature", strings.Split(target, "?")[0], bytes.NewReader(pngFile), []string{"Content-Type", "image/png"}, http.StatusForbidden},
		{"NoContentType", target, bytes.NewReader(pngFile), nil, http.StatusBadRequest},
		{"Chunked", target, io.MultiReader(bytes.NewReader(pngFile)), []string{"Content-Type", "image/png"}, http.StatusLengthRequired},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if status, b := e.call(t, http.MethodPut, tc.target, tc.body, tc.header...); status != tc.want {
				t.Errorf("PUT = %d %s, want %d", status, b, tc.want)
			}
		})
	}
	if got := e.s.Requests(wire.OpMediaUpload); got != len(tests) {
		t.Errorf("Requests(OpMediaUpload) = %d, want %d", got, len(tests))
	}
}

func TestServer_CreateMomentErrors(t *testing.T) {
	e := startMoments(t, 10*time.Second)
	invalid := e.upload(t, []byte("text"), "image/png")
	attached := e.upload(t, pngFile, "image/png")
	fresh := e.upload(t, pngFile, "image/png")
	e.clock.Advance(11 * time.Second)
	if status, body := e.create(t, map[string]any{"author": author, "mediaKeys": []string{attached}, "dropIds": []int64{e.dropID}}); status != http.StatusCreated {
		t.Fatalf("POST /moments = %d %v, want 201", status, body)
	}
	pending := e.upload(t, pngFile, "image/png")
	e.clock.Advance(6 * time.Second)
	moment := func(keys []string, drops []int64, description string) map[string]any {
		return map[string]any{"author": author, "mediaKeys": keys, "dropIds": drops, "description": description}
	}
	tests := []struct {
		name string
		in   any
		want int
	}{
		{"BadAuthor", map[string]any{"author": "vitalik.eth", "dropIds": []int64{e.dropID}}, http.StatusBadRequest},
		{"LongDescription", moment(nil, []int64{e.dropID}, strings.Repeat("é", 601)), http.StatusBadRequest},
		{"NoDrop", moment(nil, nil, ""), http.StatusBadRequest},
		{"UnknownDrop", moment(nil, []int64{1}, ""), http.StatusNotFound},
		{"EmptyUserTag", map[string]any{"author": author, "dropIds": []int64{e.dropID}, "userTags": []any{map[string]any{}}}, http.StatusBadRequest},
		{"UnknownMedia", moment([]string{"0b6a3c36-1d8e-4e0c-9a44-5a0f3c7e2b11"}, []int64{e.dropID}, ""), http.StatusConflict},
		{"InvalidMedia", moment([]string{invalid}, []int64{e.dropID}, ""), http.StatusConflict},
		{"AttachedMedia", moment([]string{attached}, []int64{e.dropID}, ""), http.StatusConflict},
		{"ProcessingMedia", moment([]string{pending}, []int64{e.dropID}, ""), http.StatusConflict},
		{"SameMediaTwice", moment([]string{fresh, fresh}, []int64{e.dropID}, ""), http.StatusConflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := e.create(t, tc.in)
			if status != tc.want || body["message"] == "" {
				t.Errorf("POST /moments = %d %v, want %d with a message", status, body, tc.want)
			}
		})
	}
	if status, body := e.create(t, moment([]string{fresh}, []int64{e.dropID}, strings.Repeat("é", 600))); status != http.StatusCreated {
		t.Errorf("POST /moments with 600 characters = %d %v, want 201", status, body)
	}
}

func TestServer_MomentsNeedBearer(t *testing.T) {
	e := startMoments(t, 0)
	for _, auth := range []string{"", "Bearer ", "Bearer not-a-token"} {
		status, _ := e.call(t, http.MethodPost, "/moments/media-upload-url", nil, "Authorization", auth)
		if status != http.StatusUnauthorized {
			t.Errorf("POST /moments/media-upload-url with %q = %d, want 401", auth, status)
		}
		status, _ = e.call(t, http.MethodPost, "/moments", strings.NewReader("{}"), "Authorization", auth)
		if status != http.StatusUnauthorized {
			t.Errorf("POST /moments with %q = %d, want 401", auth, status)
		}
	}
}
