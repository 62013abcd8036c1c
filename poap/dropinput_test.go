package poap_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color/palette"
	"image/gif"
	"image/png"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/wire"
)

// pngImage returns a small PNG.
func pngImage(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 8, 8))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gifImage returns a small GIF.
func gifImage(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := gif.Encode(&buf, image.NewPaletted(image.Rect(0, 0, 8, 8), palette.Plan9), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// testDropInput is a valid new test drop with artwork img.
func testDropInput(img []byte) poap.DropInput {
	return poap.DropInput{
		Name:        "poapbot test drop 2 of 3",
		Description: "Test drop for the poapbot integration (2 of 3). Not a real event; private, few mint links.",
		City:        "Lisbon", Country: "Portugal", EventURL: "https://poapbot.example.org/test",
		StartDate: day(2025, 3, 8), EndDate: day(2025, 3, 9), ExpiryDate: day(2025, 4, 8),
		Image: bytes.NewReader(img), ImageName: "test-artwork.png", ImageType: "image/png",
		EditCode: editCode, Email: "issuer@example.org", RequestedCodes: 5, PrivateEvent: true,
	}
}

// multipartSeen is what the fake read back from a multipart request.
type multipartSeen struct {
	fields      map[string]string
	fileName    string
	fileType    string
	file        []byte
	contentType string
	method      string
}

// multipartFake parses the multipart form of each request into seen and
// answers with fixture.
func multipartFake(t *testing.T, status int, fixture string, seen *multipartSeen) http.Handler {
	t.Helper()
	answer := serveFixture(t, status, fixture)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.method, seen.contentType = r.Method+" "+r.URL.Path, r.Header.Get("Content-Type")
		if err := r.ParseMultipartForm(8 << 20); err != nil {
			t.Errorf("ParseMultipartForm() error = %v", err)
			http.Error(w, "bad form", http.StatusBadRequest)
			return
		}
		seen.fields = map[string]string{}
		for k, v := range r.MultipartForm.Value {
			seen.fields[k] = strings.Join(v, "|")
		}
		if files := r.MultipartForm.File["image"]; len(files) == 1 {
			seen.fileName, seen.fileType = files[0].Filename, files[0].Header.Get("Content-Type")
			f, err := files[0].Open()
			if err == nil {
				seen.file, _ = io.ReadAll(f)
				f.Close()
			}
		}
		answer(w, r)
	})
}

func TestClient_CreateDrop(t *testing.T) {
	img := pngImage(t)
	var seen multipartSeen
	c, _ := opsClient(t, multipartFake(t, http.StatusOK, "drop_created.json", &seen))
	got, err := c.CreateDrop(context.Background(), testDropInput(img))
	if err != nil {
		t.Fatalf("CreateDrop() error = %v", err)
	}
	if got.ID != 175301 || got.FancyID != "poapbot-test-drop-2-of-3-2025" || !got.PrivateEvent {
		t.Errorf("CreateDrop() = %+v, want drop 175301", got)
	}
	if seen.method != "POST /events" || !strings.HasPrefix(seen.contentType, "multipart/form-data; boundary=") {
		t.Errorf("request = %s (%s), want POST /events as multipart/form-data", seen.method, seen.contentType)
	}
	want := map[string]string{
		"name": "poapbot test drop 2 of 3", "description": testDropInput(img).Description,
		"city": "Lisbon", "country": "Portugal", "event_url": "https://poapbot.example.org/test",
		"start_date": "2025-03-08", "end_date": "2025-03-09", "expiry_date": "2025-04-08", "year": "2025",
		"virtual_event": "false", "secret_code": "123456", "event_template_id": "0", "email": "issuer@example.org",
		"requested_codes": "5", "private_event": "true",
	}
	if diff := cmp.Diff(want, seen.fields); diff != "" {
		t.Errorf("form fields mismatch (-want +got):\n%s", diff)
	}
	if seen.fileName != "test-artwork.png" || seen.fileType != "image/png" || !bytes.Equal(seen.file, img) {
		t.Errorf("image part = %q (%s, %d bytes), want test-artwork.png (image/png, %d bytes)",
			seen.fileName, seen.fileType, len(seen.file), len(img))
	}
}

func TestClient_CreateDrop_GIF(t *testing.T) {
	var seen multipartSeen
	c, _ := opsClient(t, multipartFake(t, http.StatusOK, "drop_created.json", &seen))
	in := testDropInput(gifImage(t))
	in.ImageName, in.ImageType, in.VirtualEvent, in.City, in.Country = "art.webp", "", true, "", ""
	if _, err := c.CreateDrop(context.Background(), in); err != nil {
		t.Fatalf("CreateDrop() error = %v", err)
	}
	if seen.fileName != "art.webp" || seen.fileType != "image/gif" || seen.fields["virtual_event"] != "true" || seen.fields["city"] != "" {
		t.Errorf("sent image %q (%s), virtual_event %q, city %q; want art.webp (image/gif), true, empty",
			seen.fileName, seen.fileType, seen.fields["virtual_event"], seen.fields["city"])
	}
}

