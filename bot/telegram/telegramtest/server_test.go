package telegramtest_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
)

var alice = telegramtest.User{ID: 1001, FirstName: "Alice", Username: "alice"}

func newClient(t *testing.T, tg *telegramtest.Server, token string) (*tgbotapi.BotAPI, error) {
	t.Helper()
	return tgbotapi.NewBotAPIWithAPIEndpoint(token, tg.URL()+"/bot%s/%s")
}

func apiError(t *testing.T, err error) *tgbotapi.Error {
	t.Helper()
	var e *tgbotapi.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not a *tgbotapi.Error", err)
	}
	return e
}

func TestServer_GetMe(t *testing.T) {
	tg := telegramtest.NewServer(telegramtest.Options{Username: "PoapTestBot"})
	defer tg.Close()
	api, err := newClient(t, tg, tg.Token)
	if err != nil {
		t.Fatalf("NewBotAPI() = %v", err)
	}
	if api.Self.UserName != "PoapTestBot" || !api.Self.IsBot {
		t.Errorf("getMe = %+v, want the bot PoapTestBot", api.Self)
	}
	_, err = newClient(t, tg, "1:wrong")
	if e := apiError(t, err); e.Code != http.StatusUnauthorized || e.Message != "Unauthorized" {
		t.Errorf("getMe with a wrong token = %d %q, want 401 Unauthorized", e.Code, e.Message)
	}
	_, err = api.MakeRequest("frobnicate", nil)
	if e := apiError(t, err); e.Code != http.StatusNotFound || e.Message != "Not Found: method not found" {
		t.Errorf("unknown method = %d %q, want 404 Not Found: method not found", e.Code, e.Message)
	}
}

func TestServer_GetUpdates(t *testing.T) {
	tg := telegramtest.NewServer(telegramtest.Options{})
	defer tg.Close()
	api, err := newClient(t, tg, tg.Token)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		// Push once the long poll has reached the fake.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := tg.WaitCall(ctx, "getUpdates"); err == nil {
			tg.SendText(telegramtest.PrivateChat(alice), alice, "/help")
		}
	}()
	cfg := tgbotapi.UpdateConfig{Timeout: 5, AllowedUpdates: []string{"message"}}
	updates, err := api.GetUpdates(cfg) // blocks until the push
	if err != nil || len(updates) != 1 {
		t.Fatalf("GetUpdates() = %v, %v; want one update", updates, err)
	}
	m := updates[0].Message
	if !m.IsCommand() || m.Command() != "help" || m.From.UserName != "alice" || !m.Chat.IsPrivate() {
		t.Errorf("update = %+v, want alice's /help in private", m)
	}
	cfg.Offset, cfg.Timeout = updates[0].UpdateID+1, 0
	if again, err := api.GetUpdates(cfg); err != nil || len(again) != 0 {
		t.Errorf("GetUpdates(past offset) = %v, %v; want none", again, err)
	}
	if n := tg.PendingUpdates(); n != 0 {
		t.Errorf("PendingUpdates() = %d after the offset confirmed it, want 0", n)
	}
}

func TestServer_Send(t *testing.T) {
	tg := telegramtest.NewServer(telegramtest.Options{})
	defer tg.Close()
	api, err := newClient(t, tg, tg.Token)
	if err != nil {
		t.Fatal(err)
	}
	msg := tgbotapi.NewMessage(alice.ID, "<b>hi</b>")
	msg.ParseMode = tgbotapi.ModeHTML
	msg.ReplyMarkup = tgbotapi.NewInlineKeyboardMarkup(tgbotapi.NewInlineKeyboardRow(tgbotapi.NewInlineKeyboardButtonData("Next", "cmd:next")))
	if _, err := api.Send(msg); err != nil {
		t.Fatalf("Send() = %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	got, err := tg.WaitMessage(ctx, telegramtest.To(alice.ID))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]telegramtest.Button{{{Text: "Next", CallbackData: "cmd:next"}}}
	if got.Text != "<b>hi</b>" || got.ParseMode != "HTML" || !cmp.Equal(got.Buttons, want) {
		t.Errorf("sent %v %v, want the HTML message with its button", got, got.Buttons)
	}

	bad := tgbotapi.NewMessage(alice.ID, "<b>unclosed")
	bad.ParseMode = tgbotapi.ModeHTML
	_, err = api.Send(bad)
	if e := apiError(t, err); e.Code != http.StatusBadRequest {
		t.Errorf("Send(bad HTML) = %v, want 400 can't parse entities", e)
	}

	tg.NeverStarted(2002)
	_, err = api.Send(tgbotapi.NewMessage(2002, "hello"))
	if e := apiError(t, err); e.Code != http.StatusForbidden || e.Message != "Forbidden: bot can't initiate conversation with a user" {
		t.Errorf("Send(never started) = %d %q, want 403", e.Code, e.Message)
	}

	tg.Fail("sendMessage", telegramtest.Failure{Code: 429, Description: "Too Many Requests: retry after 3", RetryAfter: 3})
	_, err = api.Send(tgbotapi.NewMessage(alice.ID, "x"))
	if e := apiError(t, err); e.Code != 429 || e.RetryAfter != 3 {
		t.Errorf("Send(after Fail) = %+v, want 429 with retry_after 3", e)
	}
}

func TestServer_ChatMember(t *testing.T) {
	tg := telegramtest.NewServer(telegramtest.Options{})
	defer tg.Close()
	api, err := newClient(t, tg, tg.Token)
	if err != nil {
		t.Fatal(err)
	}
	tg.SetAdmins(-100, alice.ID)
	for id, want := range map[int64]string{alice.ID: "administrator", 2002: "member"} {
		m, err := api.GetChatMember(tgbotapi.GetChatMemberConfig{ChatConfigWithUser: tgbotapi.ChatConfigWithUser{ChatID: -100, UserID: id}})
		if err != nil || m.Status != want {
			t.Errorf("GetChatMember(%d) = %q, %v; want %q", id, m.Status, err, want)
		}
	}
}

func TestServer_CloseUnblocksLongPoll(t *testing.T) {
	tg := telegramtest.NewServer(telegramtest.Options{})
	api, err := newClient(t, tg, tg.Token)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		_, _ = api.GetUpdates(tgbotapi.UpdateConfig{Timeout: 30})
		close(done)
	}()
	if _, err := tg.WaitCall(context.Background(), "getUpdates"); err != nil {
		t.Fatal(err)
	}
	tg.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close left the long poll hanging")
	}
}
