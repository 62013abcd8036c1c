package telegram

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"sync"
	"testing"
	"time"
)

// floodClock is the scheduler's clock in tests: time moves only when the
// test says so, and each move schedules again, as the timer would.
type floodClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *floodClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// testFlood returns a scheduler on a clock of the test's, and a function
// that moves the clock on by d and schedules.
func testFlood(t *testing.T, limits Limits, wait time.Duration, obs Observer) (*flood, func(d time.Duration)) {
	t.Helper()
	c := &floodClock{now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	f := newFlood(limits, wait, obs, slog.New(slog.DiscardHandler))
	f.now = c.Now
	t.Cleanup(func() {
		f.mu.Lock()
		if f.timer != nil {
			f.timer.Stop()
		}
		f.mu.Unlock()
	})
	return f, func(d time.Duration) {
		c.mu.Lock()
		c.now = c.now.Add(d)
		c.mu.Unlock()
		f.wake()
	}
}

// enqueued counts the tickets ever queued.
func (f *flood) enqueued() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.takes
}

// waitEnqueued waits until n tickets were ever queued: a take running in
// another goroutine is then in the queue or granted.
func (f *flood) waitEnqueued(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for f.enqueued() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d tickets queued within 5 s, want %d", f.enqueued(), n)
		}
		runtime.Gosched()
	}
}

// turn is the outcome of one take.
type turn struct {
	name string
	done func()
	err  error
}

// taker takes turns in the background and reports them in order of grant.
type taker struct {
	t     *testing.T
	f     *flood
	turns chan turn
}

func newTaker(t *testing.T, f *flood) *taker {
	return &taker{t: t, f: f, turns: make(chan turn, 100)}
}

// take asks for a turn of n messages to chatID at priority p and waits
// until the scheduler holds it (queued or granted).
func (k *taker) take(name string, chatID int64, n int, p priority) {
	k.t.Helper()
	before := k.f.enqueued()
	go func() {
		done, err := k.f.take(withPriority(context.Background(), p), chatID, n, time.Time{})
		k.turns <- turn{name: name, done: done, err: err}
	}()
	k.f.waitEnqueued(k.t, before+1)
}

// granted returns the turns granted so far, in order, without waiting for
// more.
func (k *taker) granted() []turn {
	var out []turn
	for {
		select {
		case tr := <-k.turns:
			out = append(out, tr)
		default:
			return out
		}
	}
}

// next waits for the next turn.
func (k *taker) next() turn {
	k.t.Helper()
	select {
	case tr := <-k.turns:
		return tr
	case <-time.After(5 * time.Second):
		k.t.Fatal("no turn given within 5 s")
		return turn{}
	}
}

func names(ts []turn) []string {
	var out []string
	for _, tr := range ts {
		out = append(out, tr.name)
	}
	return out
}

func TestFlood_GlobalWindowAndPriorities(t *testing.T) {
	f, advance := testFlood(t, Limits{Global: Window{N: 2, Per: time.Second}}, time.Minute, nil)
	k := newTaker(t, f)
	k.take("r1", 1, 1, prioReply)
	k.take("r2", 2, 1, prioReply)
	first := []turn{k.next(), k.next()}
	// The window is full: the next ones wait, whatever their priority.
	k.take("notice", -3, 1, prioNotice)
	k.take("edit", -4, 1, prioEdit)
	k.take("r3", 5, 1, prioReply)
	if got := k.granted(); len(got) != 0 {
		t.Fatalf("granted %v with the window full", names(got))
	}
	// Counted from the answers, not the starts: a second after the
	// requests left, with no answer yet, nothing leaves the window.
	advance(time.Second)
	if got := k.granted(); len(got) != 0 {
		t.Fatalf("granted %v before any answer came back", names(got))
	}
	first[0].done()
	advance(999 * time.Millisecond)
	if got := k.granted(); len(got) != 0 {
		t.Fatalf("granted %v within a second of the answer", names(got))
	}
	// One place frees: the reply takes it, though it came last.
	advance(time.Millisecond)
	if tr := k.next(); tr.name != "r3" {
		t.Fatalf("granted %s, want r3: replies before edits and notices", tr.name)
	}
	first[1].done()
	advance(time.Second)
	if tr := k.next(); tr.name != "edit" {
		t.Fatalf("granted %s, want the edit: edits before notices", tr.name)
	}
	if got := k.granted(); len(got) != 0 {
		t.Fatalf("granted %v, want the notice to wait for a place", names(got))
	}
}

