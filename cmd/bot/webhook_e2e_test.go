package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot/telegram"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/storage/storagetest"
)

// TestMain_TelegramWebhook_Redelivery: Telegram delivers the same update
// twice, to one replica or to two sharing PostgreSQL: it is handled once.
func TestMain_TelegramWebhook_Redelivery(t *testing.T) {
	t.Parallel()
	for name, url := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tg, bots := webhookReplicas(t, url, 1)
			deliverTwice(t, tg, bots, bots[0], bots[0], 2001)
		})
	}
	t.Run("postgres/replicas", func(t *testing.T) {
		t.Parallel()
		base := os.Getenv(storagetest.EnvURL)
		if base == "" {
			t.Skip(storagetest.EnvURL + " is not set (CI sets it)")
		}
		tg, bots := webhookReplicas(t, storagetest.PostgresURL(t, base), 2)
		deliverTwice(t, tg, bots, bots[0], bots[1], 2002)
	})
}

const hookSecret = "webhook-secret_1"

// webhookReplicas starts n bots in webhook mode on one database and one
// fake Telegram, and returns the fake and the bots.
func webhookReplicas(t *testing.T, databaseURL string, n int) (*telegramtest.Server, []*session) {
	t.Helper()
	tg := telegramtest.NewServer(telegramtest.Options{})
	t.Cleanup(tg.Close)
	var bots []*session
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := range n {
		bots = append(bots, startMainWith(t, map[string]string{
			"DATABASE_URL": databaseURL, "TELEGRAM_TOKEN": tg.Token, "TELEGRAM_API_URL": tg.URL(),
			"TELEGRAM_WEBHOOK_URL": "https://bot.example.org/telegram/hook", "TELEGRAM_WEBHOOK_SECRET": hookSecret,
		}, false))
		// The adapter takes deliveries before it sets its webhook, as
		// Telegram delivers only after: wait for that, as Telegram does.
		if _, err := tg.WaitCalls(ctx, "setWebhook", i+1); err != nil {
			t.Fatal(err)
		}
	}
	return tg, bots
}

// deliverTwice posts one /help update of chat to the bot first, then again
// to second, stops every bot (which waits for the updates in hand) and
// checks the chat got one answer.
func deliverTwice(t *testing.T, tg *telegramtest.Server, bots []*session, firstBot, secondBot *session, chat int64) {
	t.Helper()
	first, second := "http://"+firstBot.m.Web.Addr()+"/telegram/hook", "http://"+secondBot.m.Web.Addr()+"/telegram/hook"
	update := fmt.Sprintf(`{"update_id":%d,"message":{"message_id":1,"date":1,"chat":{"id":%d,"type":"private"},"from":{"id":%d,"first_name":"A"},"text":"/help"}}`, chat, chat, chat)
	for _, hook := range []string{first, second} {
		req, _ := http.NewRequest(http.MethodPost, hook, strings.NewReader(update))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(telegram.SecretHeader, hookSecret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s = %d, want 200", hook, resp.StatusCode)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := tg.WaitMessage(ctx, telegramtest.To(chat)); err != nil {
		t.Fatalf("the update was not answered: %v", err)
	}
	for _, b := range bots {
		b.stop()
		if err := b.wait(); err != nil {
			t.Errorf("Run() = %v", err)
		}
	}
	n := 0
	for _, m := range tg.Messages() {
		if m.ChatID == chat {
			n++
		}
	}
	if n != 1 {
		t.Errorf("chat %d got %d answers to one update delivered twice, want 1", chat, n)
	}
}
