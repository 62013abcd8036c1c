package telegram

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core"
)

const secret = "s3cret-Token_1"

func TestRun_Webhook(t *testing.T) {
	e := newEnv(t, Options{WebhookURL: "https://bot.example/webhook/telegram", WebhookSecret: secret})
	e.run(t)
	call, err := e.tg.WaitCall(waitCtx(t), "setWebhook")
	if err != nil {
		t.Fatal(err)
	}
	var allowed []string
	if err := call.Decode("allowed_updates", &allowed); err != nil {
		t.Fatal(err)
	}
	got := map[string]any{"url": call.Params["url"], "secret_token": call.Params["secret_token"], "allowed_updates": allowed}
	want := map[string]any{"url": "https://bot.example/webhook/telegram", "secret_token": secret, "allowed_updates": []string{"message", "callback_query", "chat_join_request"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("setWebhook (-want +got):\n%s", diff)
	}
	if n := len(e.tg.Calls("getUpdates")) + len(e.tg.Calls("deleteWebhook")); n != 0 {
		t.Errorf("webhook mode called getUpdates or deleteWebhook %d times, want 0", n)
	}
	if err := e.stop(); err != nil {
		t.Errorf("Run() = %v, want nil", err)
	}
}

func TestWebhookHandler(t *testing.T) {
	e := newEnv(t, Options{WebhookURL: "https://bot.example/hook", WebhookSecret: secret})
	h := e.a.WebhookHandler()
	update := `{"update_id":7,"message":{"message_id":1,"date":1,"text":"/help",` +
		`"chat":{"id":1001,"type":"private","first_name":"Alice"},"from":{"id":1001,"first_name":"Alice","username":"alice"}}}`
	serve := func(method, secretHeader, body string) int {
		r := httptest.NewRequest(method, "/webhook/telegram", strings.NewReader(body))
		if secretHeader != "" {
			r.Header.Set(SecretHeader, secretHeader)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}

	// Stored before Run: handled once it runs.
	if got := serve(http.MethodPost, secret, update); got != http.StatusOK {
		t.Errorf("before Run: status %d, want 200", got)
	}
	e.run(t)
	if _, err := e.tg.WaitCall(waitCtx(t), "setWebhook"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, method, secret, body string
		want                       int
	}{
		{"NoSecret", http.MethodPost, "", update, http.StatusUnauthorized},
		{"WrongSecret", http.MethodPost, "s3cret-Token_2", update, http.StatusUnauthorized},
		{"PrefixOfSecret", http.MethodPost, secret[:4], update, http.StatusUnauthorized},
		{"Get", http.MethodGet, secret, "", http.StatusMethodNotAllowed},
		{"NotJSON", http.MethodPost, secret, "<xml/>", http.StatusBadRequest},
	}
	for _, tt := range tests {
		if got := serve(tt.method, tt.secret, tt.body); got != tt.want {
			t.Errorf("%s: status %d, want %d", tt.name, got, tt.want)
		}
	}
	if got := serve(http.MethodPost, secret, update); got != http.StatusOK {
		t.Fatalf("right secret: status %d, want 200", got)
	}
	// Telegram delivers the same update again: taken, not handled twice.
	if got := serve(http.MethodPost, secret, update); got != http.StatusOK {
		t.Fatalf("the same update again: status %d, want 200", got)
	}
	m := e.waitMessage(t, telegramtest.To(alice.ID))
	if !strings.Contains(m.Text, "brings POAPs") {
		t.Errorf("reply to the webhook update = %q, want the help", m.Text)
	}
	if got := e.stopped(t); len(got) != 1 {
		t.Errorf("sent %v, want one reply: rejected and repeated updates must not be handled", got)
	}
}

// downInbox is an inbox whose store is unavailable.
type downInbox struct{ memInbox }

func (*downInbox) AddUpdates(context.Context, int64, []core.InboxUpdate) (int, error) {
	return 0, errors.New("storage unavailable")
}

// TestWebhookHandler_InboxDown: when the inbox cannot be written, the
// delivery is refused with 503, so that Telegram delivers it again.
func TestWebhookHandler_InboxDown(t *testing.T) {
	e := newEnv(t, Options{WebhookURL: "https://bot.example/hook", WebhookSecret: secret, Inbox: &downInbox{}})
	e.run(t)
	if _, err := e.tg.WaitCall(waitCtx(t), "setWebhook"); err != nil {
		t.Fatal(err)
	}
	update := `{"update_id":8,"message":{"message_id":1,"date":1,"text":"/help",` +
		`"chat":{"id":1001,"type":"private","first_name":"Alice"},"from":{"id":1001,"first_name":"Alice"}}}`
	r := httptest.NewRequest(http.MethodPost, "/webhook/telegram", strings.NewReader(update))
	r.Header.Set(SecretHeader, secret)
	w := httptest.NewRecorder()
	e.a.WebhookHandler().ServeHTTP(w, r)
	if w.Code != http.StatusServiceUnavailable {
		t.Errorf("status %d with the inbox down, want 503", w.Code)
	}
	if got := e.stopped(t); len(got) != 0 {
		t.Errorf("sent %v, want nothing for an update not taken", got)
	}
}

// TestWebhook_Delivery runs the fake's webhook delivery against the
// handler over HTTP, as Telegram would.
func TestWebhook_Delivery(t *testing.T) {
	mux := http.NewServeMux()
	hook := httptest.NewServer(mux)
	t.Cleanup(hook.Close)
	e := newEnv(t, Options{WebhookURL: hook.URL + "/webhook/telegram", WebhookSecret: secret})
	mux.Handle("POST /webhook/telegram", e.a.WebhookHandler())
	e.run(t)
	if _, err := e.tg.WaitCall(waitCtx(t), "setWebhook"); err != nil {
		t.Fatal(err)
	}
	id := e.tg.SendText(telegramtest.PrivateChat(alice), alice, "/help")
	e.waitMessage(t, telegramtest.To(alice.ID))
	d, err := e.tg.WaitDelivery(waitCtx(t), id)
	if err != nil || d.Status != http.StatusOK {
		t.Errorf("delivery = %+v (%v), want status 200", d, err)
	}
	if n := e.tg.PendingUpdates(); n != 0 {
		t.Errorf("%d updates pending after a 200, want 0", n)
	}
}

func TestRun_UpdateTimeout(t *testing.T) {
	e := newEnv(t, Options{UpdateTimeout: 200 * time.Millisecond, QueueWait: 100 * time.Millisecond})
	e.tg.Delay("sendMessage", time.Minute)
	e.run(t)
	e.tg.SendText(telegramtest.PrivateChat(alice), alice, "/help")
	if _, err := e.tg.WaitCall(waitCtx(t), "sendMessage"); err != nil {
		t.Fatal(err)
	}
	if err := e.stop(); err != nil {
		t.Fatalf("Run() = %v, want nil", err)
	}
	// Run waits for the update in flight; the update's own deadline, not
	// the Bot API's minute, ends it: the bot gives the reply up (the fake
	// sees it abandoned, the log says deadline), and Run does not give up
	// waiting for the update.
	if _, err := e.tg.WaitAbandoned(waitCtx(t), "sendMessage"); err != nil {
		t.Errorf("the delayed reply was not abandoned: %v", err)
	}
	logs := e.logs.String()
	if !strings.Contains(logs, "bot[token]/sendMessage") || !strings.Contains(logs, "context deadline exceeded") {
		t.Errorf("logs do not report the abandoned reply:\n%s", logs)
	}
	if strings.Contains(logs, "still running at shutdown") {
		t.Errorf("Run gave up waiting for the update instead of the update ending at its 200 ms timeout:\n%s", logs)
	}
}

func TestRun_CancelStopsPolling(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(t)
	if _, err := e.tg.WaitCall(waitCtx(t), "getUpdates"); err != nil {
		t.Fatal(err)
	}
	if err := e.stop(); err != nil {
		t.Fatalf("Run() = %v, want nil", err)
	}
	polls := len(e.tg.Calls("getUpdates"))
	// The pending long poll is aborted, not waited out: the fake sees its
	// client give it up.
	if _, err := e.tg.WaitAbandoned(waitCtx(t), "getUpdates"); err != nil {
		t.Errorf("the pending long poll was not aborted: %v", err)
	}
	if again := len(e.tg.Calls("getUpdates")); again != polls {
		t.Errorf("getUpdates called %d more times after Run returned", again-polls)
	}
}

func TestRun_ConfirmsUpdatesOnStop(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(t)
	e.tg.SendText(telegramtest.PrivateChat(alice), alice, "/help")
	e.waitMessage(t, telegramtest.To(alice.ID))
	e.stopped(t)
	if n := e.tg.PendingUpdates(); n != 0 {
		t.Errorf("%d updates left unconfirmed after Run returned, want 0 (they would be handled again)", n)
	}
}

func TestRun_ErrTokenRefused(t *testing.T) {
	e := newEnv(t, Options{})
	e.tg.Fail("setMyCommands", telegramtest.Failure{Code: http.StatusUnauthorized, Description: "Unauthorized"})
	if err := e.a.run(waitCtx(t)); !errors.Is(err, ErrTokenRefused) {
		t.Errorf("Run() after a 401 = %v, want ErrTokenRefused", err)
	}
}
