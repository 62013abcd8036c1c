package telegram

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core/coretest"
)

// TestAdapter_Pictures checks how /poaps shows the POAPs' images: an
// album (or a single photo) in the private chat, before the text and its
// paging buttons, and the text even when Telegram cannot fetch an image.
func TestAdapter_Pictures(t *testing.T) {
	isText := telegramtest.All(telegramtest.To(alice.ID), telegramtest.Method("sendMessage"))

	t.Run("Pages", func(t *testing.T) {
		e := envWithPOAPs(t, 12)
		e.run(t)
		e.tg.SendText(telegramtest.PrivateChat(alice), alice, "/poaps "+demo)
		page1 := e.waitMessage(t, isText)
		if len(page1.Buttons) != 1 || page1.Buttons[0][0].Text != "Next" || !actionData.MatchString(page1.Buttons[0][0].CallbackData) {
			t.Fatalf("page 1 buttons = %+v, want one Next button carrying an action's id", page1.Buttons)
		}
		if diff := cmp.Diff(wantPhotos(12, 3), album(t, e.tg.Messages(), 0, page1.MessageID)); diff != "" {
			t.Errorf("page 1 album (-want +got):\n%s", diff)
		}

		if _, err := e.tg.PressButton(page1, alice, "Next"); err != nil {
			t.Fatal(err)
		}
		page2 := e.waitMessage(t, telegramtest.All(isText, telegramtest.Contains("page 2 of 2")))
		if diff := cmp.Diff(wantPhotos(2, 1), album(t, e.tg.Messages(), page1.MessageID, page2.MessageID)); diff != "" {
			t.Errorf("page 2 album (-want +got):\n%s", diff)
		}
		e.stopped(t)
		if n := len(e.tg.Calls("sendMediaGroup")); n != 2 {
			t.Errorf("sendMediaGroup called %d times, want 2 (one per page)", n)
		}
	})
	t.Run("OnePOAP", func(t *testing.T) {
		e := envWithPOAPs(t, 1)
		e.run(t)
		e.tg.SendText(telegramtest.PrivateChat(alice), alice, "/poaps "+demo)
		text := e.waitMessage(t, isText)
		ms := e.stopped(t)
		if len(ms) != 2 || ms[0].Method != "sendPhoto" || ms[0].ChatID != alice.ID || ms[1].MessageID != text.MessageID {
			t.Fatalf("sent %v, want a photo, then the text, in the private chat", ms)
		}
		if got, want := [2]string{ms[0].Photo, ms[0].Text}, wantPhotos(1, 1)[0]; got != want {
			t.Errorf("photo = %q, want %q", got, want)
		}
	})
	for _, n := range []int{1, 3} {
		t.Run(fmt.Sprintf("Refused%d", n), func(t *testing.T) {
			e := envWithPOAPs(t, n)
			e.tg.RefuseURL("https://img.test/1.png?size=small")
			e.run(t)
			e.tg.SendText(telegramtest.PrivateChat(alice), alice, "/poaps "+demo)
			text := e.waitMessage(t, isText)
			if !strings.Contains(text.Text, "Drop 01</b>") || !strings.Contains(text.Text, "https://img.test/1.png?size=small") {
				t.Errorf("text = %q, want the POAPs with their image links", text.Text)
			}
			if ms := e.stopped(t); len(ms) != 1 {
				t.Errorf("sent %v, want only the text", ms)
			}
			if !strings.Contains(e.logs.String(), "pictures not sent") {
				t.Errorf("logs = %s, want the refused pictures logged", e.logs)
			}
		})
	}
	t.Run("FromGroup", func(t *testing.T) {
		e := envWithPOAPs(t, 12)
		e.run(t)
		e.tg.SendText(group, alice, "/poaps "+demo)
		page1 := e.waitMessage(t, isText)
		ms := e.stopped(t)
		if got := sentTo(ms, group.ID); len(got) != 0 {
			t.Errorf("sent to the group: %v, want nothing", got)
		}
		if diff := cmp.Diff(wantPhotos(12, 3), album(t, ms, 0, page1.MessageID)); diff != "" {
			t.Errorf("album in the private chat (-want +got):\n%s", diff)
		}
	})
	t.Run("LongCaptions", func(t *testing.T) {
		e := newEnv(t, Options{})
		long := strings.Repeat("A very long drop name. ", 100)
		o := origin{chat: &tgbotapi.Chat{ID: alice.ID, Type: "private"}, from: &tgbotapi.User{ID: alice.ID}}
		e.a.send(waitCtx(t), o, bot.Reply{Text: "Two", Pictures: []bot.Picture{{URL: "https://img.test/1.png", Caption: long}, {URL: "https://img.test/2.png", Caption: long}}})
		got := album(t, e.tg.Messages(), 0, 1<<30)
		if len(got) != 2 || utf16Len(got[0][1]) != maxCaption || !strings.HasSuffix(got[0][1], "…") {
			t.Errorf("album = %q, want two photos with captions cut to %d", got, maxCaption)
		}
	})
}

func TestCutCaption(t *testing.T) {
	tests := []struct {
		in      string
		wantLen int
		cut     bool
	}{
		{"Drop 01 (#1)", 12, false},
		{strings.Repeat("a", maxCaption), maxCaption, false},
		{strings.Repeat("a", maxCaption+1), maxCaption, true},
		// Two UTF-16 code units each: the cut never halves one.
		{strings.Repeat("😀", 600), maxCaption - 1, true},
	}
	for _, tt := range tests {
		got := cutCaption(tt.in)
		if utf16Len(got) != tt.wantLen || !utf8.ValidString(got) || strings.HasSuffix(got, "…") != tt.cut {
			t.Errorf("cutCaption(%d runes) = %d UTF-16 units (cut %v), want %d (cut %v)",
				utf8.RuneCountInString(tt.in), utf16Len(got), strings.HasSuffix(got, "…"), tt.wantLen, tt.cut)
		}
	}
}

// envWithPOAPs is newEnv with a demo wallet holding n POAPs.
func envWithPOAPs(t *testing.T, n int) *env {
	t.Helper()
	return newEnvWith(t, coretest.Deps{Scanner: stubIssuer{holdings: holdings(n)}}, Options{})
}

// wantPhotos are the photos and captions of the POAPs from drop first
// down to drop last, as holdings makes them, newest first.
func wantPhotos(first, last int) [][2]string {
	var out [][2]string
	for i := first; i >= last; i-- {
		out = append(out, [2]string{fmt.Sprintf("https://img.test/%d.png?size=small", i), fmt.Sprintf("Drop %02d (#%d)", i, i)})
	}
	return out
}

// album returns the photos and captions of the media group sent between
// the messages after and before (ids), checking that they are one album.
func album(t *testing.T, ms []telegramtest.Message, after, before int) [][2]string {
	t.Helper()
	var out [][2]string
	groups := map[string]bool{}
	for _, m := range ms {
		if m.Method == "sendMediaGroup" && m.MessageID > after && m.MessageID < before {
			out = append(out, [2]string{m.Photo, m.Text})
			groups[m.MediaGroupID] = true
		}
	}
	if len(groups) > 1 {
		t.Errorf("photos in %d media groups, want one", len(groups))
	}
	return out
}
