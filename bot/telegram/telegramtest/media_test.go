package telegramtest_test

import (
	"net/http"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
)

func TestServer_MediaGroup(t *testing.T) {
	photo := func(url, caption string) any {
		p := tgbotapi.NewInputMediaPhoto(tgbotapi.FileURL(url))
		p.Caption = caption
		return p
	}
	t.Run("OK", func(t *testing.T) {
		tg := telegramtest.NewServer(telegramtest.Options{})
		defer tg.Close()
		api, err := newClient(t, tg, tg.Token)
		if err != nil {
			t.Fatal(err)
		}
		got, err := api.SendMediaGroup(tgbotapi.NewMediaGroup(alice.ID, []any{photo("https://img.test/1.png", "One"), photo("https://img.test/2.png", "Two")}))
		if err != nil {
			t.Fatalf("SendMediaGroup() = %v", err)
		}
		if len(got) != 2 || got[0].MediaGroupID == "" || got[0].MediaGroupID != got[1].MediaGroupID || got[1].Caption != "Two" {
			t.Errorf("SendMediaGroup() = %+v, want two messages of one group", got)
		}
		var sent [][3]string
		for _, m := range tg.Messages() {
			sent = append(sent, [3]string{m.Method, m.Photo, m.Text})
			if m.ChatID != alice.ID || m.MediaGroupID != got[0].MediaGroupID {
				t.Errorf("recorded %v in group %q, want it to alice in group %q", m, m.MediaGroupID, got[0].MediaGroupID)
			}
		}
		want := [][3]string{{"sendMediaGroup", "https://img.test/1.png", "One"}, {"sendMediaGroup", "https://img.test/2.png", "Two"}}
		if diff := cmp.Diff(want, sent); diff != "" {
			t.Errorf("recorded (-want +got):\n%s", diff)
		}
	})
	tests := []struct {
		name   string
		refuse string
		send   func(*tgbotapi.BotAPI) error
		want   string
	}{
		{"OnePhoto", "", func(api *tgbotapi.BotAPI) error {
			_, err := api.SendMediaGroup(tgbotapi.NewMediaGroup(alice.ID, []any{photo("https://img.test/1.png", "")}))
			return err
		}, "Bad Request: media group must include 2-10 items"},
		{"RefusedInGroup", "https://img.test/2.png", func(api *tgbotapi.BotAPI) error {
			_, err := api.SendMediaGroup(tgbotapi.NewMediaGroup(alice.ID, []any{photo("https://img.test/1.png", ""), photo("https://img.test/2.png", "")}))
			return err
		}, "Bad Request: failed to get HTTP URL content"},
		{"RefusedPhoto", "https://img.test/1.png", func(api *tgbotapi.BotAPI) error {
			_, err := api.Send(tgbotapi.NewPhoto(alice.ID, tgbotapi.FileURL("https://img.test/1.png")))
			return err
		}, "Bad Request: failed to get HTTP URL content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg := telegramtest.NewServer(telegramtest.Options{})
			defer tg.Close()
			api, err := newClient(t, tg, tg.Token)
			if err != nil {
				t.Fatal(err)
			}
			tg.RefuseURL(tt.refuse)
			e := apiError(t, tt.send(api))
			if e.Code != http.StatusBadRequest || e.Message != tt.want {
				t.Errorf("answer = %d %q, want 400 %q", e.Code, e.Message, tt.want)
			}
			if got := tg.Messages(); len(got) != 0 {
				t.Errorf("recorded %v, want nothing", got)
			}
		})
	}
}
