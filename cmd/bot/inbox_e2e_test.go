package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot/telegram"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/poap/sandbox"
)

// TestMain_TelegramInbox_KilledAfterAck: the bot, a process of its own in
// webhook mode, acknowledges 50 updates and is killed outright (SIGKILL)
// before it could answer any of them (the fake Telegram holds every
// sendMessage); the bot started again on the same database answers each
// of the 50 exactly once.
func TestMain_TelegramInbox_KilledAfterAck(t *testing.T) {
	const updates = 50
	for name, url := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			tg := telegramtest.NewServer(telegramtest.Options{})
			t.Cleanup(tg.Close)
			env := map[string]string{
				"DATABASE_URL": url, "TELEGRAM_TOKEN": tg.Token, "TELEGRAM_API_URL": tg.URL(),
				"TELEGRAM_WEBHOOK_URL": "https://bot.example.org/telegram/hook", "TELEGRAM_WEBHOOK_SECRET": hookSecret,
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			tg.Delay("sendMessage", time.Hour)
			first := startChild(t, env, "-sandbox")
			if _, err := tg.WaitCalls(ctx, "setWebhook", 1); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			for i := range updates {
				wg.Go(func() {
					if code := postUpdate(ctx, first.addr, helpUpdate(5001+i)); code != http.StatusOK {
						t.Errorf("update %d: status %d, want 200", 5001+i, code)
					}
				})
			}
			wg.Wait()
			first.kill(t)
			if t.Failed() {
				return
			}
			begun := len(tg.Calls("sendMessage"))
			tg.Delay("sendMessage", 0)

			second := startChild(t, env, "-sandbox")
			for i := range updates {
				if _, err := tg.WaitMessage(ctx, telegramtest.To(int64(5001+i))); err != nil {
					t.Fatalf("update %d was not answered after the restart: %v", 5001+i, err)
				}
			}
			second.stop(t)
			answers := map[int64]int{}
			for _, m := range tg.Messages() {
				answers[m.ChatID]++
			}
			for i := range updates {
				if n := answers[int64(5001+i)]; n != 1 {
					t.Errorf("member %d got %d answers, want 1", 5001+i, n)
				}
			}
			t.Logf("the killed process had begun %d of the %d answers; none reached Telegram", begun, updates)
		})
	}
}

// helpUpdate is a webhook update with /help from member id in their
// private chat, the update's id being the member's.
func helpUpdate(id int) string {
	return fmt.Sprintf(`{"update_id":%d,"message":{"message_id":1,"date":1,"chat":{"id":%d,"type":"private"},"from":{"id":%d,"first_name":"A"},"text":"/help"}}`, id, id, id)
}

// postUpdate delivers update to the webhook of the bot at addr, as
// Telegram does, and returns the status.
func postUpdate(ctx context.Context, addr, update string) int {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/telegram/hook", strings.NewReader(update))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(telegram.SecretHeader, hookSecret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestClaim_TelegramGroupFlood: 200 members of a group claim at once from
// the group's claim message while the bot edits that message as the links
// go, with the fake Telegram enforcing the Bot API's flood limits: every
// member gets a link in private, the group receives at most 20 messages in
// any minute, and Telegram never has to refuse the bot (no 429).
func TestClaim_TelegramGroupFlood(t *testing.T) {
	const members = 200
	tg, s := startTelegram(t, "", shortTick)
	tg.SetLimits(telegramtest.BotAPILimits)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	drop, code := s.m.SandboxAPI.CreateDrop(sandbox.Drop{Name: "Group flood"}, members)
	group, mod := telegramGroup(tg)
	tg.OpenPrivateChat(mod.ID)
	addTelegramDropOf(ctx, t, tg, group, mod, drop.ID, code)
	tg.SendText(group, mod, fmt.Sprintf("/distribute@%s %d", tg.Username, drop.ID))
	post, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(group.ID), func(m telegramtest.Message) bool { return linksLeft(m.Text) >= 0 }))
	if err != nil {
		t.Fatalf("no claim message in the group: %v", err)
	}
	payload := deepLinkPayload(t, tg, post)

	users := telegramMembers(members)
	openPrivateChats(tg, users)
	telegramBurst(ctx, t, tg, users, func(u telegramtest.User) {
		tg.SendText(telegramtest.PrivateChat(u), u, "/start "+payload)
	})
	if _, err := tg.WaitMessage(ctx, func(m telegramtest.Message) bool {
		return strings.HasPrefix(m.Method, "edit") && m.MessageID == post.MessageID && strings.Contains(m.Text, "No links left")
	}); err != nil {
		t.Fatal("the claim message was not edited to say no links are left")
	}
	var inGroup []telegramtest.Message
	for _, m := range tg.Messages() {
		if m.ChatID == group.ID {
			inGroup = append(inGroup, m)
		}
	}
	if n := telegramtest.MaxInWindow(inGroup, time.Minute); n > 20 {
		t.Errorf("the group received %d messages within a minute, want at most 20", n)
	}
	if th := tg.Throttled(); len(th) != 0 {
		t.Errorf("Telegram refused %d calls with 429 (first: %s to %s); the bot must hold the limits itself", len(th), th[0].Method, th[0].Params["chat_id"])
	}
	t.Logf("%d messages to the group (the claim message and its edits), at most %d within a minute", len(inGroup), telegramtest.MaxInWindow(inGroup, time.Minute))
}
