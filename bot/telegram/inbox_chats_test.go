package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
)

// anonBody is an update of an anonymous administrator's message in group.
func anonBody(id int, group int64, text string) []byte {
	chat := map[string]any{"id": group, "type": "supergroup", "title": "g"}
	b, _ := json.Marshal(map[string]any{"update_id": id, "message": map[string]any{
		"message_id": id, "date": 1, "text": text, "chat": chat, "sender_chat": chat,
		"from": map[string]any{"id": groupAnonymousBotID, "is_bot": true, "first_name": "Group", "username": "GroupAnonymousBot"},
	}})
	return b
}

// TestInbox_ChatsOwnLines: the anonymous administrators of two groups post
// through one stand-in account, but each group's updates are a line of
// their own: group B's runs while group A's is held.
func TestInbox_ChatsOwnLines(t *testing.T) {
	clock := &fakeClock{now: inboxAt}
	inbox := watch(&memInbox{}, clock)
	e := newEnv(t, Options{WebhookURL: "https://bot.example/hook", WebhookSecret: secret, Inbox: inbox, GapWait: testGapWait,
		Limits: Limits{Private: Window{N: 100, Per: time.Second}}})
	e.a.clock = clock
	n := &notes{running: map[string]int{}, hold: map[string]chan struct{}{}, changed: make(chan struct{})}
	e.withCommand(&bot.Command{
		Name: "note", Public: true, AnswerInGroup: true,
		Options: []bot.Option{{Name: "drop", Type: bot.TextOption}},
		Handler: func(_ context.Context, req *bot.Request) (bot.Reply, error) {
			n.mu.Lock()
			n.ran = append(n.ran, req.Caller.ExternalID+" "+req.Options["drop"])
			hold := n.hold[req.Options["drop"]]
			close(n.changed)
			n.changed = make(chan struct{})
			n.mu.Unlock()
			if hold != nil {
				<-hold
			}
			return bot.Reply{Text: "noted"}, nil
		},
	})
	handled(t, inbox.memInbox, e.a.api.Self.ID, inboxAt, 9)
	e.start(t)
	deliver := func(id int, group int64, text string) {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewReader(anonBody(id, group, text)))
		r.Header.Set(SecretHeader, secret)
		e.a.WebhookHandler().ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			t.Fatalf("status %d", w.Code)
		}
	}
	a := n.holdLabel("a")
	defer close(a)
	deliver(10, -1001, "/note a")
	n.waitRan(t, telegramtest.User{ID: -1001}, "a")
	deliver(11, -1002, "/note b")
	n.waitRan(t, telegramtest.User{ID: -1002}, "b")
}
