package telegramtest_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
)

func TestServer_Files(t *testing.T) {
	tg := telegramtest.NewServer(telegramtest.Options{})
	defer tg.Close()
	api, err := newClient(t, tg, tg.Token)
	if err != nil {
		t.Fatal(err)
	}
	tg.AddFile(telegramtest.BytesFile("small", []byte("hello moments")))
	tg.AddFile(telegramtest.GeneratedFile("big", 30<<20, 7))

	t.Run("OK", func(t *testing.T) {
		f, err := api.GetFile(tgbotapi.FileConfig{FileID: "small"})
		if err != nil || f.FilePath != "files/small" || f.FileSize != 13 {
			t.Fatalf("GetFile(small) = %+v, %v, want files/small of 13 bytes", f, err)
		}
		body := download(t, tg.URL()+"/file/bot"+tg.Token+"/"+f.FilePath, http.StatusOK)
		if string(body) != "hello moments" {
			t.Errorf("download = %q, want the file's bytes", body)
		}
		if got := tg.Downloads(); len(got) != 1 || got[0] != "files/small" {
			t.Errorf("Downloads() = %v, want [files/small]", got)
		}
	})
	t.Run("WrongToken", func(t *testing.T) {
		download(t, tg.URL()+"/file/bot999:other/files/small", http.StatusNotFound)
	})
	t.Run("Gone", func(t *testing.T) {
		tg.AddFile(telegramtest.BytesFile("gone", []byte("x")))
		tg.RemoveFile("gone")
		_, err := api.GetFile(tgbotapi.FileConfig{FileID: "gone"})
		if e := apiError(t, err); e.Code != http.StatusBadRequest || e.Message != "Bad Request: wrong file_id or the file is temporarily unavailable" {
			t.Errorf("GetFile(gone) = %v, want 400 wrong file_id", err)
		}
		download(t, tg.URL()+"/file/bot"+tg.Token+"/files/gone", http.StatusNotFound)
	})
	t.Run("CloudLimit", func(t *testing.T) {
		tg.LimitDownloads(telegramtest.CloudDownloadLimit)
		defer tg.LimitDownloads(0)
		_, err := api.GetFile(tgbotapi.FileConfig{FileID: "big"})
		if e := apiError(t, err); e.Code != http.StatusBadRequest || e.Message != "Bad Request: file is too big" {
			t.Errorf("GetFile(big) = %v, want 400 file is too big", err)
		}
		if _, err := api.GetFile(tgbotapi.FileConfig{FileID: "small"}); err != nil {
			t.Errorf("GetFile(small) = %v, want it under the limit", err)
		}
	})
	t.Run("Generated", func(t *testing.T) {
		body := download(t, tg.URL()+"/file/bot"+tg.Token+"/files/big", http.StatusOK)
		want, _ := io.ReadAll(telegramtest.NewRandom(30<<20, 7))
		if !bytes.Equal(body, want) {
			t.Errorf("download of a generated file differs from NewRandom(size, seed)")
		}
	})
}

func download(t *testing.T, url string, status int) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != status {
		t.Fatalf("GET %s = %d, want %d", url, resp.StatusCode, status)
	}
	return body
}

func TestServer_MemberMedia(t *testing.T) {
	tg := telegramtest.NewServer(telegramtest.Options{})
	defer tg.Close()
	api, err := newClient(t, tg, tg.Token)
	if err != nil {
		t.Fatal(err)
	}
	chat := telegramtest.PrivateChat(alice)
	photo := tg.SendMedia(chat, alice, "/moment 42 hi", telegramtest.PhotoMedia("p1", 4000))
	group, ids := tg.SendAlbum(chat, alice, "/moment 42 two", telegramtest.VideoMedia("v1", "a.mp4", "video/mp4", 9), telegramtest.AnimationMedia("g1", "b.gif", "image/gif", 7))
	reply := tg.ReplyText(chat, alice, photo, "/moment 42 again")
	updates, err := api.GetUpdates(tgbotapi.UpdateConfig{})
	if err != nil || len(updates) != 4 {
		t.Fatalf("GetUpdates() = %d updates, %v; want 4", len(updates), err)
	}
	m := updates[0].Message
	if m.MessageID != photo || len(m.Photo) != 3 || m.Photo[2].FileID != "p1" || m.Caption != "/moment 42 hi" || len(m.CaptionEntities) != 1 || m.CaptionEntities[0].Type != "bot_command" {
		t.Errorf("photo message = %+v, want #%d with p1 as its largest size and a command caption", m, photo)
	}
	v, g := updates[1].Message, updates[2].Message
	if v.MediaGroupID != group || g.MediaGroupID != group || v.Video == nil || v.Video.MimeType != "video/mp4" || g.Animation == nil || g.Document == nil || g.Caption != "" {
		t.Errorf("album = %+v, %+v; want a video and an animation of group %s, caption on the first", v, g, group)
	}
	if ids[0] != v.MessageID || ids[1] != g.MessageID {
		t.Errorf("SendAlbum ids = %v, want %d, %d", ids, v.MessageID, g.MessageID)
	}
	r := updates[3].Message
	if r.MessageID != reply || r.ReplyToMessage == nil || r.ReplyToMessage.MessageID != photo || len(r.ReplyToMessage.Photo) != 3 {
		t.Errorf("reply = %+v, want it to carry photo message #%d", r, photo)
	}
}

func TestServer_WaitEdits(t *testing.T) {
	tg := telegramtest.NewServer(telegramtest.Options{})
	defer tg.Close()
	api, err := newClient(t, tg, tg.Token)
	if err != nil {
		t.Fatal(err)
	}
	sent, err := api.Send(tgbotapi.NewMessage(alice.ID, "one"))
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"two", "three"} {
		if _, err := api.Send(tgbotapi.NewEditMessageText(alice.ID, sent.MessageID, text)); err != nil {
			t.Fatal(err)
		}
	}
	_, err = api.Send(tgbotapi.NewEditMessageText(alice.ID, sent.MessageID, "three"))
	if e := apiError(t, err); e.Code != http.StatusBadRequest {
		t.Errorf("an edit to the same text = %v, want 400 message is not modified", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	edits, err := tg.WaitEdits(ctx, alice.ID, sent.MessageID, 2)
	if err != nil || len(edits) != 2 || edits[0].Text != "two" || edits[1].Text != "three" {
		t.Errorf("WaitEdits() = %v, %v; want two then three", edits, err)
	}
}
