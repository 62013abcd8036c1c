package poap_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

func TestClient_UploadMedia(t *testing.T) {
	s, c, _ := startMomentsSandbox(t, sandbox.Options{})
	// The reader stands after a prefix: the upload starts there and leaves
	// the position alone.
	r := bytes.NewReader(append([]byte("skip me"), pngContent...))
	if _, err := r.Seek(7, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	key, err := c.UploadMedia(context.Background(), r, int64(len(pngContent)), "image/png")
	if err != nil {
		t.Fatalf("UploadMedia() error = %v", err)
	}
	m, ok := s.Media(key)
	want := sandbox.Media{
		Key: key, DeclaredType: "image/png", SniffedType: "image/png", Size: int64(len(pngContent)),
		Hash: sha256Hex(pngContent), Status: wire.MediaProcessed,
	}
	if diff := cmp.Diff(want, m); !ok || diff != "" {
		t.Errorf("sandbox Media(key) diff (-want +got):\n%s", diff)
	}
	if r.Len() != len(pngContent) {
		t.Errorf("reader has %d bytes left, want %d: the upload moved it", r.Len(), len(pngContent))
	}
}

func TestClient_UploadMedia_Errors(t *testing.T) {
	s, c, _ := startMomentsSandbox(t, sandbox.Options{})
	size := int64(len(pngContent))
	tests := []struct {
		name        string
		r           io.Reader
		size        int64
		contentType string
		wantInvalid bool
	}{
		{"NoBytes", bytes.NewReader(nil), 0, "image/png", true},
		{"NoContentType", bytes.NewReader(pngContent), size, " ", true},
		{"ShortReader", io.MultiReader(bytes.NewReader(pngContent)), size + 10, "image/png", false},
		{"LongReader", io.MultiReader(bytes.NewReader(pngContent)), size - 10, "image/png", false},
		{"ShortReaderAt", bytes.NewReader(pngContent), size + 10, "image/png", false},
		{"LongReaderAt", bytes.NewReader(pngContent), size - 10, "image/png", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.UploadMedia(context.Background(), tc.r, tc.size, tc.contentType)
			if err == nil || errors.Is(err, poap.ErrMediaInvalid) != tc.wantInvalid || errors.Is(err, poap.ErrUnavailable) {
				t.Errorf("UploadMedia() error = %v, want an error; ErrMediaInvalid %v, not ErrUnavailable", err, tc.wantInvalid)
			}
		})
	}
	if got := s.Requests(wire.OpMediaUpload); got != 4 {
		t.Errorf("sandbox got %d uploads, want 4 (none for the refused inputs, no retries)", got)
	}
}

// flakyUploads is a fake Moments whose first upload answers 503; it keeps
// the hash of every upload body it read and the credentials each request
// carried.
type flakyUploads struct {
	mu          sync.Mutex
	hashes      []string
	credentials []string
}

