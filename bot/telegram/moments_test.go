package telegram

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
)

func TestAdapter_CaptionCommand(t *testing.T) {
	tests := []struct {
		name    string
		caption string
		media   telegramtest.Media
		want    bot.Media
	}{
		{"Photo", "/moment 42 a sunny day", telegramtest.PhotoMedia("ph1", 4000), bot.Media{Ref: "ph1", Size: 4000}},
		{"Video", "/moment@TestBot 42 a sunny day", telegramtest.VideoMedia("v1", "day.mp4", "video/mp4", 30<<20),
			bot.Media{Ref: "v1", Name: "day.mp4", Type: "video/mp4", Size: 30 << 20}},
		{"Animation", "/moment 42 a sunny day", telegramtest.AnimationMedia("g1", "day.gif", "image/gif", 900),
			bot.Media{Ref: "g1", Name: "day.gif", Type: "image/gif", Size: 900}},
		{"Document", "/moment 42 a sunny day", telegramtest.DocumentMedia("d1", "day.heic", "image/heic", 0),
			bot.Media{Ref: "d1", Name: "day.heic", Type: "image/heic"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, Options{})
			reqs := e.recordMoments()
			e.run(t)
			id := e.tg.SendMedia(group, alice, tt.caption, tt.media)
			req := nextRequest(t, reqs)
			if diff := cmp.Diff([]bot.Media{tt.want}, req.Media); diff != "" {
				t.Errorf("Media (-want +got):\n%s", diff)
			}
			if want := fmt.Sprintf("telegram:%d:%d", group.ID, id); req.Key != want {
				t.Errorf("Key = %q, want %q", req.Key, want)
			}
			if want := map[string]string{"drop": "42", "description": "a sunny day"}; !cmp.Equal(req.Options, want) {
				t.Errorf("Options = %v, want %v", req.Options, want)
			}
			if req.Progress == nil {
				t.Error("Progress is nil for a long command")
			}
			// No progress was shown: the reply answers the command in the group.
			m := e.waitMessage(t, telegramtest.Contains("Moment posted"))
			if m.Method != "sendMessage" || m.ChatID != group.ID || m.ReplyTo != id {
				t.Errorf("reply = %s in reply to %d, want a message in the group in reply to %d", m, m.ReplyTo, id)
			}
		})
	}
}

func TestAdapter_CaptionOtherCommand(t *testing.T) {
	// A caption that is a command taking no files runs as the same text
	// would; the file is ignored.
	e := newEnv(t, Options{})
	reqs := e.recordMoments()
	e.run(t)
	e.tg.SendMedia(telegramtest.PrivateChat(alice), alice, "/help", telegramtest.PhotoMedia("ph1", 10))
	m := e.waitMessage(t, telegramtest.To(alice.ID))
	if !strings.Contains(m.Text, "brings POAPs") {
		t.Errorf("reply to a /help caption = %q, want the help", m.Text)
	}
	e.tg.SendMedia(telegramtest.PrivateChat(alice), alice, "", telegramtest.PhotoMedia("ph2", 10))
	e.stopped(t)
	if got := sentTo(e.tg.Messages(), alice.ID); len(got) != 1 {
		t.Errorf("sent to alice: %v, want the help alone (a photo without caption gets no answer)", got)
	}
	noMoreRequests(t, reqs)
}

func TestAdapter_Album(t *testing.T) {
	e := newEnv(t, Options{AlbumWait: 300 * time.Millisecond})
	reqs := e.recordMoments()
	// Pushed before Run, the items come in one getUpdates answer.
	groupID, ids := e.tg.SendAlbum(group, alice, "/moment 42 two views",
		telegramtest.PhotoMedia("a1", 100), telegramtest.VideoMedia("a2", "b.mp4", "video/mp4", 200))
	e.tg.SendAlbum(group, alice, "", telegramtest.PhotoMedia("n1", 1), telegramtest.PhotoMedia("n2", 1))
	e.run(t)
	req := nextRequest(t, reqs)
	want := []bot.Media{{Ref: "a1", Size: 100}, {Ref: "a2", Name: "b.mp4", Type: "video/mp4", Size: 200}}
	if diff := cmp.Diff(want, req.Media); diff != "" {
		t.Errorf("Media (-want +got):\n%s", diff)
	}
	if want := fmt.Sprintf("telegram:%d:album:%s", group.ID, groupID); req.Key != want {
		t.Errorf("Key = %q, want %q", req.Key, want)
	}
	m := e.waitMessage(t, telegramtest.Contains("Moment posted"))
	if m.ReplyTo != ids[0] {
		t.Errorf("reply answers message %d, want the captioned item %d", m.ReplyTo, ids[0])
	}
	e.stopped(t)
	noMoreRequests(t, reqs)
	if got := sentTo(e.tg.Messages(), group.ID); len(got) != 1 {
		t.Errorf("sent to the group: %v, want one reply (an album without a command gets none)", got)
	}
}

