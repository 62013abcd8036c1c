package discord

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"runtime/debug"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/bot"
)

// Notes left on a deferred response whose visibility differs from the
// reply's; the reply itself follows as a follow-up.
const (
	notePrivate = "Answered privately."
	notePublic  = "Posted in the channel."
)

// onInteraction answers one interaction. The command runs in its own
// goroutine: when it finishes within AckAfter of the interaction's creation
// its reply is the response; otherwise the interaction is deferred then,
// within Discord's three seconds, and the reply completes the deferral when
// the command ends. When the adapter is busy (see limiter), the interaction
// is deferred at once and its command waits its turn. A Long command is
// deferred at once and shows its progress (see answerLong).
func (a *Adapter) onInteraction(ctx context.Context, s *discordgo.Session, i *discordgo.Interaction) {
	received := time.Now()
	if !a.begin() {
		a.log.Warn("interaction arrived while closing, not answered", "interaction", i.ID)
		return
	}
	defer a.inflight.Done()
	acked := a.limit.acking()
	defer acked()
	j, err := a.job(s, i)
	if err != nil {
		a.notOurs(ctx, s, i)
		return
	}
	createdAt := created(i.ID, received)
	if j.long {
		a.answerLong(ctx, s, i, j, createdAt, acked)
		return
	}
	deferAt := createdAt.Add(a.ackAfter)
	started := a.limit.tryStart()
	if !started {
		deferAt = received
		a.limit.queue()
	}
	done := a.run(ctx, j, a.limit, started, createdAt.Add(discordDeadline))
	timer := time.NewTimer(time.Until(deferAt))
	defer timer.Stop()
	select {
	case r := <-done:
		a.respond(ctx, s, i, r)
		acked()
		a.log.Debug("interaction answered", "command", j.req.Command, "took", time.Since(received))
		return
	case <-timer.C:
	}
	private := !j.public
	err = a.deferReply(ctx, s, i, private)
	acked()
	if err != nil {
		return // too late or refused; the command still completes in the bot
	}
	a.complete(ctx, s, i, <-done, private)
	a.log.Debug("interaction answered after deferral", "command", j.req.Command, "took", time.Since(received))
}

// run runs the job in its own goroutine, in a slot of l, and delivers its
// reply: at once when the caller started it, else once it is its turn,
// not before notBefore. A panic becomes an apology and a log line: no
// command may crash the bot.
func (a *Adapter) run(ctx context.Context, j *job, l *limiter, started bool, notBefore time.Time) <-chan bot.Reply {
	done := make(chan bot.Reply, 1)
	go func() {
		if !started {
			l.start(j.req.Caller.ExternalID, notBefore)
		}
		defer l.release()
		defer func() {
			if p := recover(); p != nil {
				a.log.Error("command panicked", "command", j.req.Command, "panic", p, "stack", string(debug.Stack()))
				done <- bot.Reply{Text: "Sorry, something went wrong on my side. Please try again in a minute.", Personal: true}
			}
		}()
		done <- j.run(ctx)
	}()
	return done
}

// notOurs answers a button the adapter did not make, so that the member
// does not see "This interaction failed"; other interactions are ignored.
func (a *Adapter) notOurs(ctx context.Context, s *discordgo.Session, i *discordgo.Interaction) {
	if i.Type != discordgo.InteractionMessageComponent {
		a.log.Debug("interaction ignored", "interaction", i.ID, "type", i.Type.String())
		return
	}
	a.respond(ctx, s, i, bot.Reply{Text: "That button no longer works.", Personal: true})
}

// respond answers with the reply itself (callback type 4).
func (a *Adapter) respond(ctx context.Context, s *discordgo.Session, i *discordgo.Interaction, r bot.Reply) {
	_ = a.deliver(ctx, i, "respond", a.render(r), func(m message, o ...discordgo.RequestOption) error {
		resp := &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: m.response(r.Personal),
		}
		return s.InteractionRespond(i, resp, o...)
	})
}

// deferReply acknowledges with a loading message (callback type 5),
// ephemeral when private.
func (a *Adapter) deferReply(ctx context.Context, s *discordgo.Session, i *discordgo.Interaction, private bool) error {
	resp := &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseDeferredChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Flags: flags(private)},
	}
	return a.call(ctx, i, "defer", func(o ...discordgo.RequestOption) error {
		return s.InteractionRespond(i, resp, o...)
	})
}

// complete replaces the loading message with the reply. A message's
// visibility cannot change, and a follow-up sent while the deferral loads
// would take its place and its visibility; so when the reply's visibility
// differs, the deferral becomes a short note, the reply follows with its own
// visibility, and the note is deleted.
func (a *Adapter) complete(ctx context.Context, s *discordgo.Session, i *discordgo.Interaction, r bot.Reply, private bool) {
	edit := func(m message, o ...discordgo.RequestOption) error {
		_, err := s.InteractionResponseEdit(i, m.edit(), o...)
		return err
	}
	if r.Personal == private {
		_ = a.deliver(ctx, i, "edit response", a.render(r), edit)
		return
	}
	note := message{content: notePublic, embeds: []*discordgo.MessageEmbed{}, components: []discordgo.MessageComponent{}}
	if r.Personal {
		note.content = notePrivate
	}
	err := a.deliver(ctx, i, "edit response", note, edit)
	if err == nil {
		err = a.deliver(ctx, i, "follow up", a.render(r), func(m message, o ...discordgo.RequestOption) error {
			_, err := s.FollowupMessageCreate(i, true, m.followup(r.Personal), o...)
			return err
		})
	}
	if err == nil {
		_ = a.call(ctx, i, "delete note", func(o ...discordgo.RequestOption) error {
			return s.InteractionResponseDelete(i, o...)
		})
	}
}

// deliver sends a message with send. When Discord refuses the message
// itself (400: an image or a button it does not accept), it sends the text
// alone, so that the member still gets an answer.
func (a *Adapter) deliver(ctx context.Context, i *discordgo.Interaction, what string, m message, send func(message, ...discordgo.RequestOption) error) error {
	err := a.call(ctx, i, what, func(o ...discordgo.RequestOption) error { return send(m, o...) })
	var re *discordgo.RESTError
	if !errors.As(err, &re) || re.Response == nil || re.Response.StatusCode != http.StatusBadRequest ||
		(len(m.embeds) == 0 && len(m.components) == 0) {
		return err
	}
	m.embeds, m.components = []*discordgo.MessageEmbed{}, []discordgo.MessageComponent{}
	return a.call(ctx, i, what+" as text", func(o ...discordgo.RequestOption) error { return send(m, o...) })
}

// call makes one REST call about an interaction, bounded by restTimeout
// (discordgo retries a 429 until the context ends), and logs a failure:
// Discord's errors such as 10062 Unknown interaction never go further. Its
// context outlives ctx, so that the reply to a command that was running
// when Run stopped still goes out.
func (a *Adapter) call(ctx context.Context, i *discordgo.Interaction, what string, f func(...discordgo.RequestOption) error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restTimeout)
	defer cancel()
	err := f(discordgo.WithContext(ctx))
	if err != nil {
		a.log.Warn("discord call failed", "call", what, "interaction", i.ID, "err", redact(err))
	}
	return err
}

// redact drops the URL from transport errors: interaction and webhook URLs
// carry the interaction token.
func redact(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Op + ": " + ue.Err.Error()
	}
	return err.Error()
}
