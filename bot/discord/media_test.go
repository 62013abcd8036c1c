package discord

import (
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/core"
)

var (
	photo = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR a small picture")
	clip  = []byte("\x00\x00\x00\x18ftypmp42 a short video")
)

// TestAdapter_Media: the files of a command's attachment options reach
// the command in the order the command declares the options, with what
// Discord declares of them, and open to the bytes attached.
func TestAdapter_Media(t *testing.T) {
	t.Parallel()
	reqs := make(chan *bot.Request, 1)
	r := startMoment(t, func(_ context.Context, req *bot.Request) (bot.Reply, error) {
		reqs <- req
		return bot.Reply{Text: "Moment posted"}, nil
	})
	r.fake.AddFile("photo.png", "image/png", photo)
	r.fake.AddFile("clip.mp4", "video/mp4", clip)
	it := r.fake.Command(discordtest.Alice, "/moment media2:clip.mp4 drop:1 media:photo.png description:hi")
	var req *bot.Request
	select {
	case req = <-reqs:
	case <-timeout(t, 10*time.Second).Done():
		t.Fatalf("the command did not run: %v", it.Err())
	}
	if req.Key != "discord:interaction:"+it.ID {
		t.Errorf("Key = %q, want discord:interaction:%s", req.Key, it.ID)
	}
	want := []bot.Media{
		{Name: "photo.png", Type: "image/png", Size: int64(len(photo))},
		{Name: "clip.mp4", Type: "video/mp4", Size: int64(len(clip))},
	}
	var got []bot.Media
	for _, m := range req.Media {
		got = append(got, bot.Media{Name: m.Name, Type: m.Type, Size: m.Size})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Media mismatch (-want +got):\n%s", diff)
	}
	for i, opt := range []string{"media", "media2"} {
		ref := req.Media[i].Ref
		if id := req.Options[opt]; id == "" || !strings.HasPrefix(ref, r.fake.URL()+"/attachments/"+id+"/") {
			t.Errorf("option %s = %q, Media[%d].Ref = %s; want the attachment id, and its URL", opt, id, i, ref)
		}
		content := []byte(openAll(t, r.adapter.media, ref))
		if wantContent := [][]byte{photo, clip}[i]; !bytes.Equal(content, wantContent) {
			t.Errorf("OpenMedia(Media[%d].Ref) = %q, want %q", i, content, wantContent)
		}
	}
	if _, err := it.WaitMessage(timeout(t, 10*time.Second), func(m discordtest.Message) bool { return m.Content == "Moment posted" }); err != nil {
		t.Error(err)
	}
}

