package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core"
)

// fakeClock is an inboxClock that tests move by hand.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []fakeTimer
}

type fakeTimer struct {
	at time.Time
	c  chan time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
	} else {
		c.timers = append(c.timers, fakeTimer{at: c.now.Add(d), c: ch})
	}
	return ch
}

// add moves the clock by d and fires the timers due.
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.timers = slices.DeleteFunc(c.timers, func(t fakeTimer) bool {
		if t.at.After(c.now) {
			return false
		}
		t.c <- c.now
		return true
	})
}

// watchedInbox is an inbox that records its reader's reads, so that a
// test can wait for the reader to have seen an update.
type watchedInbox struct {
	*memInbox
	clock   *fakeClock
	mu      sync.Mutex
	reads   []inboxRead
	changed chan struct{} // closed and replaced at each read
}

// inboxRead is one read of updates: the reader's time and the ids read.
type inboxRead struct {
	at  time.Time
	ids []int64
}

// watch returns m watched, the reads timed by clock.
func watch(m *memInbox, clock *fakeClock) *watchedInbox {
	return &watchedInbox{memInbox: m, clock: clock, changed: make(chan struct{})}
}

func (w *watchedInbox) StoredUpdates(ctx context.Context, botID, after int64, at time.Time, limit int) ([]core.InboxUpdate, error) {
	us, err := w.memInbox.StoredUpdates(ctx, botID, after, at, limit)
	w.record(us)
	return us, err
}

func (w *watchedInbox) PendingUpdates(ctx context.Context, botID, after int64, limit int) ([]core.InboxUpdate, error) {
	us, err := w.memInbox.PendingUpdates(ctx, botID, after, limit)
	w.record(us)
	return us, err
}

// record records a read of us.
func (w *watchedInbox) record(us []core.InboxUpdate) {
	r := inboxRead{at: w.clock.Now()}
	for _, u := range us {
		r.ids = append(r.ids, u.ID)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reads = append(w.reads, r)
	close(w.changed)
	w.changed = make(chan struct{})
}

// waitRead waits until the reader read update id at its time at or later.
func (w *watchedInbox) waitRead(t *testing.T, at time.Time, id int64) {
	t.Helper()
	ctx := waitCtx(t)
	for {
		w.mu.Lock()
		found := slices.ContainsFunc(w.reads, func(r inboxRead) bool { return !r.at.Before(at) && slices.Contains(r.ids, id) })
		changed := w.changed
		w.mu.Unlock()
		if found {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("the inbox's reader did not read update %d at %v or later", id, at)
		}
	}
}

// notes is a /note <label> command that records the labels it runs, by
// member, and holds a label's run while its hold channel is open.
type notes struct {
	mu      sync.Mutex
	ran     []string // "<member> <label>", as each run began
	running map[string]int
	overlap bool
	hold    map[string]chan struct{}
	changed chan struct{}
}

func (e *env) withNotes() *notes {
	n := &notes{running: map[string]int{}, hold: map[string]chan struct{}{}, changed: make(chan struct{})}
	e.withCommand(&bot.Command{
		Name: "note", Public: true,
		Options: []bot.Option{{Name: "drop", Type: bot.TextOption}, {Name: "description", Type: bot.TextOption}},
		Handler: func(_ context.Context, req *bot.Request) (bot.Reply, error) {
			member, label := req.Caller.ExternalID, req.Options["drop"]
			n.mu.Lock()
			n.running[member]++
			n.overlap = n.overlap || n.running[member] > 1
			n.ran = append(n.ran, member+" "+label)
			hold := n.hold[label]
			close(n.changed)
			n.changed = make(chan struct{})
			n.mu.Unlock()
			if hold != nil {
				<-hold
			}
			n.mu.Lock()
			n.running[member]--
			n.mu.Unlock()
			return bot.Reply{Text: "noted " + label}, nil
		},
	})
	return n
}

// holdLabel makes the run of label wait until the channel returned is
// closed.
func (n *notes) holdLabel(label string) chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.hold[label] = make(chan struct{})
	return n.hold[label]
}

// waitRan waits until the run of label of u began.
func (n *notes) waitRan(t *testing.T, u telegramtest.User, label string) {
	t.Helper()
	ctx := waitCtx(t)
	want := fmt.Sprintf("%d %s", u.ID, label)
	for {
		n.mu.Lock()
		found := slices.Contains(n.ran, want)
		changed := n.changed
		n.mu.Unlock()
		if found {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("%q did not run; ran %v", want, n.runs())
		}
	}
}

// runs returns the runs so far, in the order they began.
func (n *notes) runs() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.ran)
}

// of returns the labels u's runs began with, in order.
func (n *notes) of(u telegramtest.User) []string {
	var out []string
	for _, r := range n.runs() {
		if member, label, _ := strings.Cut(r, " "); member == fmt.Sprint(u.ID) {
			out = append(out, label)
		}
	}
	return out
}

// inboxAt is when the inbox tests' fake clock starts.
var inboxAt = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// testGapWait is the tests' Options.GapWait: longer than any test, so
// that only the fake clock ends it.
const testGapWait = time.Minute

// webhookEnv is an adapter in webhook mode on inbox with a fake clock and
// /note, the updates delivered by the test (deliver) rather than the
// fake's own, so that it chooses the order they are stored in.
func webhookEnv(t *testing.T, inbox *watchedInbox, clock *fakeClock) (*env, *notes) {
	t.Helper()
	e := newEnv(t, Options{WebhookURL: "https://bot.example/hook", WebhookSecret: secret, Inbox: inbox, GapWait: testGapWait,
		Limits: Limits{Private: Window{N: 100, Per: time.Second}}})
	e.a.clock = clock
	return e, e.withNotes()
}

// start runs the adapter and waits until it set its webhook.
func (e *env) start(t *testing.T) {
	t.Helper()
	e.run(t)
	if _, err := e.tg.WaitCall(waitCtx(t), "setWebhook"); err != nil {
		t.Fatal(err)
	}
}

// deliver delivers update id, from writing text in their private chat,
// to the adapter's webhook, and fails the test unless it is stored.
func (e *env) deliver(t *testing.T, id int, from telegramtest.User, text string) {
	t.Helper()
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewReader(updateBody(id, from, text)))
	r.Header.Set(SecretHeader, secret)
	e.a.WebhookHandler().ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("delivering update %d: status %d, want 200", id, w.Code)
	}
}

// updateBody is update id: from writes text in their private chat.
func updateBody(id int, from telegramtest.User, text string) []byte {
	user := map[string]any{"id": from.ID, "is_bot": false, "first_name": from.FirstName}
	b, err := json.Marshal(map[string]any{"update_id": id, "message": map[string]any{
		"message_id": id, "date": 1, "text": text, "from": user,
		"chat": map[string]any{"id": from.ID, "type": "private", "first_name": from.FirstName},
	}})
	if err != nil {
		panic(err)
	}
	return b
}

// handled stores update ids of the bot botID in inbox, handled at at.
func handled(t *testing.T, inbox *memInbox, botID int64, at time.Time, ids ...int) {
	t.Helper()
	for _, id := range ids {
		u, err := inboxUpdate(updateBody(id, bob, "/help"), at)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := inbox.AddUpdates(t.Context(), botID, []core.InboxUpdate{u}); err != nil {
			t.Fatal(err)
		}
		if err := inbox.FinishUpdates(t.Context(), botID, []int64{int64(id)}, at); err != nil {
			t.Fatal(err)
		}
	}
}
