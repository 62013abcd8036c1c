package telegram

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// Flood control. The Bot API lets a bot send about 30 messages a second in
// all, about one a second to one private chat (short bursts allowed) and
// 20 a minute to one group, and answers 429 with retry_after past that.
// Every call that sends or edits a message goes through the adapter's one
// flood scheduler, which holds those limits before Telegram has to, serves
// personal replies first, then edits of posts and progress messages, then
// notices, and drops what waited longer than its deadline with a log line
// and a metric, never silently.
//
// The limits are sliding windows: at most N messages in any window of
// length Per. A message counts in a window from the moment its request
// leaves until Per after its answer came back: counting from the answer
// rather than the start keeps the count on Telegram's side, which sees the
// request arrive somewhere in between, within the limit however requests
// are reordered on their way. On a link with latency L the bot so sends N
// messages every Per+L at most, a little under the limit.

// Window is one flood limit: at most N messages in any window of Per.
// The zero Window is no limit.
type Window struct {
	N   int
	Per time.Duration
}

// Limits are the flood limits the adapter holds. A zero field is its
// default in DefaultLimits.
type Limits struct {
	// Global bounds the messages to all chats together (TELEGRAM_RATE a
	// second).
	Global Window
	// Private bounds the messages to one private chat; an album counts
	// as one there.
	Private Window
	// Group bounds the messages to one group, an album counting each of
	// its items, edits of the bot's own messages included.
	Group Window
}

// DefaultLimits are the Bot API's limits as the adapter models them.
// See https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this.
var DefaultLimits = Limits{
	Global:  Window{N: 30, Per: time.Second},
	Private: Window{N: 3, Per: 3 * time.Second},
	Group:   Window{N: 20, Per: time.Minute},
}

// DefaultQueueWait is Options.QueueWait's default: how long a message may
// wait for its turn before it is dropped.
const DefaultQueueWait = 2 * time.Minute

// withDefaults fills the zero windows from DefaultLimits.
func (l Limits) withDefaults() Limits {
	if l.Global.N <= 0 || l.Global.Per <= 0 {
		l.Global = DefaultLimits.Global
	}
	if l.Private.N <= 0 || l.Private.Per <= 0 {
		l.Private = DefaultLimits.Private
	}
	if l.Group.N <= 0 || l.Group.Per <= 0 {
		l.Group = DefaultLimits.Group
	}
	return l
}

// priority orders the messages waiting for their turn: lower first.
type priority int

const (
	// prioReply: replies to members' commands, and notes about them.
	prioReply priority = iota
	// prioEdit: edits of published claim posts and of progress messages.
	prioEdit
	// prioNotice: notices posted beside claim posts.
	prioNotice
	priorities
)

// String names the priority, for logs and metric labels.
func (p priority) String() string {
	switch p {
	case prioReply:
		return "reply"
	case prioEdit:
		return "edit"
	}
	return "notice"
}

type priorityKey struct{}

// withPriority marks the messages sent under ctx as being of priority p;
// unmarked ones are replies.
func withPriority(ctx context.Context, p priority) context.Context {
	return context.WithValue(ctx, priorityKey{}, p)
}

func priorityOf(ctx context.Context) priority {
	if p, ok := ctx.Value(priorityKey{}).(priority); ok {
		return p
	}
	return prioReply
}

// errQueueDeadline means a message waited its whole deadline for its turn
// and was dropped.
var errQueueDeadline = errors.New("telegram: message dropped after waiting its deadline in the send queue")

// Observer is told what the adapter's flood scheduler and inbox do, for
// metrics; web.Metrics satisfies it.
type Observer interface {
	// SetTelegramQueue reports how many messages wait for their turn.
	SetTelegramQueue(n int)
	// CountTelegramThrottled counts one 429 received from the Bot API.
	CountTelegramThrottled()
	// CountTelegramDropped counts one message dropped at its deadline, by
	// priority ("reply", "edit", "notice").
	CountTelegramDropped(priority string)
	// ObserveTelegramReply records the time from an update's arrival to
	// the first message the bot sent in answer.
	ObserveTelegramReply(d time.Duration)
	// SetTelegramBacklog reports how many stored updates wait to be
	// handled.
	SetTelegramBacklog(n int)
}