// openAll opens ref and reads it whole, checking the size declared.
func openAll(t *testing.T, o *MediaOpener, ref string) string {
	t.Helper()
	rc, size, err := o.OpenMedia(timeout(t, 10*time.Second), ref)
	if err != nil {
		t.Fatalf("OpenMedia: %v", err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil || int64(len(b)) != size {
		t.Fatalf("reading the media: %d bytes, %v; want %d", len(b), err, size)
	}
	return string(b)
}

func TestMedia(t *testing.T) {
	t.Parallel()
	cmd := momentCommand(nil)
	res := &discordgo.ApplicationCommandInteractionDataResolved{Attachments: map[string]*discordgo.MessageAttachment{
		"10": {ID: "10", Filename: "a.png", ContentType: "image/png", Size: 3, URL: "https://cdn.discordapp.com/attachments/1/10/a.png?ex=1"},
		"20": {ID: "20", Filename: "b.mp4", ContentType: "video/mp4", Size: 5, URL: "https://cdn.discordapp.com/attachments/1/20/b.mp4?ex=2"},
	}}
	a := bot.Media{Ref: res.Attachments["10"].URL, Name: "a.png", Type: "image/png", Size: 3}
	b := bot.Media{Ref: res.Attachments["20"].URL, Name: "b.mp4", Type: "video/mp4", Size: 5}
	unresolved := bot.Media{Unavailable: "Discord did not say where this file is; please attach it again."}
	tests := []struct {
		name string
		cmd  *bot.Command
		opts map[string]string
		res  *discordgo.ApplicationCommandInteractionDataResolved
		want []bot.Media
	}{
		{"DeclaredOrder", cmd, map[string]string{"media3": "10", "media": "20", "drop": "10"}, res, []bot.Media{b, a}},
		{"Unresolved", cmd, map[string]string{"media": "10", "media2": "30"}, res, []bot.Media{a, unresolved}},
		{"NoResolved", cmd, map[string]string{"media": "10"}, nil, []bot.Media{unresolved}},
		{"NoMedia", cmd, map[string]string{"drop": "1"}, res, nil},
		{"UnknownCommand", nil, map[string]string{"media": "10"}, res, nil},
	}
	for _, tt := range tests {
		if got := media(tt.cmd, tt.opts, tt.res); !cmp.Equal(got, tt.want) {
			t.Errorf("%s: media = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// openerRig returns a fake Discord and the opener of an adapter pointed at
// it, whose client refuses to leave the machine.
func openerRig(t *testing.T) (*discordtest.Server, *MediaOpener, *loopbackOnly) {
	t.Helper()
	fake := discordtest.NewServer(t, discordtest.Options{})
	net := &loopbackOnly{}
	a, err := newAdapter(plainBot(), Options{Token: core.Secret(fake.Token()), APIURL: fake.URL(), HTTPClient: &http.Client{Transport: net}})
	if err != nil {
		t.Fatal(err)
	}
	return fake, a.media, net
}

// wantNoQuery checks that an error of OpenMedia does not quote the signed
// part of the URL.
func wantNoQuery(t *testing.T, err error, ref string) {
	t.Helper()
	u, _ := url.Parse(ref)
	if err != nil && u != nil && u.RawQuery != "" && (strings.Contains(err.Error(), u.RawQuery) || strings.Contains(err.Error(), "hm=")) {
		t.Errorf("error %q quotes the URL's query", err)
	}
}

func TestMediaOpener(t *testing.T) {
	t.Parallel()
	fake, o, net := openerRig(t)
	fake.AddFile("photo.png", "image/png", photo)
	fake.HandleFunc("GET /status/{code}/{file}", func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.PathValue("code"))
		http.Error(w, "status", code)
	})
	fake.HandleFunc("GET /elsewhere/{file}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://cdn.example.com/a.png?ex=1&is=2&hm=secret", http.StatusFound)
	})
	t.Run("Streams", func(t *testing.T) {
		at, _ := fake.Attachment("photo.png")
		if got := openAll(t, o, at.URL); got != string(photo) {
			t.Errorf("OpenMedia = %q, want %q", got, photo)
		}
	})
	t.Run("Refused", func(t *testing.T) {
		for _, ref := range []string{
			"https://cdn.example.com/attachments/1/2/a.png?ex=1&is=2&hm=secret",
			"http://cdn.discordapp.com/attachments/1/2/a.png?ex=1&is=2&hm=secret",
			"https://user:pw@cdn.discordapp.com/attachments/1/2/a.png?hm=secret",
			"file:///etc/passwd",
			"/attachments/1/2/a.png?hm=secret",
			"https://cdn.discordapp.com/a\x7f.png?hm=secret",
		} {
			before := len(net.seen())
			rc, _, err := o.OpenMedia(context.Background(), ref)
			if err == nil {
				rc.Close()
				t.Errorf("OpenMedia(%q) = nil error, want a refusal", ref)
			}
			if errors.Is(err, core.ErrMediaGone) || len(net.seen()) != before {
				t.Errorf("OpenMedia(%q) = %v after a request; want a refusal before any", ref, err)
			}
			wantNoQuery(t, err, ref)
		}
	})
	t.Run("CDN", func(t *testing.T) {
		// The CDN is accepted: the test's transport refuses to leave the
		// machine, and its error must not quote the signature either.
		ref := "https://cdn.discordapp.com/attachments/1/2/a.png?ex=1&is=2&hm=secret"
		_, _, err := o.OpenMedia(context.Background(), ref)
		if err == nil || errors.Is(err, core.ErrMediaGone) || !slices.Contains(net.seen(), "cdn.discordapp.com") {
			t.Errorf("OpenMedia(CDN) = %v, hosts asked %v; want the test transport's refusal", err, net.seen())
		}
		wantNoQuery(t, err, ref)
	})
	t.Run("Redirect", func(t *testing.T) {
		ref := fake.URL() + "/elsewhere/a.png?ex=1&is=2&hm=secret"
		_, _, err := o.OpenMedia(context.Background(), ref)
		if err == nil || errors.Is(err, core.ErrMediaGone) || slices.Contains(net.seen(), "cdn.example.com") {
			t.Errorf("OpenMedia(redirected off the CDN) = %v, hosts asked %v; want a refusal before cdn.example.com", err, net.seen())
		}
		wantNoQuery(t, err, ref)
	})
	t.Run("Gone", func(t *testing.T) {
		at, _ := fake.Attachment("photo.png")
		unsigned, _, _ := strings.Cut(at.URL, "?")
		refs := []string{unsigned, fake.URL() + "/status/403/a.png?ex=1&is=2&hm=secret", fake.URL() + "/status/410/a.png?ex=1&is=2&hm=secret"}
		fake.RemoveFile("photo.png")
		for _, ref := range append(refs, at.URL) {
			_, _, err := o.OpenMedia(context.Background(), ref)
			if !errors.Is(err, core.ErrMediaGone) {
				t.Errorf("OpenMedia(%s) = %v, want core.ErrMediaGone", ref, err)
			}
			wantNoQuery(t, err, ref)
		}
	})
	t.Run("Failing", func(t *testing.T) {
		ref := fake.URL() + "/status/500/a.png?ex=1&is=2&hm=secret"
		_, _, err := o.OpenMedia(context.Background(), ref)
		if err == nil || errors.Is(err, core.ErrMediaGone) {
			t.Errorf("OpenMedia(500) = %v, want an error other than core.ErrMediaGone", err)
		}
		wantNoQuery(t, err, ref)
	})
}

// TestMediaOpener_HeaderTimeout: an attachment whose headers do not come
// in time fails with context.DeadlineExceeded.
func TestMediaOpener_HeaderTimeout(t *testing.T) {
	t.Parallel()
	fake := discordtest.NewServer(t, discordtest.Options{})
	held := make(chan struct{})
	t.Cleanup(func() { close(held) }) // before the fake closes, which waits for its handlers
	fake.HandleFunc("GET /held/{file}", func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-held:
		case <-r.Context().Done():
		}
	})
	origin, _ := url.Parse(fake.URL())
	o := newMediaOpener(origin, nil)
	o.headerTimeout = time.Millisecond
	ref := fake.URL() + "/held/a.png?ex=1&is=2&hm=secret"
	_, _, err := o.OpenMedia(context.Background(), ref)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, core.ErrMediaGone) {
		t.Errorf("OpenMedia(no headers) = %v, want context.DeadlineExceeded", err)
	}
	wantNoQuery(t, err, ref)
}

