package discord

import (
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/internal/turns"
)

// created returns when an interaction was created, which its id (a
// snowflake) tells: Discord's three seconds run from then, not from when
// the event reached the bot, and an event that waited (in Discord's
// gateway, or in a busy bot's gateway reader) has that much less time left.
// The receipt time bounds the result, so that a clock behind Discord's
// never postpones a deferral; a creation more than discordDeadline before
// the receipt is taken for a clock ahead of Discord's, and ignored, so that
// such a clock does not have every command deferred.
func created(id string, received time.Time) time.Time {
	c, err := discordgo.SnowflakeTimestamp(id)
	if err == nil && c.Before(received) && received.Sub(c) <= discordDeadline {
		return c
	}
	return received
}

// limiter bounds the commands running at once (Options.MaxCommands). In a
// burst (a thousand members pressing Claim at once) what can fail is the
// acknowledgements, due within Discord's three seconds, and they need the
// CPU for the gateway reader and the calls; a deferred command has fifteen
// minutes. So an interaction that finds every slot taken, or commands
// queued already, is deferred at once, and its command waits until its
// interaction's acknowledgement window has closed, or until no interaction
// waits for its acknowledgement (acking), then for a slot. While a burst
// is being acknowledged, only the commands that started before it run.
//
// Waiting commands get the free slots in turns by member: the next slot
// goes to the member whose turn is next, each member's commands in the
// order they came. A member who sends forty commands at once so waits
// behind everyone else's next one, instead of filling every slot ahead of
// them (the issuing service's budget takes turns by member the same way,
// core.WithRequester).
type limiter struct {
	mu      sync.Mutex
	slots   int
	running int
	// queued counts the commands between queue and their slot: newcomers
	// wait behind them (tryStart).
	queued int
	// ready are the queued commands ready to start, by member: each
	// closes its channel when its slot is taken for it.
	ready turns.Queue[chan struct{}]
	// acks counts the interactions not acknowledged yet; quiet is closed
	// while there are none.
	acks  int
	quiet chan struct{}
	// after is time.After; tests replace it.
	after func(time.Duration) <-chan time.Time
}

func newLimiter(n int) *limiter {
	quiet := make(chan struct{})
	close(quiet)
	return &limiter{slots: n, quiet: quiet, after: time.After}
}

// acking counts an interaction waiting for its acknowledgement; the
// function it returns, called once it was acknowledged (or never will
// be), ends that, once however often it is called.
func (l *limiter) acking() (acked func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.acks == 0 {
		l.quiet = make(chan struct{})
	}
	l.acks++
	return sync.OnceFunc(func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.acks--; l.acks == 0 {
			close(l.quiet)
		}
	})
}

// tryStart takes a slot if one is free and no command is queued.
func (l *limiter) tryStart() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.queued > 0 || l.running >= l.slots {
		return false
	}
	l.running++
	return true
}

// queue counts a command that waits its turn with start; call it before
// the next interaction's tryStart.
func (l *limiter) queue() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.queued++
}

// start waits until notBefore or until no interaction waits for its
// acknowledgement, then for a slot in member's turn, for a queued command.
func (l *limiter) start(member string, notBefore time.Time) {
	if d := time.Until(notBefore); d > 0 {
		l.mu.Lock()
		quiet := l.quiet
		l.mu.Unlock()
		select {
		case <-quiet:
		case <-l.after(d):
		}
	}
	<-l.enter(member)
}

// enter puts a queued command of member among the ready ones; the channel
// closes when its slot is taken for it.
func (l *limiter) enter(member string) <-chan struct{} {
	ch := make(chan struct{})
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ready.Push(member, ch)
	l.hand()
	return ch
}

// release frees the slot of a command that ended, for the next in turn.
func (l *limiter) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running--
	l.hand()
}

// hand gives the free slots to the ready commands, one member's after
// another's. l.mu is held.
func (l *limiter) hand() {
	for l.running < l.slots && l.ready.Len() > 0 {
		ch, _ := l.ready.Pop()
		close(ch)
		l.running++
		l.queued--
	}
}