// flood is the scheduler. Each message takes a ticket, waits for its turn
// (take), is sent, and gives its turn back (the returned done); a 429
// pauses its chat, or every chat when several are refused at once.
type flood struct {
	limits Limits
	wait   time.Duration
	obs    Observer
	log    *slog.Logger
	now    func() time.Time

	mu      sync.Mutex
	queue   [priorities][]*ticket
	global  window
	chats   map[int64]*window
	paused  map[int64]time.Time // chats paused by a 429, until
	all     time.Time           // every chat paused until
	refused []refusal           // recent 429s, to tell a global one
	timer   *time.Timer
	wakeAt  time.Time
	// takes counts the tickets ever queued, for tests to wait on.
	takes int
}

// refusal is one 429: which chat, when.
type refusal struct {
	chat int64
	at   time.Time
}

// 429s of globalChats different chats within globalRefusals are taken for
// Telegram's global limit rather than each chat's own: one chat refused,
// or two busy groups, pause only themselves.
const (
	globalRefusals = time.Second
	globalChats    = 3
)

// ticket is one message waiting for its turn.
type ticket struct {
	chat     int64
	n        int // messages it counts: the items of an album
	prio     priority
	since    time.Time // when it first asked for a turn
	deadline time.Time
	granted  chan []*stamp // receives the stamps to complete; closed when dropped
}

// stamp is one message's place in a window: zero while its request is on
// its way, then when its answer came back.
type stamp struct{ at time.Time }

// window is the recent messages counted against one limit.
type window struct{ stamps []*stamp }

func newFlood(limits Limits, wait time.Duration, obs Observer, log *slog.Logger) *flood {
	return &flood{
		limits: limits.withDefaults(), wait: wait, obs: obs, log: log, now: time.Now,
		chats: map[int64]*window{}, paused: map[int64]time.Time{},
	}
}

// take waits for the turn of n messages to chatID, at the priority ctx
// carries, until deadline (zero: the scheduler's wait from now). It
// returns done, to call once the answer came back, or errQueueDeadline,
// or ctx's error.
func (f *flood) take(ctx context.Context, chatID int64, n int, deadline time.Time) (done func(), err error) {
	now := f.now()
	if deadline.IsZero() {
		deadline = now.Add(f.wait)
	}
	t := &ticket{chat: chatID, n: max(n, 1), prio: priorityOf(ctx), since: now, deadline: deadline, granted: make(chan []*stamp, 1)}
	f.mu.Lock()
	f.queue[t.prio] = append(f.queue[t.prio], t)
	f.takes++
	f.scheduleLocked()
	f.mu.Unlock()
	select {
	case stamps, ok := <-t.granted:
		if !ok {
			return nil, errQueueDeadline
		}
		return f.completer(stamps), nil
	case <-ctx.Done():
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case stamps, ok := <-t.granted: // granted or dropped meanwhile
		if !ok {
			return nil, errQueueDeadline
		}
		f.completeLocked(stamps) // not sent, but counted as if: the safe side
	default:
		f.removeLocked(t)
		// Its caller gave up (the update's time ran out, a shutdown):
		// dropped all the same, and said so.
		f.log.Warn("telegram message dropped: its sender gave up waiting for a turn under the flood limits",
			"chat_id", t.chat, "priority", t.prio.String(), "waited", f.now().Sub(t.since).Round(time.Millisecond), "err", ctx.Err())
		f.countDropLocked(t)
	}
	f.scheduleLocked()
	return nil, ctx.Err()
}

