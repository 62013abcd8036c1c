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

// TestInbox_MemberOrder: updates are handled from the inbox, several
// members at once, but each member's one after the other in the order
// they were sent, each once.
func TestInbox_MemberOrder(t *testing.T) {
	const each = 20
	// Twenty replies to one private chat take Telegram 20 seconds; this
	// test is not about that limit.
	e := newEnv(t, Options{Limits: Limits{Private: Window{N: 100, Per: time.Second}}})
	var mu sync.Mutex
	seen := map[string][]string{}
	running := map[string]int{}
	overlap := false
	release := make(chan struct{})
	e.withCommand(&bot.Command{
		Name: "note", Public: true,
		Options: []bot.Option{{Name: "drop", Type: bot.String}, {Name: "description", Type: bot.String}},
		Handler: func(_ context.Context, req *bot.Request) (bot.Reply, error) {
			id := req.Caller.ExternalID
			mu.Lock()
			running[id]++
			overlap = overlap || running[id] > 1
			seen[id] = append(seen[id], req.Options["drop"])
			mu.Unlock()
			<-release // holds each handling until every update is stored
			mu.Lock()
			running[id]--
			mu.Unlock()
			return bot.Reply{Text: "noted " + req.Options["drop"]}, nil
		},
	})
	members := []telegramtest.User{alice, bob}
	for i := range each {
		for _, u := range members {
			e.tg.SendText(telegramtest.PrivateChat(u), u, fmt.Sprintf("/note %d", i))
		}
	}
	e.run(t)
	// Both members' first updates run at once; nothing of a member's runs
	// before their previous one ended.
	for range 2 * each {
		release <- struct{}{}
	}
	for _, u := range members {
		if _, err := e.tg.WaitMessage(waitCtx(t), telegramtest.All(telegramtest.To(u.ID), telegramtest.Contains(fmt.Sprintf("noted %d", each-1)))); err != nil {
			t.Fatal(err)
		}
	}
	e.stopped(t)
	mu.Lock()
	defer mu.Unlock()
	if overlap {
		t.Error("two updates of one member were handled at the same time")
	}
	want := make([]string, each)
	for i := range want {
		want[i] = fmt.Sprint(i)
	}
	for _, u := range members {
		if got := seen[fmt.Sprint(u.ID)]; !slices.Equal(got, want) {
			t.Errorf("member %d's updates handled in the order %v, want %v", u.ID, got, want)
		}
	}
}

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
		Options: []bot.Option{{Name: "drop", Type: bot.String}, {Name: "description", Type: bot.String}},
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

// TestInbox_StoreOrder: a member's updates stored out of order run in
// update_id order: a later one waits while an earlier id is missing, and
// while an earlier one of the member is being handled; another member's
// updates below the missing id, and past it while the first member's
// earlier one runs, are not held up.
func TestInbox_StoreOrder(t *testing.T) {
	clock := &fakeClock{now: inboxAt}
	inbox := watch(&memInbox{}, clock)
	e, n := webhookEnv(t, inbox, clock)
	handled(t, inbox.memInbox, e.a.api.Self.ID, inboxAt, 9)
	e.start(t)

	e.deliver(t, 13, alice, "/note a2")
	inbox.waitRead(t, inboxAt, 13) // 10 to 12 missing: 13 waits
	e.deliver(t, 10, bob, "/note b1")
	n.waitRan(t, bob, "b1")
	if got := n.of(alice); len(got) != 0 {
		t.Fatalf("alice's update 13 ran (%v) before her update 11 was stored", got)
	}
	a1 := n.holdLabel("a1")
	e.deliver(t, 11, alice, "/note a1")
	n.waitRan(t, alice, "a1")
	// 13 is handed out behind 11, which runs: bob's next ones are not held.
	e.deliver(t, 12, bob, "/note b2")
	e.deliver(t, 14, bob, "/note b3")
	n.waitRan(t, bob, "b2")
	n.waitRan(t, bob, "b3")
	if got := n.of(alice); !slices.Equal(got, []string{"a1"}) {
		t.Fatalf("alice's runs while her update 11 runs = %v, want [a1]", got)
	}
	close(a1)
	n.waitRan(t, alice, "a2")
	e.stopped(t)
	if got, want := n.of(alice), []string{"a1", "a2"}; !slices.Equal(got, want) {
		t.Errorf("alice's updates ran in the order %v, want %v", got, want)
	}
	if n.overlap {
		t.Error("two updates of one member ran at the same time")
	}
}