// largeFile is the size of the large attachment: MOMENT_MAX_BYTES' default.
const largeFile = core.DefaultMomentMaxBytes

// TestMediaOpener_Large: a 100 MiB attachment streams through whole, the
// size declared, the bytes those served.
func TestMediaOpener_Large(t *testing.T) {
	t.Parallel()
	fake, o, _ := openerRig(t)
	fake.AddFileFunc("big.mp4", "video/mp4", largeFile, func() io.ReadSeeker { return discordtest.PseudoRandom(7, largeFile) })
	at, _ := fake.Attachment("big.mp4")
	rc, size, err := o.OpenMedia(timeout(t, time.Minute), at.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got := crc32.NewIEEE()
	n, err := io.Copy(got, rc)
	if err != nil || n != largeFile || size != largeFile {
		t.Fatalf("read %d bytes, %v, size %d; want %d", n, err, size, largeFile)
	}
	want := crc32.NewIEEE()
	_, _ = io.Copy(want, discordtest.PseudoRandom(7, largeFile))
	if got.Sum32() != want.Sum32() {
		t.Errorf("CRC-32 of the bytes read = %08x, want %08x", got.Sum32(), want.Sum32())
	}
}

// BenchmarkMediaOpener streams a 100 MiB attachment from the fake, over
// loopback, to io.Discard:
//
//	go test ./bot/discord -run '^$' -bench MediaOpener -benchmem
func BenchmarkMediaOpener(b *testing.B) {
	fake := discordtest.NewServer(b, discordtest.Options{})
	fake.AddFileFunc("big.mp4", "video/mp4", largeFile, func() io.ReadSeeker { return discordtest.PseudoRandom(7, largeFile) })
	origin, _ := url.Parse(fake.URL())
	o := newMediaOpener(origin, nil)
	at, _ := fake.Attachment("big.mp4")
	b.SetBytes(largeFile)
	for b.Loop() {
		rc, _, err := o.OpenMedia(context.Background(), at.URL)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, rc); err != nil {
			b.Fatal(err)
		}
		rc.Close()
	}
}