// completer returns the done of a granted turn: it stamps the answer's
// time, once.
func (f *flood) completer(stamps []*stamp) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.completeLocked(stamps)
			f.scheduleLocked()
		})
	}
}

func (f *flood) completeLocked(stamps []*stamp) {
	now := f.now()
	for _, s := range stamps {
		s.at = now
	}
}

// refusedBy records a 429 for chatID asking to wait retryAfter: the chat
// is paused that long, and every chat when other chats were refused
// within globalRefusals (Telegram's global limit).
func (f *flood) refusedBy(chatID int64, retryAfter time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	until := now.Add(retryAfter)
	if until.After(f.paused[chatID]) {
		f.paused[chatID] = until
	}
	recent := f.refused[:0]
	chats := map[int64]bool{chatID: true}
	for _, r := range f.refused {
		if now.Sub(r.at) < globalRefusals {
			recent = append(recent, r)
			chats[r.chat] = true
		}
	}
	f.refused = append(recent, refusal{chat: chatID, at: now})
	global := len(chats) >= globalChats
	if global && until.After(f.all) {
		f.all = until
		f.log.Warn("telegram flood limit reached in several chats, pausing every send", "retry_after", retryAfter)
	}
	if f.obs != nil {
		f.obs.CountTelegramThrottled()
	}
	f.scheduleLocked()
}

// depth returns how many messages wait for their turn.
func (f *flood) depth() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queuedLocked()
}

func (f *flood) queuedLocked() int {
	n := 0
	for _, q := range f.queue {
		n += len(q)
	}
	return n
}

// removeLocked takes t out of its queue.
func (f *flood) removeLocked(t *ticket) {
	f.queue[t.prio] = slices.DeleteFunc(f.queue[t.prio], func(x *ticket) bool { return x == t })
}

