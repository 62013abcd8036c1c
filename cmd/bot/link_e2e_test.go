package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/bot/telegram"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/poap/sandbox"
)

// challengeIn returns the challenge message inside a reply, failing the
// test when there is none.
func challengeIn(t *testing.T, text string) string {
	t.Helper()
	msg, ok := coretest.FindMessage(text, botName)
	if !ok {
		t.Fatalf("no challenge message in the reply:\n%s", text)
	}
	return msg
}

// TestLink_Console links, signs and verifies a wallet on the console.
func TestLink_Console(t *testing.T) {
	t.Parallel()
	for name, url := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startMain(t, url)
			fmt.Fprintf(s.stdin, "/as alice\n/link %s\n", coretest.TestAddress)
			waitOutput(t, s, "Signing is free")
			msg := challengeIn(t, s.out.String())
			fmt.Fprintf(s.stdin, "/verify %s\n/wallet\n", coretest.Sign(coretest.TestKey, msg))
			s.stdin.Close()
			if err := s.wait(); err != nil {
				t.Fatal(err)
			}
			out := s.out.String()
			wallets := out[strings.LastIndex(out, "Your wallets"):]
			if !strings.Contains(out, "Verified: ") || !strings.Contains(wallets, "primary · verified") {
				t.Errorf("console output lacks the verification, or /wallet does not show it:\n%s", out)
			}
		})
	}
}

// TestLink_Telegram runs the flow on Telegram from a group: every personal
// reply goes to the member's private chat, none to the group.
func TestLink_Telegram(t *testing.T) {
	t.Parallel()
	tg, _ := startTelegram(t, "", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	alice := telegramtest.User{ID: 1001, FirstName: "Alice", Username: "alice"}
	group := telegramtest.Group(-1001234567890, "POAP fans")
	tg.OpenPrivateChat(alice.ID)
	tg.SendText(group, alice, "/link@"+tg.Username+" "+coretest.TestAddress)
	linked, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(alice.ID), telegramtest.Contains("Nonce")))
	if err != nil {
		t.Fatalf("no challenge in the private chat: %v", err)
	}
	msg := challengeIn(t, linked.Text)
	tg.SendText(telegramtest.PrivateChat(alice), alice, "/verify "+coretest.Sign(coretest.TestKey, msg))
	if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(alice.ID), telegramtest.Contains("Verified"))); err != nil {
		t.Fatalf("no verification reply: %v", err)
	}
	tg.SendText(group, alice, "/wallet@"+tg.Username)
	w, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(alice.ID), telegramtest.Contains("Your wallets")))
	if err != nil {
		t.Fatalf("no /wallet reply: %v", err)
	}
	if !strings.Contains(w.Text, "primary · verified") {
		t.Errorf("/wallet does not show the wallet verified:\n%s", w.Text)
	}
	for _, m := range tg.Messages() {
		if m.ChatID == group.ID {
			t.Errorf("a reply went to the group: %q", m.Text)
		}
	}
}

// TestLink_Discord runs the flow on Discord: every reply is acknowledged
// in time (the fake refuses a callback after Discord's 3 s) and every
// personal reply carries the ephemeral flag.
func TestLink_Discord(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t, discordtest.Options{})
	startMainWith(t, map[string]string{
		"DISCORD_TOKEN": discordtest.DefaultToken, "DISCORD_API_URL": srv.URL(), "DISCORD_GUILD_ID": srv.GuildID(),
	}, false)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	reply := func(line string) discordtest.Message {
		t.Helper()
		it := srv.Command(discordtest.Alice, line)
		ack, err := it.WaitResponse(ctx)
		if err != nil {
			t.Fatalf("%s: no acknowledgement: %v", line, err)
		}
		if ack.Status != 204 || !ack.Ephemeral() {
			t.Errorf("%s: acknowledgement status %d (late %v, after %s), ephemeral %v; want 204 in time and ephemeral", line, ack.Status, ack.Late, ack.Delay(), ack.Ephemeral())
		}
		msg, err := it.WaitReply(ctx)
		if err != nil {
			t.Fatalf("%s: no reply: %v", line, err)
		}
		if !msg.Ephemeral {
			t.Errorf("%s: the personal reply is not ephemeral: %q", line, msg.Content)
		}
		return msg
	}
	linked := reply("/link " + coretest.TestAddress)
	msg := challengeIn(t, linked.Content)
	if got := reply("/verify " + coretest.Sign(coretest.TestKey, msg)); !strings.Contains(got.Content, "Verified") {
		t.Errorf("/verify reply = %q", got.Content)
	}
	if got := reply("/wallet"); !strings.Contains(got.Content, "primary · verified") {
		t.Errorf("/wallet reply = %q", got.Content)
	}
}

