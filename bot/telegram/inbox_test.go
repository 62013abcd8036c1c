package telegram

import (
	"context"
	"fmt"
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
		Options: []bot.Option{{Name: "drop", Type: bot.TextOption}, {Name: "description", Type: bot.TextOption}},
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

// TestInbox_RestartPastGaps: ids missing below an update handled before
// the restart were passed by the reader before: the next one does not
// wait for them again.
func TestInbox_RestartPastGaps(t *testing.T) {
	clock := &fakeClock{now: inboxAt}
	inbox := watch(&memInbox{}, clock)
	e, n := webhookEnv(t, inbox, clock)
	botID := e.a.api.Self.ID
	// The process before handled 5 and 8 but not 6, which it was
	// handling when it died; 7 never came.
	handled(t, inbox.memInbox, botID, inboxAt, 5, 8)
	for _, u := range []struct {
		id   int
		from telegramtest.User
		text string
	}{{6, alice, "/note a1"}, {9, bob, "/note b1"}} {
		s, err := inboxUpdate(updateBody(u.id, u.from, u.text), inboxAt)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := inbox.AddUpdates(t.Context(), botID, []core.InboxUpdate{s}); err != nil {
			t.Fatal(err)
		}
	}
	e.start(t)
	n.waitRan(t, alice, "a1")
	n.waitRan(t, bob, "b1")
}
