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