// TestInbox_GapBound: an id that is never stored holds the updates after
// it testGapWait, measured from when the reader first saw a later one, and
// no longer; stored after that, it is still handled.
func TestInbox_GapBound(t *testing.T) {
	clock := &fakeClock{now: inboxAt}
	inbox := watch(&memInbox{}, clock)
	e, n := webhookEnv(t, inbox, clock)
	handled(t, inbox.memInbox, e.a.api.Self.ID, inboxAt, 9)
	e.start(t)

	e.deliver(t, 11, alice, "/note a2")
	inbox.waitRead(t, inboxAt, 11)
	clock.add(testGapWait - time.Second)
	inbox.waitRead(t, inboxAt.Add(testGapWait-time.Second), 11)
	if got := n.runs(); len(got) != 0 {
		t.Fatalf("ran %v before update 10 was given up", got)
	}
	clock.add(time.Second)
	n.waitRan(t, alice, "a2")
	if logs := e.logs.String(); !strings.Contains(logs, "telegram update ids missing; going on without them") {
		t.Errorf("the missing id is not logged:\n%s", logs)
	}
	// Update 10 comes after all: the rescan finds it.
	e.deliver(t, 10, alice, "/note a1")
	clock.add(rescanEvery)
	n.waitRan(t, alice, "a1")
	e.stopped(t)
	if got, want := n.of(alice), []string{"a2", "a1"}; !slices.Equal(got, want) {
		t.Errorf("alice's runs = %v, want %v", got, want)
	}
	if logs := e.logs.String(); !strings.Contains(logs, "telegram update stored after later ones were handed out") {
		t.Errorf("the late update is not logged:\n%s", logs)
	}
}

// TestInbox_FreshStart: with nothing handled to go on from, the reader
// waits testGapWait after it saw the first update for an earlier one.
func TestInbox_FreshStart(t *testing.T) {
	clock := &fakeClock{now: inboxAt}
	inbox := watch(&memInbox{}, clock)
	e, n := webhookEnv(t, inbox, clock)
	e.start(t)
	e.deliver(t, 2, alice, "/note a2")
	inbox.waitRead(t, inboxAt, 2)
	e.deliver(t, 1, alice, "/note a1")
	clock.add(testGapWait)
	n.waitRan(t, alice, "a2")
	e.stopped(t)
	if got, want := n.of(alice), []string{"a1", "a2"}; !slices.Equal(got, want) {
		t.Errorf("alice's updates ran in the order %v, want %v", got, want)
	}
}

// TestInbox_Restart: the reader of a new process goes on after the
// highest update handled, so that an update stored before the restart
// waits for an earlier one stored after it.
func TestInbox_Restart(t *testing.T) {
	mem := &memInbox{}
	clock := &fakeClock{now: inboxAt}
	first := watch(mem, clock)
	e, n := webhookEnv(t, first, clock)
	handled(t, mem, e.a.api.Self.ID, inboxAt, 9)
	e.start(t)
	e.deliver(t, 11, alice, "/note a2")
	first.waitRead(t, inboxAt, 11)
	e.stopped(t)
	if got := n.runs(); len(got) != 0 {
		t.Fatalf("the first process ran %v", got)
	}

	second := watch(mem, clock)
	e, n = webhookEnv(t, second, clock)
	e.start(t)
	second.waitRead(t, inboxAt, 11)
	e.deliver(t, 10, alice, "/note a1")
	n.waitRan(t, alice, "a2")
	e.stopped(t)
	if got, want := n.of(alice), []string{"a1", "a2"}; !slices.Equal(got, want) {
		t.Errorf("alice's updates ran in the order %v after the restart, want %v", got, want)
	}
}

// TestInbox_QuietDays: after two days without updates the reader starts
// afresh, as Telegram may number the updates after a silence anew from a
// lower id.
func TestInbox_QuietDays(t *testing.T) {
	clock := &fakeClock{now: inboxAt}
	inbox := watch(&memInbox{}, clock)
	e, n := webhookEnv(t, inbox, clock)
	handled(t, inbox.memInbox, e.a.api.Self.ID, inboxAt, 1000)
	e.start(t)
	clock.add(core.InboxRetention + time.Hour)
	e.deliver(t, 502, alice, "/note a1")
	inbox.waitRead(t, clock.Now(), 502)
	clock.add(testGapWait)
	n.waitRan(t, alice, "a1")
	e.deliver(t, 504, alice, "/note a3")
	inbox.waitRead(t, clock.Now(), 504)
	e.deliver(t, 503, alice, "/note a2")
	n.waitRan(t, alice, "a3")
	e.stopped(t)
	if got, want := n.of(alice), []string{"a1", "a2", "a3"}; !slices.Equal(got, want) {
		t.Errorf("alice's updates ran in the order %v, want %v", got, want)
	}
}

// TestInbox_PollingNeverWaits: a poller stores getUpdates' batches in
// order: an id missing below a stored one never comes, and is not waited
// for.
func TestInbox_PollingNeverWaits(t *testing.T) {
	mem := &memInbox{}
	e := newEnv(t, Options{Inbox: mem})
	e.a.clock = &fakeClock{now: inboxAt}
	n := e.withNotes()
	handled(t, mem, e.a.api.Self.ID, inboxAt, 7)
	u, err := inboxUpdate(updateBody(9, alice, "/note a1"), inboxAt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.AddUpdates(t.Context(), e.a.api.Self.ID, []core.InboxUpdate{u}); err != nil {
		t.Fatal(err)
	}
	e.run(t)
	n.waitRan(t, alice, "a1")
}
