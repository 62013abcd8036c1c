package sandbox_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/poapbot/poapbot/poap/wire"
)

// get sends a GET of target with the header pairs and returns the answer
// with its body read.
func (e *momentsEnv) get(t *testing.T, target string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, target, nil)
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
	return resp, b
}

// files counts the regular files below the sandbox's media directory.
func (e *momentsEnv) files(t *testing.T) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(e.mediaDir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestServer_MediaGateway(t *testing.T) {
	e := startMoments(t, 10*time.Second)
	key := e.upload(t, pngFile, "image/png")
	invalid := e.upload(t, []byte("plain words, no picture"), "image/png")
	gateway := e.url + "/gateway/media/" + key
	for _, advance := range []time.Duration{0, 6 * time.Second} {
		e.clock.Advance(advance)
		if resp, _ := e.get(t, gateway); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s before processing = %d, want 404", gateway, resp.StatusCode)
		}
	}
	e.clock.Advance(5 * time.Second)
	if status, body := e.media(t, key); status != http.StatusOK || body["status"] != wire.MediaProcessed {
		t.Fatalf("GET /media/{key} = %d %v, want PROCESSED", status, body)
	}
	t.Run("Whole", func(t *testing.T) {
		resp, b := e.get(t, gateway)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" || !bytes.Equal(b, pngFile) {
			t.Errorf("GET %s = %d %q, %d bytes, want 200 image/png with the %d bytes uploaded",
				gateway, resp.StatusCode, resp.Header.Get("Content-Type"), len(b), len(pngFile))
		}
	})
	t.Run("Range", func(t *testing.T) {
		resp, b := e.get(t, gateway, "Range", "bytes=0-7")
		if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(b, pngFile[:8]) {
			t.Errorf("GET %s with Range bytes=0-7 = %d %q, want 206 with the PNG signature", gateway, resp.StatusCode, b)
		}
	})
	for name, k := range map[string]string{"Unknown": "0b6a3c36-1d8e-4e0c-9a44-5a0f3c7e2b11", "Invalid": invalid} {
		t.Run(name, func(t *testing.T) {
			if resp, _ := e.get(t, e.url+"/gateway/media/"+k); resp.StatusCode != http.StatusNotFound {
				t.Errorf("GET /gateway/media/%s = %d, want 404", k, resp.StatusCode)
			}
		})
	}
	if n := e.s.Requests(wire.OpMediaGateway); n != 6 {
		t.Errorf("Requests(OpMediaGateway) = %d, want 6", n)
	}
}

// abortUpload sends a PUT to target that declares twice the bytes it sends,
// then closes its side, and returns the status of the answer, which the
// Server writes after it cleaned up.
func abortUpload(t *testing.T, target string, content []byte) int {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "PUT %s HTTP/1.1\r\nHost: %s\r\nContent-Type: image/png\r\nContent-Length: %d\r\n\r\n",
		u.RequestURI(), u.Host, 2*len(content))
	conn.Write(content)
	conn.(*net.TCPConn).CloseWrite()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("aborted upload: reading the answer: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestServer_MediaFiles(t *testing.T) {
	e := startMoments(t, 0)
	if n := e.files(t); n != 0 {
		t.Fatalf("files before any upload = %d, want 0", n)
	}
	e.upload(t, pngFile, "image/png")
	e.upload(t, []byte("plain words, no picture"), "image/png")
	e.upload(t, nil, "image/png")
	if n := e.files(t); n != 1 {
		t.Errorf("files after a PNG, a text and an empty upload = %d, want 1 (only the processed file)", n)
	}
	target, replaced := e.uploadURL(t)
	for range 2 {
		if status, b := e.call(t, http.MethodPut, target, bytes.NewReader(pngFile), "Content-Type", "image/png"); status != http.StatusOK {
			t.Fatalf("PUT upload = %d %s, want 200", status, b)
		}
	}
	if n := e.files(t); n != 2 {
		t.Errorf("files after uploading to one key twice = %d, want 2 (the second replaces the first)", n)
	}
	aborted, _ := e.uploadURL(t)
	if status := abortUpload(t, aborted, pngFile); status != http.StatusBadRequest {
		t.Errorf("aborted upload = %d, want 400", status)
	}
	if n := e.files(t); n != 2 {
		t.Errorf("files after an aborted upload = %d, want 2", n)
	}
	if err := e.s.Close(); err != nil {
		t.Fatalf("Close() error = %v", err)
	}
	if n := e.files(t); n != 0 {
		t.Errorf("files after Close = %d, want 0", n)
	}
	if resp, _ := e.get(t, e.url+"/gateway/media/"+replaced); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /gateway/media/{key} after Close = %d, want 404", resp.StatusCode)
	}
	late, _ := e.uploadURL(t)
	if status, _ := e.call(t, http.MethodPut, late, bytes.NewReader(pngFile), "Content-Type", "image/png"); status != http.StatusServiceUnavailable {
		t.Errorf("PUT upload after Close = %d, want 503", status)
	}
}
