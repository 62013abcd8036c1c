package poap_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/wire"
)

// editFake is a service with one drop, testdata/drop.json, whose artwork
// it serves on its own host: GET /events/{fancyId}, GET /art/{file} and PUT
// /events/{fancyId}, which it records in seen.
type editFake struct {
	t   *testing.T
	art []byte
	// edit, when set, changes the drop's JSON before it is served.
	edit    func(drop string) string
	mu      sync.Mutex
	seen    multipartSeen
	artKeys []string // the X-API-Key and Authorization of each artwork read
}

func (f *editFake) handler() http.Handler {
	drop := string(fixture(f.t, "drop.json"))
	put := multipartFake(f.t, http.StatusNoContent, "scan_empty.json", &f.seen)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /events/{fancyId}", func(w http.ResponseWriter, r *http.Request) {
		d := strings.ReplaceAll(drop, "https://assets.poap.xyz/", "http://"+r.Host+"/art/")
		if f.edit != nil {
			d = f.edit(d)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(d))
	})
	mux.HandleFunc("GET /art/{file}", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.artKeys = append(f.artKeys, r.Header.Get("X-API-Key")+r.Header.Get("Authorization"))
		f.mu.Unlock()
		if f.art == nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "image/png")
		w.Write(f.art)
	})
	mux.Handle("PUT /events/{fancyId}", put)
	return mux
}

// baseEdit is an edit of testdata/drop.json's content.
func baseEdit() poap.DropEdit {
	return poap.DropEdit{
		Name: "poapbot test drop 1 of 3 (renamed)", Description: "New text.",
		EventURL: "https://poapbot.example.org/test", StartDate: day(2025, 3, 7), EndDate: day(2025, 3, 7),
		ExpiryDate: day(2025, 4, 6), EditCode: editCode,
	}
}

// TestClient_EditDrop_AsItIs checks that an edit sends what it does not
// change as the drop has it: its flags, template and artwork, which PUT
// /events/{fancyId} requires.
func TestClient_EditDrop_AsItIs(t *testing.T) {
	f := &editFake{t: t, art: pngImage(t)}
	c, rec := opsClient(t, f.handler())
	if err := c.EditDrop(context.Background(), "poapbot-test-drop-1-of-3-2025", baseEdit()); err != nil {
		t.Fatalf("EditDrop() error = %v", err)
	}
	want := map[string]string{
		"name": "poapbot test drop 1 of 3 (renamed)", "description": "New text.", "city": "", "country": "",
		"event_url": "https://poapbot.example.org/test", "start_date": "2025-03-07", "end_date": "2025-03-07",
		"expiry_date": "2025-04-06", "secret_code": "123456",
		"private_event": "true", "virtual_event": "true", "event_template_id": "0",
	}
	if diff := cmp.Diff(want, f.seen.fields); diff != "" {
		t.Errorf("form fields mismatch (-want +got):\n%s", diff)
	}
	if f.seen.fileName != "4f1d2a7e-0c3b-4e8f-9a61-2d5b7c9e0f13.png" || f.seen.fileType != "image/png" || !bytes.Equal(f.seen.file, f.art) {
		t.Errorf("image part = %q (%s), %d bytes, want the drop's artwork as it is", f.seen.fileName, f.seen.fileType, len(f.seen.file))
	}
	var paths []string
	for _, r := range rec.all() {
		paths = append(paths, r.Method+" "+r.Path)
	}
	wantPaths := []string{
		"GET /events/poapbot-test-drop-1-of-3-2025",
		"GET /art/4f1d2a7e-0c3b-4e8f-9a61-2d5b7c9e0f13.png",
		"PUT /events/poapbot-test-drop-1-of-3-2025",
	}
	if diff := cmp.Diff(wantPaths, paths); diff != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{""}, f.artKeys); diff != "" {
		t.Errorf("the artwork read carried credentials (-want +got):\n%s", diff)
	}
}

// withoutArtwork returns an edit of a drop's JSON that removes drop_image
// and, when imageURL, empties image_url.
func withoutArtwork(imageURL bool) func(string) string {
	return func(d string) string {
		var m map[string]any
		json.Unmarshal([]byte(d), &m)
		delete(m, "drop_image")
		if imageURL {
			m["image_url"] = ""
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
}

func TestClient_EditDrop_Reads(t *testing.T) {
	tests := []struct {
		name    string
		art     []byte
		edit    func(string) string
		wantErr error  // nil: the edit is sent
		wantOp  string // the failing operation, for an *APIError
		check   func(t *testing.T, seen multipartSeen)
	}{
		{name: "TemplateNull", art: []byte("\x89PNG\r\n\x1a\nart"),
			edit: func(d string) string {
				return strings.Replace(d, `"event_template_id": 0`, `"event_template_id": null`, 1)
			},
			check: func(t *testing.T, seen multipartSeen) {
				if _, sent := seen.fields["event_template_id"]; sent || seen.fields["private_event"] != "true" {
					t.Errorf("fields = %v, want no event_template_id, private_event true", seen.fields)
				}
			}},
		{name: "ImageURLOnly", art: []byte("GIF89a-art"), edit: withoutArtwork(false),
			check: func(t *testing.T, seen multipartSeen) {
				if seen.fileType != "image/gif" || string(seen.file) != "GIF89a-art" {
					t.Errorf("image part = %s, %q, want the image_url's GIF", seen.fileType, seen.file)
				}
			}},
		{name: "NoArtworkAddress", art: []byte("x"), edit: withoutArtwork(true), wantErr: poap.ErrInvalidInput},
		{name: "ArtworkGone", wantErr: poap.ErrNotFound, wantOp: wire.OpDropArtwork},
		{name: "ArtworkTooLarge", art: bytes.Repeat([]byte("x"), wire.MaxDropImage+1), wantErr: poap.ErrUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &editFake{t: t, art: tc.art, edit: tc.edit}
			c, _ := opsClient(t, f.handler())
			err := c.EditDrop(context.Background(), "poapbot-test-drop-1-of-3-2025", baseEdit())
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("EditDrop() error = %v", err)
				}
				tc.check(t, f.seen)
				return
			}
			if !errors.Is(err, tc.wantErr) || f.seen.method != "" {
				t.Errorf("EditDrop() = %v, sent %q, want %v and no edit sent", err, f.seen.method, tc.wantErr)
			}
			var apiErr *poap.APIError
			if tc.wantOp != "" && (!errors.As(err, &apiErr) || apiErr.Operation != tc.wantOp) {
				t.Errorf("EditDrop() = %#v, want an *APIError of %s", err, tc.wantOp)
			}
		})
	}
}
