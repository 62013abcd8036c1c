package telegram

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core"
)

func TestFiles_OpenMedia(t *testing.T) {
	e := newEnv(t, Options{})
	files := e.a.MediaOpener()
	noToken := func(t *testing.T, err error) {
		t.Helper()
		if err != nil && strings.Contains(err.Error(), e.tg.Token) {
			t.Errorf("error %q carries the token", err)
		}
	}

	t.Run("OK", func(t *testing.T) {
		data := []byte("\x89PNG\r\n\x1a\n a small picture")
		e.tg.AddFile(telegramtest.BytesFile("small", data))
		r, size, err := files.OpenMedia(t.Context(), "small")
		if err != nil {
			t.Fatalf("OpenMedia(small) = %v", err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || string(got) != string(data) || size != int64(len(data)) {
			t.Errorf("OpenMedia(small) read %q (%v), size %d; want %q, %d", got, err, size, data, len(data))
		}
		// The fake is TELEGRAM_API_URL: the download went there.
		if diff := cmp.Diff([]string{"files/small"}, e.tg.Downloads()); diff != "" {
			t.Errorf("downloads (-want +got):\n%s", diff)
		}
	})
	t.Run("ErrMediaGone", func(t *testing.T) {
		_, _, err := files.OpenMedia(t.Context(), "never-sent")
		if !errors.Is(err, core.ErrMediaGone) {
			t.Errorf("OpenMedia(unknown) = %v, want core.ErrMediaGone", err)
		}
		noToken(t, err)
	})
	t.Run("ErrFileTooBig", func(t *testing.T) {
		e.tg.AddFile(telegramtest.GeneratedFile("big", telegramtest.CloudDownloadLimit+1, 1))
		e.tg.LimitDownloads(telegramtest.CloudDownloadLimit)
		defer e.tg.LimitDownloads(0)
		_, _, err := files.OpenMedia(t.Context(), "big")
		if !errors.Is(err, ErrFileTooBig) || errors.Is(err, core.ErrMediaGone) {
			t.Errorf("OpenMedia(over the cloud limit) = %v, want ErrFileTooBig", err)
		}
		noToken(t, err)
	})
	t.Run("Unreachable", func(t *testing.T) {
		// getFile answers; the download address, built from
		// TELEGRAM_API_URL, does not.
		e.tg.AddFile(telegramtest.BytesFile("lost", []byte("x")))
		dead := httptest.NewServer(nil)
		dead.Close()
		a, err := New(Options{Token: core.Secret(e.tg.Token), APIURL: e.tg.URL()})
		if err != nil {
			t.Fatal(err)
		}
		a.opts.APIURL = dead.URL
		_, _, err = a.MediaOpener().OpenMedia(t.Context(), "lost")
		if err == nil {
			t.Fatal("OpenMedia(unreachable) = nil, want an error")
		}
		noToken(t, err)
	})
	t.Run("RedirectedAway", func(t *testing.T) {
		var hits atomic.Int32
		away := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			io.WriteString(w, "not Telegram's")
		}))
		defer away.Close()
		e.tg.AddFile(telegramtest.File{ID: "moved", Size: 1, Redirect: away.URL + "/elsewhere.png"})
		r, _, err := files.OpenMedia(t.Context(), "moved")
		if err == nil {
			r.Close()
			t.Fatal("OpenMedia(redirected to another host) = nil error, want a refusal")
		}
		if n := hits.Load(); n != 0 {
			t.Errorf("the other host got %d requests, want none", n)
		}
		noToken(t, err)
	})
	t.Run("RedirectedOnHost", func(t *testing.T) {
		data := []byte("the same picture, elsewhere on the Bot API")
		e.tg.AddFile(telegramtest.BytesFile("target", data))
		e.tg.AddFile(telegramtest.File{ID: "alias", Size: 1, Redirect: e.tg.URL() + "/file/bot" + e.tg.Token + "/files/target"})
		r, _, err := files.OpenMedia(t.Context(), "alias")
		if err != nil {
			t.Fatalf("OpenMedia(redirected on the Bot API host) = %v", err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || string(got) != string(data) {
			t.Errorf("OpenMedia(redirected on the Bot API host) read %q (%v), want %q", got, err, data)
		}
	})
	t.Run("100MB", func(t *testing.T) {
		const size = 100 << 20
		e.tg.AddFile(telegramtest.GeneratedFile("video", size, 2))
		r, got, err := files.OpenMedia(t.Context(), "video")
		if err != nil {
			t.Fatalf("OpenMedia(100 MB) = %v", err)
		}
		defer r.Close()
		n, err := io.Copy(io.Discard, r)
		if err != nil || n != size || got != size {
			t.Errorf("OpenMedia(100 MB) read %d bytes (%v), size %d; want %d", n, err, got, size)
		}
	})
}

// BenchmarkFiles_OpenMedia streams a 100 MB file from the fake through
// OpenMedia: go test ./bot/telegram -run '^$' -bench OpenMedia -benchmem.
// Memory per operation stays far below the file's size: nothing is
// buffered whole.
func BenchmarkFiles_OpenMedia(b *testing.B) {
	const size = 100 << 20
	tg := telegramtest.NewServer(telegramtest.Options{})
	defer tg.Close()
	tg.AddFile(telegramtest.GeneratedFile("video", size, 3))
	a, err := New(Options{Token: core.Secret(tg.Token), APIURL: tg.URL()})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	for b.Loop() {
		r, _, err := a.MediaOpener().OpenMedia(b.Context(), "video")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, r); err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}