func TestFlood_ChatLimitsHoldOnlyTheirChat(t *testing.T) {
	f, advance := testFlood(t, Limits{Global: Window{N: 100, Per: time.Second}}, 5*time.Minute, nil)
	k := newTaker(t, f)
	// A group takes 20 a minute: the 21st waits, a private chat does not.
	for range 20 {
		k.take("group", -100, 1, prioReply)
	}
	for range 20 {
		k.next().done()
	}
	k.take("group21", -100, 1, prioReply)
	k.take("private1", 7, 1, prioReply)
	if tr := k.next(); tr.name != "private1" {
		t.Fatalf("granted %s, want the private chat's message past the full group", tr.name)
	}
	// A private chat takes 3 in 3 s; an album counts one there.
	k.take("private2", 7, 10, prioReply)
	k.take("private3", 7, 1, prioReply)
	for range 2 {
		k.next().done()
	}
	k.take("private4", 7, 1, prioReply)
	if got := k.granted(); len(got) != 0 {
		t.Fatalf("granted %v: the private chat had its 3 messages", names(got))
	}
	advance(3 * time.Second)
	if tr := k.next(); tr.name != "private4" {
		t.Errorf("granted %s, want private4 once 3 s passed", tr.name)
	}
	if got := k.granted(); len(got) != 0 {
		t.Fatalf("granted %v: the group's 21st is held a minute", names(got))
	}
	advance(57 * time.Second)
	if tr := k.next(); tr.name != "group21" {
		t.Errorf("granted %s, want group21 a minute after the first 20", tr.name)
	}
}

// testObserver counts what the scheduler reports.
type testObserver struct {
	mu        sync.Mutex
	throttled int
	dropped   map[string]int
	queue     int
}

func (o *testObserver) SetTelegramQueue(n int) { o.mu.Lock(); o.queue = n; o.mu.Unlock() }
func (o *testObserver) CountTelegramThrottled() {
	o.mu.Lock()
	o.throttled++
	o.mu.Unlock()
}

func (o *testObserver) CountTelegramDropped(p string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.dropped == nil {
		o.dropped = map[string]int{}
	}
	o.dropped[p]++
}
func (o *testObserver) ObserveTelegramReply(time.Duration) {}
func (o *testObserver) SetTelegramBacklog(int)             {}

func TestFlood_DeadlineDrops(t *testing.T) {
	obs := &testObserver{}
	f, advance := testFlood(t, Limits{Global: Window{N: 1, Per: time.Second}}, 2*time.Minute, obs)
	k := newTaker(t, f)
	k.take("first", 1, 1, prioReply)
	hold := k.next() // never answered: the window stays full
	k.take("late", 2, 1, prioEdit)
	advance(2*time.Minute - time.Millisecond)
	if got := k.granted(); len(got) != 0 {
		t.Fatalf("granted or dropped %v before the deadline", names(got))
	}
	advance(time.Millisecond)
	tr := k.next()
	if !errors.Is(tr.err, errQueueDeadline) {
		t.Errorf("take() = %v, want errQueueDeadline at the deadline", tr.err)
	}
	obs.mu.Lock()
	if obs.dropped["edit"] != 1 || obs.queue != 0 {
		t.Errorf("observer: dropped %v, queue %d; want one edit dropped, queue 0", obs.dropped, obs.queue)
	}
	obs.mu.Unlock()
	hold.done()
}