func (f *flakyUploads) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.credentials = append(f.credentials, r.Method+" key="+r.Header.Get("X-API-Key")+" auth="+r.Header.Get("Authorization"))
	f.mu.Unlock()
	if r.Method == http.MethodPost {
		w.Write([]byte(`{"url":"http://` + r.Host + `/put/k1?sig=s","key":"k1"}`))
		return
	}
	h := sha256.New()
	io.Copy(h, r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hashes = append(f.hashes, hex.EncodeToString(h.Sum(nil)))
	if len(f.hashes) == 1 {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
}

func TestClient_UploadMedia_Retry(t *testing.T) {
	tests := []struct {
		name    string
		r       io.Reader
		wantErr bool
		want    []string
	}{
		{"ReaderAt", bytes.NewReader(pngContent), false, []string{sha256Hex(pngContent), sha256Hex(pngContent)}},
		{"OneShot", io.MultiReader(bytes.NewReader(pngContent)), true, []string{sha256Hex(pngContent)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := &flakyUploads{}
			srv := httptest.NewServer(fake)
			t.Cleanup(srv.Close)
			c, err := poap.NewClient(poap.Options{
				BaseURL: srv.URL, MomentsURL: srv.URL, APIKey: testKey, Tokens: momentTokens("t"), RateLimit: -1,
				Retry: poap.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: time.Millisecond},
			})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.UploadMedia(context.Background(), tc.r, int64(len(pngContent)), "image/png")
			if (err != nil) != tc.wantErr || err != nil && !errors.Is(err, poap.ErrUnavailable) {
				t.Errorf("UploadMedia() error = %v, want error %v (ErrUnavailable)", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, fake.hashes); diff != "" {
				t.Errorf("bodies received diff (-want +got):\n%s", diff)
			}
			// Moments writes carry the bearer token only; the signed
			// address, nothing.
			if want := "POST key= auth=Bearer t"; fake.credentials[0] != want {
				t.Errorf("credentials of the upload address request = %q, want %q", fake.credentials[0], want)
			}
			for _, got := range fake.credentials[1:] {
				if got != "PUT key= auth=" {
					t.Errorf("credentials of an upload = %q, want none", got)
				}
			}
		})
	}
}

func TestClient_WaitForMedia(t *testing.T) {
	s, c, _ := startMomentsSandbox(t, sandbox.Options{MediaDelay: 150 * time.Millisecond})
	ctx := context.Background()
	key, err := c.UploadMedia(ctx, bytes.NewReader(pngContent), int64(len(pngContent)), "image/png")
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.WaitForMedia(ctx, key, poap.WaitOptions{Interval: 10 * time.Millisecond})
	if err != nil {
		t.Fatalf("WaitForMedia() error = %v", err)
	}
	hash := sha256Hex(pngContent)
	want := poap.Media{
		Key: key, Status: poap.MediaProcessed, MimeType: "image/png", Hash: hash, Location: "poap://media/" + key,
		Gateways: []poap.Gateway{{Type: "image/png", URL: "/gateway/media/" + key}},
	}
	// The gateway is on the sandbox's own loopback address.
	trimHost := cmp.Transformer("path", func(g poap.Gateway) poap.Gateway {
		if u, err := url.Parse(g.URL); err == nil && u.Hostname() == "127.0.0.1" {
			g.URL = u.Path
		}
		return g
	})
	if diff := cmp.Diff(want, m, trimHost); diff != "" {
		t.Errorf("WaitForMedia() diff (-want +got):\n%s", diff)
	}
	// 404 for 75 ms, IN_PROCESS for 75 ms, then PROCESSED.
	if n := s.Requests(wire.OpMediaStatus); n < 3 {
		t.Errorf("WaitForMedia() read the status %d times, want several", n)
	}
}

func TestClient_WaitForMedia_Errors(t *testing.T) {
	s, c, _ := startMomentsSandbox(t, sandbox.Options{})
	ctx := context.Background()
	upload := func(content []byte, contentType string) string {
		key, err := c.UploadMedia(ctx, bytes.NewReader(content), int64(len(content)), contentType)
		if err != nil {
			t.Fatal(err)
		}
		return key
	}
	invalid := upload([]byte("no picture at all"), "image/png")
	m, err := c.WaitForMedia(ctx, invalid, poap.WaitOptions{Interval: time.Millisecond})
	if !errors.Is(err, poap.ErrMediaInvalid) || m.Status != poap.MediaInvalid {
		t.Errorf("WaitForMedia(text as PNG) = %+v, %v, want INVALID and ErrMediaInvalid", m, err)
	}
	s.SetMediaDelay(time.Hour)
	slow := upload(pngContent, "image/png")
	_, err = c.WaitForMedia(ctx, slow, poap.WaitOptions{Interval: 5 * time.Millisecond, Timeout: 50 * time.Millisecond})
	if !errors.Is(err, poap.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitForMedia() past its timeout: error = %v, want ErrUnavailable", err)
	}
	canceled, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	_, err = c.WaitForMedia(canceled, slow, poap.WaitOptions{Interval: 5 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, poap.ErrUnavailable) {
		t.Errorf("WaitForMedia() with the caller's context ended: error = %v, want its error", err)
	}
}

func TestClient_Media_Lenient(t *testing.T) {
	h := serveJSON(http.StatusOK, `{"status":"processed","key":"k","mimeType":"image/gif","gateways":["https://ipfs.example/x"]}`)
	c := momentsClient(t, h)
	m, err := c.Media(context.Background(), "k")
	want := poap.Media{Key: "k", Status: poap.MediaProcessed, MimeType: "image/gif", Gateways: []poap.Gateway{{URL: "https://ipfs.example/x"}}}
	if diff := cmp.Diff(want, m); err != nil || diff != "" {
		t.Errorf("Media() = %v, diff (-want +got):\n%s", err, diff)
	}
	c = momentsClient(t, serveJSON(http.StatusNotFound, `{"message":"Not Found"}`))
	if m, err := c.Media(context.Background(), "k"); err != nil || m.Status != poap.MediaInProcess {
		t.Errorf("Media() on 404 = %+v, %v, want IN_PROCESS", m, err)
	}
}

func TestMediaWaitTimeout(t *testing.T) {
	tests := []struct {
		size int64
		want time.Duration
	}{
		{0, time.Minute},
		{100 << 20, 80 * time.Second},
		{1 << 30, 60*time.Second + 204800*time.Millisecond},
	}
	for _, tc := range tests {
		if got := poap.MediaWaitTimeout(tc.size); got != tc.want {
			t.Errorf("MediaWaitTimeout(%d) = %v, want %v", tc.size, got, tc.want)
		}
	}
}

// serveJSON answers every request with status and body.
func serveJSON(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(body))
	}
}

// momentsClient serves h on loopback as Moments and Compass and returns a
// client for it that does not retry.
func momentsClient(t *testing.T, h http.Handler) *poap.Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := poap.NewClient(poap.Options{
		BaseURL: srv.URL, MomentsURL: srv.URL, CompassURL: srv.URL + "/v1/graphql", APIKey: testKey,
		Tokens: momentTokens("t"), RateLimit: -1, Retry: poap.RetryPolicy{MaxAttempts: -1},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestClient_UploadMedia_RedactsSignature: an upload that cannot reach its
// signed address fails with an error that does not quote the signature.
func TestClient_UploadMedia_RedactsSignature(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	addr := closed.URL
	closed.Close()
	const secret = "X-Amz-Signature=SECRETSIGNATURE"
	c := momentsClient(t, serveJSON(http.StatusOK, `{"url":"`+addr+`/up?`+secret+`","key":"k1"}`))
	_, err := c.UploadMedia(context.Background(), bytes.NewReader([]byte("abc")), 3, "image/png")
	if !errors.Is(err, poap.ErrUnavailable) {
		t.Fatalf("UploadMedia(to a closed address) = %v, want ErrUnavailable", err)
	}
	if strings.Contains(err.Error(), "SECRETSIGNATURE") {
		t.Errorf("UploadMedia error quotes the signature: %v", err)
	}
}
