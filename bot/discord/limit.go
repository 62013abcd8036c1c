package discord

import (
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
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
// interaction's acknowledgement window has closed, then for a slot. While
// a burst is being acknowledged, only the commands that started before it
// run.
type limiter struct {
	slots  chan struct{}
	queued atomic.Int64
}

func newLimiter(n int) *limiter { return &limiter{slots: make(chan struct{}, n)} }

// tryStart takes a slot if one is free and no command is queued.
func (l *limiter) tryStart() bool {
	if l.queued.Load() > 0 {
		return false
	}
	select {
	case l.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

// queue counts a command that waits its turn with start; call it before
// the next interaction's tryStart.
func (l *limiter) queue() { l.queued.Add(1) }

// start waits until notBefore, then for a slot, for a queued command.
func (l *limiter) start(notBefore time.Time) {
	if d := time.Until(notBefore); d > 0 {
		<-time.After(d)
	}
	l.slots <- struct{}{}
	l.queued.Add(-1)
}

// release frees the slot of a command that ended.
func (l *limiter) release() { <-l.slots }