func TestFlood_CancelLeavesTheQueue(t *testing.T) {
	f, _ := testFlood(t, Limits{Global: Window{N: 1, Per: time.Second}}, time.Minute, nil)
	k := newTaker(t, f)
	k.take("first", 1, 1, prioReply)
	defer k.next().done()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	before := f.enqueued()
	go func() {
		_, err := f.take(ctx, 2, 1, time.Time{})
		errc <- err
	}()
	f.waitEnqueued(t, before+1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("take() = %v, want context.Canceled", err)
	}
	if n := f.depth(); n != 0 {
		t.Errorf("queue depth %d after the cancel, want 0", n)
	}
}

func TestFlood_429PausesTheChatOrAll(t *testing.T) {
	obs := &testObserver{}
	f, advance := testFlood(t, Limits{}, time.Hour, obs)
	k := newTaker(t, f)
	// One chat refused: only that chat waits.
	f.refusedBy(1, 5*time.Second)
	k.take("chat1", 1, 1, prioReply)
	k.take("chat2", 2, 1, prioReply)
	if tr := k.next(); tr.name != "chat2" {
		t.Fatalf("granted %s, want chat2 while chat1 is paused", tr.name)
	}
	advance(5 * time.Second)
	if tr := k.next(); tr.name != "chat1" {
		t.Fatalf("granted %s, want chat1 after its 5 s", tr.name)
	}
	// Three chats refused within a second: Telegram's global limit,
	// every chat waits.
	f.refusedBy(3, 2*time.Second)
	advance(500 * time.Millisecond)
	f.refusedBy(4, 2*time.Second)
	k.take("chat6", 6, 1, prioReply)
	if tr := k.next(); tr.name != "chat6" {
		t.Fatalf("granted %s, want chat6: two chats refused pause only themselves", tr.name)
	}
	f.refusedBy(5, 2*time.Second)
	k.take("chat5", 5, 1, prioReply)
	if got := k.granted(); len(got) != 0 {
		t.Fatalf("granted %v during a global pause", names(got))
	}
	advance(2 * time.Second)
	if tr := k.next(); tr.name != "chat5" {
		t.Errorf("granted %s, want chat5 after the global pause", tr.name)
	}
	obs.mu.Lock()
	if obs.throttled != 4 {
		t.Errorf("observer counted %d 429s, want 4", obs.throttled)
	}
	obs.mu.Unlock()
}

// TestFlood_TimerArmedBesideInFlight: a message held by a chat whose
// window is full of requests still on their way (no time to wait for, only
// an answer) does not keep the timer from waking a message held by
// another chat's answered messages.
func TestFlood_TimerArmedBesideInFlight(t *testing.T) {
	f, advance := testFlood(t, Limits{Global: Window{N: 100, Per: time.Second}}, time.Minute, nil)
	k := newTaker(t, f)
	for range 3 {
		k.take("answered", 7, 1, prioReply)
		k.next().done()
	}
	for range 3 {
		k.take("on its way", 8, 1, prioReply)
		k.next() // never answered
	}
	k.take("after answered", 7, 1, prioReply)
	k.take("after on its way", 8, 1, prioReply)
	f.mu.Lock()
	want := f.now().Add(3 * time.Second)
	f.mu.Unlock()
	// The timer fires early (any wake schedules again): it must be armed
	// anew for chat 7.
	advance(time.Second)
	f.mu.Lock()
	wake := f.wakeAt
	f.mu.Unlock()
	if !wake.Equal(want) {
		t.Errorf("timer armed for %v, want %v (when chat 7's window frees)", wake, want)
	}
	advance(2 * time.Second)
	if tr := k.next(); tr.name != "after answered" {
		t.Errorf("granted %s, want chat 7's fourth message", tr.name)
	}
}
