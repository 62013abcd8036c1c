package discord

import (
	"context"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/bot"
)

// Discord accepts edits and follow-ups of an interaction for 15 minutes
// after its creation (the token's life). A Long command's reply that comes
// later than tokenLife-tokenMargin after it is posted as a message of its
// own; the margin leaves the last edit the time of a REST call
// (restTimeout) and clocks that disagree by a few seconds.
const (
	tokenLife   = 15 * time.Minute
	tokenMargin = 30 * time.Second
)

// answerLong answers a Long command (a Moment's upload). It defers the
// interaction at once, publicly, without waiting for AckAfter, then runs
// the command in a slot of its own (Adapter.longs) with a Request.Progress
// that edits the deferred response (see progress), and completes the
// deferral with the reply. A reply that comes when the interaction's token
// is about to expire, 14.5 minutes after createdAt, is posted as a message
// instead (lateReply); progress shown after then is dropped. When the
// deferral fails the command does not run: the member sees that the
// interaction failed and may try again, rather than a Moment posted with
// no word of it. acked is told once the deferral is sent (see
// limiter.acking).
func (a *Adapter) answerLong(ctx context.Context, s *discordgo.Session, i *discordgo.Interaction, j *job, createdAt time.Time, acked func()) {
	err := a.deferReply(ctx, s, i, false)
	acked()
	if err != nil {
		a.log.Warn("long command not run: its interaction could not be deferred", "command", j.req.Command, "interaction", i.ID)
		return
	}
	expires := createdAt.Add(tokenLife - tokenMargin)
	p := newProgress(func(r bot.Reply) {
		if a.now().After(expires) {
			a.log.Debug("progress not shown: the interaction's token is about to expire", "command", j.req.Command, "interaction", i.ID)
			return
		}
		_ = a.deliver(ctx, i, "edit progress", a.render(r), func(m message, o ...discordgo.RequestOption) error {
			_, err := s.InteractionResponseEdit(i, m.edit(), o...)
			return err
		})
	})
	j.req.Progress = p.show
	a.longs.queue()
	r := <-a.run(ctx, j, a.longs, false, time.Time{})
	p.stop()
	if a.now().After(expires) {
		a.lateReply(ctx, s, i, r)
		return
	}
	a.complete(ctx, s, i, r, false)
	a.log.Debug("long command answered", "command", j.req.Command, "took", a.now().Sub(createdAt))
}

// lateReply posts the reply of a Long command whose interaction token is
// about to expire as a message of its own (ChannelMessageSendComplex): in
// the interaction's channel, after a mention of the member (which pings no
// one) so that they find it; a personal reply in the member's DMs instead,
// never in the channel.
func (a *Adapter) lateReply(ctx context.Context, s *discordgo.Session, i *discordgo.Interaction, r bot.Reply) {
	who := caller(i).ExternalID
	channel := i.ChannelID
	switch {
	case r.Personal && i.GuildID != "":
		var dm *discordgo.Channel
		err := a.call(ctx, i, "open DM for a late reply", func(o ...discordgo.RequestOption) (err error) {
			dm, err = s.UserChannelCreate(who, o...)
			return err
		})
		if err != nil {
			return
		}
		channel = dm.ID
	case i.GuildID != "" && who != "":
		r.Text = "<@" + who + "> " + r.Text
	}
	_ = a.deliver(ctx, i, "post late reply", a.render(r), func(m message, o ...discordgo.RequestOption) error {
		send := &discordgo.MessageSend{
			Content: m.content, Embeds: m.embeds, Components: m.components, Files: m.files(), AllowedMentions: noMentions(),
		}
		_, err := s.ChannelMessageSendComplex(channel, send, o...)
		return err
	})
}

// progress shows a Long command's interim replies by editing its deferred
// response, one edit at a time, in the order the command made them. show
// never waits for Discord: it keeps only the latest reply not sent yet, so
// a slow Discord skips interim replies rather than slowing the upload, and
// an older reply never overwrites a newer one. stop waits for the edit
// being sent, so that none lands after the final reply.
type progress struct {
	edit func(bot.Reply)
	wake chan struct{} // a reply is pending
	quit chan struct{} // closed by stop
	done chan struct{} // closed when the loop ended

	mu      sync.Mutex
	pending *bot.Reply
	stopped bool
}

// newProgress starts the loop that sends the replies with edit.
func newProgress(edit func(bot.Reply)) *progress {
	p := &progress{edit: edit, wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go p.loop()
	return p
}

// show makes r the next reply to show, in place of one still pending; it
// does nothing once stopped.
func (p *progress) show(r bot.Reply) {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	p.pending = &r
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default: // the loop is woken already
	}
}

func (p *progress) loop() {
	defer close(p.done)
	for {
		select {
		case <-p.quit:
			return
		case <-p.wake:
			if r, ok := p.take(); ok {
				p.edit(r)
			}
		}
	}
}

// take returns the pending reply, if any and not stopped.
func (p *progress) take() (bot.Reply, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped || p.pending == nil {
		return bot.Reply{}, false
	}
	r := *p.pending
	p.pending = nil
	return r, true
}

// stop drops the pending reply and waits for the edit in flight, if any
// (bounded by restTimeout). Call it once.
func (p *progress) stop() {
	p.mu.Lock()
	p.stopped, p.pending = true, nil
	p.mu.Unlock()
	close(p.quit)
	<-p.done
}