// TestDiscord_SlowIssuer: with the issuing service answering in 5 s, a
// Discord interaction is still acknowledged within Discord's 3 s (the fake
// refuses a later callback) and completed afterwards.
func TestDiscord_SlowIssuer(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t, discordtest.Options{})
	s := startMainWith(t, map[string]string{
		"DISCORD_TOKEN": discordtest.DefaultToken, "DISCORD_API_URL": srv.URL(), "DISCORD_GUILD_ID": srv.GuildID(),
	}, false)
	s.m.SandboxAPI.SetLatency(5 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	it := srv.Command(discordtest.Alice, "/poaps "+sandbox.DemoWallet)
	ack, err := it.WaitResponse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ack.Status != 204 {
		t.Errorf("acknowledgement status %d (late %v, after %s), want 204: in time", ack.Status, ack.Late, ack.Delay())
	}
	msg, err := it.WaitMessage(ctx, func(m discordtest.Message) bool { return strings.Contains(m.Content, "POAPs of") })
	if err != nil {
		t.Fatalf("the slow answer never came: %v", err)
	}
	if !msg.Ephemeral {
		t.Errorf("the collection reply is not ephemeral")
	}
	t.Logf("acknowledged after %s (type %d), answered after the 5 s issuer", ack.Delay(), ack.Type)
}

// TestMain_TelegramWebhook: in webhook mode the bot registers the webhook
// with its secret and serves it on HTTP_ADDR, refusing updates without the
// secret-token header.
func TestMain_TelegramWebhook(t *testing.T) {
	t.Parallel()
	tg := telegramtest.NewServer(telegramtest.Options{})
	t.Cleanup(tg.Close)
	const secret = "webhook-secret_1"
	s := startMainWith(t, map[string]string{
		"TELEGRAM_TOKEN": tg.Token, "TELEGRAM_API_URL": tg.URL(),
		"TELEGRAM_WEBHOOK_URL": "https://bot.example.org/telegram/hook", "TELEGRAM_WEBHOOK_SECRET": secret,
	}, false)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	call, err := tg.WaitCall(ctx, "setWebhook")
	if err != nil {
		t.Fatal(err)
	}
	if sent := call.Params["secret_token"]; sent != secret {
		t.Errorf("setWebhook secret_token = %q, want the configured secret", sent)
	}
	hook := "http://" + s.m.Web.Addr() + "/telegram/hook"
	update := `{"update_id":1,"message":{"message_id":1,"date":1,"chat":{"id":1001,"type":"private"},"from":{"id":1001,"first_name":"A"},"text":"/help"}}`
	for _, tc := range []struct {
		header string
		want   int
	}{{"", http.StatusUnauthorized}, {"wrong", http.StatusUnauthorized}, {secret, http.StatusOK}} {
		req, _ := http.NewRequest(http.MethodPost, hook, strings.NewReader(update))
		req.Header.Set("Content-Type", "application/json")
		if tc.header != "" {
			req.Header.Set(telegram.SecretHeader, tc.header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("POST webhook with secret %q = %d, want %d", tc.header, resp.StatusCode, tc.want)
		}
	}
	if _, err := tg.WaitMessage(ctx, telegramtest.To(1001)); err != nil {
		t.Errorf("the update with the right secret was not answered: %v", err)
	}
}

// TestMain_VerificationPage: with PUBLIC_URL set, /link offers the page,
// and the web server serves it with the challenge message.
func TestMain_VerificationPage(t *testing.T) {
	t.Parallel()
	s := startMainWith(t, map[string]string{"PUBLIC_URL": "https://bot.example.org"}, true)
	fmt.Fprintf(s.stdin, "/link %s\n", coretest.TestAddress)
	waitOutput(t, s, "https://bot.example.org/verify/")
	out := s.out.String()
	i := strings.Index(out, "https://bot.example.org/verify/")
	if i < 0 {
		t.Fatalf("the /link reply has no verification page link:\n%s", out)
	}
	nonce := strings.Fields(out[i+len("https://bot.example.org/verify/"):])[0]
	page := get(t, "http://"+s.m.Web.Addr()+"/verify/"+nonce)
	if !strings.Contains(page, "Nonce: "+nonce) {
		t.Errorf("the page does not show the challenge message:\n%.1500s", page)
	}
}
