package telegram

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core"
)

// joinRequest is one call of JoinRequested.
type joinRequest struct {
	Place  string
	Member core.Member
}

// joinLog records the join requests the adapter hands over.
type joinLog chan joinRequest

func (l joinLog) JoinRequested(_ context.Context, place string, m core.Member) {
	l <- joinRequest{place, m}
}

// next waits for the next join request handed over.
func (l joinLog) next(t *testing.T) joinRequest {
	t.Helper()
	select {
	case r := <-l:
		return r
	case <-waitCtx(t).Done():
		t.Fatal("no join request reached JoinRequested")
	}
	return joinRequest{}
}

var aliceRequest = joinRequest{place, core.Member{Platform: core.Telegram, ExternalID: "1001", Name: "alice"}}

func TestAdapter_JoinRequest(t *testing.T) {
	joins := make(joinLog, 10)
	e := newEnv(t, Options{JoinRequests: joins})
	e.tg.SetChat(group.ID, group.Type, group.Title)
	e.run(t)
	e.tg.RequestJoin(group.ID, alice)
	if diff := cmp.Diff(aliceRequest, joins.next(t)); diff != "" {
		t.Errorf("JoinRequested (-want +got):\n%s", diff)
	}
	e.stopped(t)
	if n := len(joins); n != 0 {
		t.Errorf("JoinRequested called %d more times, want once", n)
	}
	if n := e.tg.PendingUpdates(); n != 0 {
		t.Errorf("%d updates left unconfirmed, want 0", n)
	}
}

// TestAdapter_JoinRequestWebhook: a join request delivered to the webhook,
// then delivered again, reaches JoinRequested once.
func TestAdapter_JoinRequestWebhook(t *testing.T) {
	joins := make(joinLog, 10)
	mux := http.NewServeMux()
	hook := httptest.NewServer(mux)
	t.Cleanup(hook.Close)
	e := newEnv(t, Options{WebhookURL: hook.URL + "/webhook/telegram", WebhookSecret: secret, JoinRequests: joins})
	mux.Handle("POST /webhook/telegram", e.a.WebhookHandler())
	e.tg.SetChat(group.ID, group.Type, group.Title)
	e.run(t)
	call, err := e.tg.WaitCall(waitCtx(t), "setWebhook")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(call.Params["allowed_updates"], `"chat_join_request"`) {
		t.Errorf("setWebhook allowed_updates = %s, want chat_join_request among them", call.Params["allowed_updates"])
	}
	id := e.tg.RequestJoin(group.ID, alice)
	if diff := cmp.Diff(aliceRequest, joins.next(t)); diff != "" {
		t.Errorf("JoinRequested (-want +got):\n%s", diff)
	}
	if d, err := e.tg.WaitDelivery(waitCtx(t), id); err != nil || d.Status != http.StatusOK {
		t.Fatalf("delivery = %+v (%v), want status 200", d, err)
	}
	again := fmt.Sprintf(`{"update_id":%d,"chat_join_request":{"chat":{"id":%d,"type":"supergroup","title":"POAP fans"},`+
		`"from":{"id":1001,"is_bot":false,"first_name":"Alice","username":"alice"},"user_chat_id":1001,"date":1}}`, id, group.ID)
	r := httptest.NewRequest(http.MethodPost, "/webhook/telegram", strings.NewReader(again))
	r.Header.Set(SecretHeader, secret)
	w := httptest.NewRecorder()
	e.a.WebhookHandler().ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Errorf("redelivery: status %d, want 200", w.Code)
	}
	e.stopped(t)
	if n := len(joins); n != 0 {
		t.Errorf("JoinRequested called %d more times for a redelivered update, want once", n)
	}
}

// TestAdapter_JoinRequestIgnored: without Options.JoinRequests a join
// request is taken and left alone.
func TestAdapter_JoinRequestIgnored(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(t)
	e.tg.RequestJoin(group.ID, alice)
	// Updates are taken in order: once /help is answered, the join
	// request was dispatched, and Run waits for it when stopped.
	e.tg.SendText(telegramtest.PrivateChat(alice), alice, "/help")
	e.waitMessage(t, telegramtest.To(alice.ID))
	if got := e.stopped(t); len(got) != 1 {
		t.Errorf("sent %v, want only the answer to /help", got)
	}
	if n := len(e.tg.Calls("approveChatJoinRequest")) + len(e.tg.Calls("declineChatJoinRequest")); n != 0 {
		t.Errorf("answered the join request %d times, want 0", n)
	}
	if !e.tg.JoinPending(group.ID, alice.ID) {
		t.Error("the join request is no longer pending, want it left to the administrators")
	}
}