func TestAdapter_ReplyToMedia(t *testing.T) {
	e := newEnv(t, Options{AlbumWait: 50 * time.Millisecond})
	reqs := e.recordMoments()
	e.run(t)
	photo := e.tg.SendMedia(group, alice, "", telegramtest.PhotoMedia("r1", 10))
	_, items := e.tg.SendAlbum(group, alice, "", telegramtest.PhotoMedia("i1", 1), telegramtest.PhotoMedia("i2", 2))

	id := e.tg.ReplyText(group, alice, photo, "/moment 42 from before")
	req := nextRequest(t, reqs)
	if diff := cmp.Diff([]bot.Media{{Ref: "r1", Size: 10}}, req.Media); diff != "" {
		t.Errorf("Media of a reply to a photo (-want +got):\n%s", diff)
	}
	if want := fmt.Sprintf("telegram:%d:%d", group.ID, id); req.Key != want {
		t.Errorf("Key = %q, want %q", req.Key, want)
	}
	e.tg.ReplyText(group, alice, items[1], "/moment 42 the second")
	req = nextRequest(t, reqs)
	if diff := cmp.Diff([]bot.Media{{Ref: "i2", Size: 2}}, req.Media); diff != "" {
		t.Errorf("Media of a reply to an album item (-want +got):\n%s", diff)
	}
	e.tg.ReplyText(group, bob, photo, "/moment 42 alice's photo")
	req = nextRequest(t, reqs)
	if len(req.Media) != 1 || req.Media[0].Unavailable != notYours {
		t.Errorf("Media of a reply to another member's photo = %+v, want it refused", req.Media)
	}
	e.tg.SendText(group, alice, "/moment 42 nothing attached")
	if req = nextRequest(t, reqs); len(req.Media) != 0 {
		t.Errorf("Media of a plain text = %v, want none", req.Media)
	}
}

func TestAdapter_MessageMedia(t *testing.T) {
	big := &tgbotapi.Message{Video: &tgbotapi.Video{FileID: "v", FileSize: CloudDownloadLimit + 1}}
	small := &tgbotapi.Message{Video: &tgbotapi.Video{FileID: "v", FileSize: CloudDownloadLimit}}
	tests := []struct {
		name, api string
		msg       *tgbotapi.Message
		want      string
	}{
		{"CloudOver", DefaultAPIURL, big, TooBigForBots},
		{"CloudAtLimit", DefaultAPIURL, small, ""},
		{"SelfHosted", "http://127.0.0.1:8081", big, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &Adapter{opts: Options{APIURL: tt.api}}
			md, ok := a.messageMedia(tt.msg)
			if !ok || md.Unavailable != tt.want {
				t.Errorf("messageMedia() = %+v, %v; want Unavailable %q", md, ok, tt.want)
			}
		})
	}
	t.Run("LargestPhoto", func(t *testing.T) {
		m := &tgbotapi.Message{Photo: []tgbotapi.PhotoSize{
			{FileID: "mid", Width: 320, Height: 320}, {FileID: "big", Width: 1280, Height: 960, FileSize: 9}, {FileID: "thumb", Width: 90, Height: 90},
		}}
		if md, _ := (&Adapter{}).messageMedia(m); md.Ref != "big" || md.Size != 9 || md.Name != "" || md.Type != "" {
			t.Errorf("messageMedia(photo) = %+v, want the largest size, without name or type", md)
		}
	})
	t.Run("Text", func(t *testing.T) {
		if md, ok := (&Adapter{}).messageMedia(&tgbotapi.Message{Text: "hi"}); ok {
			t.Errorf("messageMedia(text) = %+v, true; want none", md)
		}
	})
}
