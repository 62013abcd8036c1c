package discordtest_test

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/core/coretest"
)

// get fetches u and returns the status and the body.
func get(t *testing.T, u string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	return resp.StatusCode, body
}

// TestServer_Files checks that a typed line's attachment resolves to a
// registered file, served at a signed URL, as Discord's CDN serves it:
// 404 without the signature, once removed, and once expired.
func TestServer_Files(t *testing.T) {
	t.Parallel()
	clock := coretest.NewClock(time.Now())
	srv := discordtest.NewServer(t, discordtest.Options{Clock: clock})
	photo := []byte("\x89PNG\r\n\x1a\nnot really a picture")
	srv.AddFile("photo.png", "image/png", photo)
	cmds := []*discordgo.ApplicationCommand{{Name: "moment", Description: "m", Options: []*discordgo.ApplicationCommandOption{
		{Type: discordgo.ApplicationCommandOptionAttachment, Name: "media", Description: "m", Required: true},
		{Type: discordgo.ApplicationCommandOptionAttachment, Name: "media2", Description: "m"},
	}}}
	if _, err := srv.Session().ApplicationCommandBulkOverwrite(srv.AppID(), srv.GuildID(), cmds); err != nil {
		t.Fatal(err)
	}
	_, raw := build(t, srv, discordtest.InteractionSpec{Line: "/moment media:photo.png media2:other.png"})
	data := raw.ApplicationCommandData()
	registered := data.Resolved.Attachments[data.Options[0].Value.(string)]
	other := data.Resolved.Attachments[data.Options[1].Value.(string)]
	if registered == nil || registered.Filename != "photo.png" || registered.ContentType != "image/png" || registered.Size != len(photo) {
		t.Fatalf("resolved media = %+v, want photo.png, image/png, %d bytes", registered, len(photo))
	}
	if other == nil || other.Filename != "other.png" || other.Size != 0 {
		t.Errorf("resolved media2 = %+v, want other.png as before: no size", other)
	}
	u, err := url.Parse(registered.URL)
	if err != nil || u.Query().Get("ex") == "" || u.Query().Get("is") == "" || u.Query().Get("hm") == "" {
		t.Errorf("attachment URL %s (%v) lacks the ex, is and hm parameters", registered.URL, err)
	}
	if status, body := get(t, registered.URL); status != http.StatusOK || !bytes.Equal(body, photo) {
		t.Errorf("GET the attachment = %d, %q; want 200 and the file", status, body)
	}
	unsigned := *u
	unsigned.RawQuery = ""
	forged := *u
	q := u.Query()
	q.Set("hm", "00")
	forged.RawQuery = q.Encode()
	for name, target := range map[string]string{"Unsigned": unsigned.String(), "Forged": forged.String(), "Unregistered": other.URL} {
		if status, _ := get(t, target); status != http.StatusNotFound {
			t.Errorf("%s: GET = %d, want 404", name, status)
		}
	}
	clock.Add(25 * time.Hour)
	if status, _ := get(t, registered.URL); status != http.StatusNotFound {
		t.Errorf("GET an expired link = %d, want 404", status)
	}
	fresh, ok := srv.Attachment("photo.png")
	if !ok {
		t.Fatal("Attachment(photo.png) = false, want a new attachment")
	}
	srv.RemoveFile("photo.png")
	if status, _ := get(t, fresh.URL); status != http.StatusNotFound {
		t.Errorf("GET a removed file = %d, want 404", status)
	}
}

// TestPseudoRandom checks that the content is the same for the same seed,
// whatever the reads and seeks, and differs for another seed.
func TestPseudoRandom(t *testing.T) {
	t.Parallel()
	const size = 1000
	whole, err := io.ReadAll(discordtest.PseudoRandom(1, size))
	if err != nil || len(whole) != size {
		t.Fatalf("ReadAll = %d bytes, %v; want %d", len(whole), err, size)
	}
	r := discordtest.PseudoRandom(1, size)
	if _, err := r.Seek(333, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	part := make([]byte, 101)
	if _, err := io.ReadFull(r, part); err != nil || !bytes.Equal(part, whole[333:434]) {
		t.Errorf("bytes 333 to 434 after a seek = %x, %v; want %x", part, err, whole[333:434])
	}
	if end, err := r.Seek(0, io.SeekEnd); err != nil || end != size {
		t.Errorf("Seek(0, end) = %d, %v; want %d", end, err, size)
	}
	if n, err := r.Read(part); n != 0 || err != io.EOF {
		t.Errorf("Read at the end = %d, %v; want 0, EOF", n, err)
	}
	if _, err := r.Seek(-1, io.SeekStart); err == nil {
		t.Error("Seek(-1) = nil error, want one")
	}
	other, _ := io.ReadAll(discordtest.PseudoRandom(2, size))
	if bytes.Equal(whole, other) {
		t.Error("seeds 1 and 2 gave the same content")
	}
}