// scheduleLocked grants every waiting message whose turn it is, highest
// priority first and in order of arrival within one, drops those past
// their deadline, and sets the timer for the next change. A message held
// by its own chat's limit does not hold up other chats; the global limit
// holds every one.
func (f *flood) scheduleLocked() {
	now := f.now()
	next := time.Time{}
	later := func(t time.Time) {
		// A zero time is no time: the wait ends with an answer, which
		// schedules again.
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	globalFull := false
	// A chat whose message waits holds its later ones (of any priority)
	// too: one chat's messages go out in order.
	blocked := map[int64]bool{}
	for p := range f.queue {
		kept := f.queue[p][:0]
		for _, t := range f.queue[p] {
			if !now.Before(t.deadline) {
				f.dropLocked(t, now)
				continue
			}
			later(t.deadline)
			if !globalFull && !blocked[t.chat] {
				if free, at := f.freeGlobalLocked(now, t.n); !free {
					globalFull = true
					later(at)
				} else if ok, at := f.freeChatLocked(now, t); ok {
					f.grantLocked(t)
					continue
				} else {
					blocked[t.chat] = true
					later(at)
				}
			}
			kept = append(kept, t)
		}
		clear(f.queue[p][len(kept):])
		f.queue[p] = kept
	}
	if f.obs != nil {
		f.obs.SetTelegramQueue(f.queuedLocked())
	}
	f.pruneLocked(now)
	f.armLocked(now, next)
}

// freeGlobalLocked reports whether n more messages fit the global limit
// now; when not, at is when to look again (zero: when an answer comes).
func (f *flood) freeGlobalLocked(now time.Time, n int) (bool, time.Time) {
	if now.Before(f.all) {
		return false, f.all
	}
	return f.global.free(now, f.limits.Global, n)
}

// freeChatLocked reports whether t fits its chat's limit and no 429
// pauses the chat; when not, at is when to look again.
func (f *flood) freeChatLocked(now time.Time, t *ticket) (bool, time.Time) {
	if until := f.paused[t.chat]; now.Before(until) {
		return false, until
	}
	w, lim, n := f.chats[t.chat], f.chatLimit(t.chat), t.n
	if t.chat > 0 {
		n = 1
	}
	if w == nil {
		return true, time.Time{}
	}
	return w.free(now, lim, n)
}

// chatLimit is the limit of one chat: negative ids are groups and
// channels, positive ones private chats.
func (f *flood) chatLimit(chatID int64) Window {
	if chatID < 0 {
		return f.limits.Group
	}
	return f.limits.Private
}

// grantLocked gives t its turn: its messages enter the windows, their
// stamps to be completed by done.
func (f *flood) grantLocked(t *ticket) {
	var stamps []*stamp
	for range t.n {
		s := &stamp{}
		f.global.stamps = append(f.global.stamps, s)
		stamps = append(stamps, s)
	}
	w := f.chats[t.chat]
	if w == nil {
		w = &window{}
		f.chats[t.chat] = w
	}
	n := t.n
	if t.chat > 0 {
		n = 1
	}
	for i := range n {
		w.stamps = append(w.stamps, stamps[i])
	}
	t.granted <- stamps
}

// dropLocked drops a message whose deadline passed, saying so.
func (f *flood) dropLocked(t *ticket, now time.Time) {
	close(t.granted)
	f.log.Warn("telegram message dropped: it waited its whole deadline for a turn under the flood limits",
		"chat_id", t.chat, "priority", t.prio.String(), "waited", now.Sub(t.since).Round(time.Millisecond))
	f.countDropLocked(t)
}

func (f *flood) countDropLocked(t *ticket) {
	if f.obs != nil {
		f.obs.CountTelegramDropped(t.prio.String())
	}
}

// pruneLocked forgets the windows of chats with nothing counted and the
// pauses that ended, so that memory follows the chats active lately.
func (f *flood) pruneLocked(now time.Time) {
	for id, w := range f.chats {
		w.prune(now, f.chatLimit(id))
		if len(w.stamps) == 0 {
			delete(f.chats, id)
		}
	}
	for id, until := range f.paused {
		if !now.Before(until) {
			delete(f.paused, id)
		}
	}
}

// armLocked sets the timer to schedule again at next (none when zero).
func (f *flood) armLocked(now, next time.Time) {
	if next.IsZero() || (!f.wakeAt.IsZero() && !next.Before(f.wakeAt) && f.wakeAt.After(now)) {
		return
	}
	f.wakeAt = next
	d := max(next.Sub(now), 0)
	if f.timer == nil {
		f.timer = time.AfterFunc(d, f.wake)
		return
	}
	f.timer.Reset(d)
}

func (f *flood) wake() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.wakeAt = time.Time{}
	f.scheduleLocked()
}

// free reports whether n more messages fit the limit lim now, forgetting
// the stamps that left the window; when not, at is when enough answered
// ones will have left it (zero when too many requests are still on their
// way: their answers schedule again). More than lim.N messages at once (an
// album over a small limit) fit an empty window.
func (w *window) free(now time.Time, lim Window, n int) (bool, time.Time) {
	w.prune(now, lim)
	if len(w.stamps) == 0 || len(w.stamps)+n <= lim.N {
		return true, time.Time{}
	}
	need := min(len(w.stamps)+n-lim.N, len(w.stamps))
	var answered []time.Time
	for _, s := range w.stamps {
		if !s.at.IsZero() {
			answered = append(answered, s.at)
		}
	}
	if len(answered) < need {
		return false, time.Time{}
	}
	slices.SortFunc(answered, time.Time.Compare)
	return false, answered[need-1].Add(lim.Per)
}

// prune forgets the answered stamps older than the window.
func (w *window) prune(now time.Time, lim Window) {
	kept := w.stamps[:0]
	for _, s := range w.stamps {
		if s.at.IsZero() || now.Sub(s.at) < lim.Per {
			kept = append(kept, s)
		}
	}
	clear(w.stamps[len(kept):])
	w.stamps = kept
}
