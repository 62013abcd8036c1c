package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot/telegram"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/storage/storagetest"
)

// TestMain_TelegramInbox_KilledAfterAck: the bot, a process of its own in
// webhook mode, acknowledges 50 updates and is killed outright (SIGKILL)
// before it could answer any of them (the fake Telegram holds every
// sendMessage); the bot started again on the same database answers each
// of the 50 exactly once.
func TestMain_TelegramInbox_KilledAfterAck(t *testing.T) {
	t.Parallel()
	const updates = 50
	for name, url := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
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

// TestMain_TelegramInbox_StoreOrder: a member's /link and /unlink are
// stored the other way round, on one process or on two replicas sharing
// PostgreSQL, the /unlink first; they run in update_id order, so that the
// member ends without a wallet, and another member's update stored
// meanwhile, below the missing one, is answered while the /unlink waits.
func TestMain_TelegramInbox_StoreOrder(t *testing.T) {
	t.Parallel()
	for name, url := range testDatabases(t) {
		t.Run(name, func(t *testing.T) { t.Parallel(); storeOutOfOrder(t, url, 1) })
	}
	t.Run("postgres/replicas", func(t *testing.T) {
		t.Parallel()
		base := os.Getenv(storagetest.EnvURL)
		if base == "" {
			t.Skip(storagetest.EnvURL + " is not set (CI sets it)")
		}
		storeOutOfOrder(t, storagetest.PostgresURL(t, base), 2)
	})
}

// storeOutOfOrder runs TestMain_TelegramInbox_StoreOrder on n replicas.
func storeOutOfOrder(t *testing.T, databaseURL string, n int) {
	const ann, ben, cal = 7001, 7002, 7003
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tg := telegramtest.NewServer(telegramtest.Options{})
	t.Cleanup(tg.Close)
	env := map[string]string{
		"DATABASE_URL": databaseURL, "TELEGRAM_TOKEN": tg.Token, "TELEGRAM_API_URL": tg.URL(),
		"TELEGRAM_WEBHOOK_URL": "https://bot.example.org/telegram/hook", "TELEGRAM_WEBHOOK_SECRET": hookSecret,
	}
	// A bot that handled update 100 before: the next process goes on
	// from there.
	first := startMainWith(t, env, false)
	if code := postUpdate(ctx, first.m.Web.Addr(), textUpdate(100, cal, "/help")); code != http.StatusOK {
		t.Fatalf("update 100: status %d, want 200", code)
	}
	if _, err := tg.WaitMessage(ctx, telegramtest.To(cal)); err != nil {
		t.Fatal(err)
	}
	first.stop()
	if err := first.wait(); err != nil {
		t.Fatal(err)
	}
	first.m.Close()

	// Updates 101 to 103 in the order 103, 101, 102, each to a replica
	// in turn; a missing id is waited for a minute, longer than the test.
	var hooks []string
	for i := range n {
		s := startMainTuned(t, env, false, func(m *Main) { m.TelegramGapWait = time.Minute })
		if _, err := tg.WaitCalls(ctx, "setWebhook", i+2); err != nil {
			t.Fatal(err)
		}
		hooks = append(hooks, s.m.Web.Addr())
	}
	post := func(i, id int, member int64, text string) {
		t.Helper()
		if code := postUpdate(ctx, hooks[i%n], textUpdate(id, member, text)); code != http.StatusOK {
			t.Fatalf("update %d: status %d, want 200", id, code)
		}
	}
	post(1, 103, ann, "/unlink")
	post(0, 101, ben, "/help")
	if _, err := tg.WaitMessage(ctx, telegramtest.To(ben)); err != nil {
		t.Fatalf("ben's update 101 was held up: %v", err)
	}
	if got := sentTo(tg, ann); len(got) != 0 {
		t.Fatalf("ann's /unlink ran before her /link was stored: %q", got)
	}
	post(1, 102, ann, "/link ann@example.org")
	post(0, 104, ann, "/wallet")
	// /wallet's answer, either way, comes after the others': one
	// member's updates run one after the other.
	wallets := func(m telegramtest.Message) bool {
		return m.ChatID == ann && (strings.Contains(m.Text, "You have no wallet") || strings.Contains(m.Text, "Your wallets"))
	}
	if _, err := tg.WaitMessage(ctx, wallets); err != nil {
		t.Fatalf("ann's /wallet was not answered (answers: %q): %v", sentTo(tg, ann), err)
	}
	got := sentTo(tg, ann)
	want := []string{"Linked", "Unlinked", "You have no wallet linked"}
	if len(got) != len(want) {
		t.Fatalf("ann got %q, want %d answers", got, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("ann's answer %d = %q, want it to begin %q (answers: %q)", i+1, got[i], want[i], got)
		}
	}
}

// sentTo returns the texts the bot sent to chat, in order.
func sentTo(tg *telegramtest.Server, chat int64) []string {
	var out []string
	for _, m := range tg.Messages() {
		if m.ChatID == chat {
			out = append(out, m.Text)
		}
	}
	return out
}

// textUpdate is a webhook update with text from member in their private
// chat.
func textUpdate(id int, member int64, text string) string {
	return fmt.Sprintf(`{"update_id":%d,"message":{"message_id":%d,"date":1,"chat":{"id":%d,"type":"private"},"from":{"id":%d,"first_name":"A"},"text":%q}}`,
		id, id, member, member, text)
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
	t.Parallel()
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