func TestClient_CreateDrop_Refused(t *testing.T) {
	img := pngImage(t)
	webp := []byte("RIFF\x24\x00\x00\x00WEBPVP8 \x18\x00\x00\x00")
	tests := []struct {
		name   string
		edit   func(*poap.DropInput)
		field  string
		target error
	}{
		{"NoName", func(in *poap.DropInput) { in.Name = " " }, "name", poap.ErrInvalidInput},
		{"LongDescription", func(in *poap.DropInput) { in.Description = strings.Repeat("é", wire.MaxDropDescription+1) }, "description", poap.ErrInvalidInput},
		{"SpacesCity", func(in *poap.DropInput) { in.City = "   " }, "city", poap.ErrInvalidInput},
		{"SpacesCountry", func(in *poap.DropInput) { in.Country = " " }, "country", poap.ErrInvalidInput},
		{"SpacesURL", func(in *poap.DropInput) { in.EventURL = "  " }, "event_url", poap.ErrInvalidInput},
		{"NoStart", func(in *poap.DropInput) { in.StartDate = poap.Date{} }, "start_date", poap.ErrInvalidInput},
		{"BadDay", func(in *poap.DropInput) { in.EndDate = day(2025, 2, 30) }, "end_date", poap.ErrInvalidInput},
		{"EndBeforeStart", func(in *poap.DropInput) { in.EndDate = day(2025, 3, 7) }, "end_date", poap.ErrInvalidInput},
		{"ExpiryBeforeEnd", func(in *poap.DropInput) { in.ExpiryDate = day(2025, 3, 8) }, "expiry_date", poap.ErrInvalidInput},
		{"ShortCode", func(in *poap.DropInput) { in.EditCode = "12345" }, "secret_code", poap.ErrInvalidEditCode},
		{"LetterCode", func(in *poap.DropInput) { in.EditCode = "12345a" }, "secret_code", poap.ErrInvalidEditCode},
		{"NoEmail", func(in *poap.DropInput) { in.Email = "" }, "email", poap.ErrInvalidInput},
		{"BadEmail", func(in *poap.DropInput) { in.Email = "issuer.example.org" }, "email", poap.ErrInvalidInput},
		{"NegativeCodes", func(in *poap.DropInput) { in.RequestedCodes = -1 }, "requested_codes", poap.ErrInvalidInput},
		{"NoImage", func(in *poap.DropInput) { in.Image = nil }, "image", poap.ErrInvalidInput},
		{"JPEGName", func(in *poap.DropInput) { in.ImageName = "art.jpg" }, "image", poap.ErrInvalidInput},
		{"WebPContent", func(in *poap.DropInput) { in.Image, in.ImageType = bytes.NewReader(webp), "" }, "image", poap.ErrInvalidInput},
		{"WrongType", func(in *poap.DropInput) { in.ImageType = "image/gif" }, "image", poap.ErrInvalidInput},
		{"TooLarge", func(in *poap.DropInput) {
			in.Image = io.MultiReader(bytes.NewReader(img), bytes.NewReader(make([]byte, wire.MaxDropImage)))
		}, "image", poap.ErrInvalidInput},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, rec := opsClient(t, serveFixture(t, http.StatusOK, "drop_created.json"))
			in := testDropInput(img)
			tc.edit(&in)
			_, err := c.CreateDrop(context.Background(), in)
			var fe *poap.FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !errors.Is(err, tc.target) {
				t.Fatalf("CreateDrop() error = %v, want a FieldError on %s matching %v", err, tc.field, tc.target)
			}
			if n := len(rec.all()); n != 0 {
				t.Errorf("requests = %d, want none", n)
			}
			if strings.Contains(err.Error(), editCode) {
				t.Errorf("error %q reveals the edit code", err)
			}
		})
	}
}

// TestClient_EditDrop edits with everything given: no read comes first.
// TestClient_EditDrop_AsItIs edits with the drop's own flags and artwork.
func TestClient_EditDrop(t *testing.T) {
	var seen multipartSeen
	c, rec := opsClient(t, multipartFake(t, http.StatusNoContent, "scan_empty.json", &seen))
	img := gifImage(t)
	in := poap.DropEdit{
		Name: "poapbot test drop 2 of 3 (renamed)", Description: "New text.", City: "", Country: "",
		EventURL: "https://poapbot.example.org/test2", StartDate: day(2025, 3, 8), EndDate: day(2025, 3, 8),
		ExpiryDate: day(2025, 4, 30), EditCode: editCode,
		VirtualEvent: ptr(false), PrivateEvent: ptr(true), EventTemplateID: ptr(int64(7)),
		Image: bytes.NewReader(img), ImageName: "dir/art.png",
	}
	if err := c.EditDrop(context.Background(), "poapbot-test-drop-2-of-3-2025", in); err != nil {
		t.Fatalf("EditDrop() error = %v", err)
	}
	want := map[string]string{
		"name": in.Name, "description": "New text.", "city": "", "country": "",
		"event_url": "https://poapbot.example.org/test2", "start_date": "2025-03-08", "end_date": "2025-03-08",
		"expiry_date": "2025-04-30", "secret_code": "123456",
		"virtual_event": "false", "private_event": "true", "event_template_id": "7",
	}
	if seen.method != "PUT /events/poapbot-test-drop-2-of-3-2025" || len(rec.all()) != 1 {
		t.Errorf("requests = %d, the last %s, want PUT /events/poapbot-test-drop-2-of-3-2025 only", len(rec.all()), seen.method)
	}
	if diff := cmp.Diff(want, seen.fields); diff != "" {
		t.Errorf("form fields mismatch (-want +got):\n%s", diff)
	}
	if seen.fileName != "art.png" || seen.fileType != "image/gif" || !bytes.Equal(seen.file, img) {
		t.Errorf("image part = %q (%s), %d bytes, want art.png, the GIF given", seen.fileName, seen.fileType, len(seen.file))
	}
	t.Run("ErrInvalidEditCode", func(t *testing.T) {
		c, _ := opsClient(t, serveFixture(t, http.StatusBadRequest, "error_invalid_secret_code.json"))
		in.Image = bytes.NewReader(img)
		if err := c.EditDrop(context.Background(), "x", in); !errors.Is(err, poap.ErrInvalidEditCode) {
			t.Errorf("EditDrop() error = %v, want ErrInvalidEditCode", err)
		}
	})
}
