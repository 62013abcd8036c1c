package telegram

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot"
)

// Long commands (bot.Command.Long: a Moment's upload) run for minutes:
// each in a goroutine of its own, outside the update slots and the update
// timeout, so that no other update waits for them; bounded by the
// command's Timeout (the update timeout when it has none), at most
// maxLong at once; Run waits for them when it stops. Their replies are
// public and answer the command's message where it was posted: the first
// interim reply (Request.Progress) is a message in reply to it, the later
// ones and the final reply edit that message.
const maxLong = 16

// errLongBusy means a long command waited its whole time for a turn.
var errLongBusy = errors.New("telegram: too many long commands at once")

// startLong runs a long command in the background, as work in flight.
func (a *Adapter) startLong(ctx context.Context, in incoming, cmd *bot.Command, req *bot.Request, line string) {
	timeout := cmd.Timeout
	if timeout <= 0 {
		timeout = a.opts.UpdateTimeout
	}
	a.mu.Lock()
	if end := time.Now().Add(timeout + a.opts.QueueWait + editTimeout); end.After(a.longEnd) {
		a.longEnd = end
	}
	a.mu.Unlock()
	// The update's own work is still in flight, so the count is not zero.
	a.inflight.Add(1)
	go func() {
		defer a.inflight.Done()
		defer a.recoverPanic("long command", in.key)
		a.runLong(context.WithoutCancel(ctx), in, req, line, timeout)
	}()
}

// runLong runs the command with a progress message, then delivers its
// final reply within editTimeout of its own. The command ends when the
// adapter stops (untilStop); its reply is still delivered.
func (a *Adapter) runLong(base context.Context, in incoming, req *bot.Request, line string, timeout time.Duration) {
	ctx, stop := a.untilStop(base)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var reply bot.Reply
	var ok bool
	var shown int
	select {
	case a.longSlots <- struct{}{}:
		reply, ok, shown = a.handleLong(ctx, in, req, line)
	case <-ctx.Done():
		a.log.Warn("telegram long command found no turn in time", "command", in.o.command, "chat_id", in.o.chat.ID)
		reply, ok = bot.Reply{Text: words(errLongBusy)}, true
	}
	if !ok {
		return
	}
	rctx, rcancel := context.WithTimeout(base, a.opts.QueueWait+editTimeout)
	defer rcancel()
	a.finishLong(rctx, in, shown, a.withPost(rctx, in.o, reply))
}

// handleLong runs the command, holding a turn, with a progress message;
// shown is that message's id, 0 when none was sent. The turn is given
// back and the progress stopped also should the handler panic.
func (a *Adapter) handleLong(ctx context.Context, in incoming, req *bot.Request, line string) (reply bot.Reply, ok bool, shown int) {
	defer func() { <-a.longSlots }()
	p := a.newProgress(in)
	req.Progress = p.set
	go p.run(ctx)
	defer func() { shown = p.stop() }()
	reply, ok = a.bot.HandleLine(ctx, req, line, a.username)
	return reply, ok, shown
}

// finishLong delivers a long command's final reply, always in the chat
// it came from: its pictures as a reply's, and its text in place of the
// progress message's (shown; 0 when none was sent). A text that needs
// more than one message or comes with a file, or an edit that fails (the
// message was deleted), is sent anew in reply to the command.
func (a *Adapter) finishLong(ctx context.Context, in incoming, shown int, r bot.Reply) {
	chatID := in.o.chat.ID
	r.Personal = false
	if shown != 0 && r.File == nil && strings.TrimSpace(r.Text) != "" && len(chunks(r.Text)) == 1 {
		if len(r.Pictures) > 0 {
			if err := a.sendPictures(ctx, chatID, r.Pictures); err != nil {
				a.log.Warn("telegram pictures not sent, sending the text without them", "chat_id", chatID, "pictures", len(r.Pictures), "err", err)
			}
			r.Pictures = nil
		}
		err := a.editText(ctx, chatID, shown, r.Text, r.Image, r.Buttons)
		if err == nil {
			return
		}
		a.log.Warn("telegram progress message not edited, replying anew", "chat_id", chatID, "message_id", shown, "err", err)
	}
	if err := a.sendReplyTo(ctx, chatID, in.messageID, r); err != nil {
		a.log.Warn("telegram reply not sent", "chat_id", chatID, "command", in.o.command, "err", err)
	}
}

// editText replaces the text (Markdown md, which fits in one message),
// link preview and buttons of a message the bot sent. An edit that
// changes nothing is not an error.
// See https://core.telegram.org/bots/api#editmessagetext.
func (a *Adapter) editText(ctx context.Context, chatID int64, messageID int, md, image string, buttons []bot.Button) error {
	p, err := a.textParams(chatID, md, image, buttons)
	if err != nil {
		return err
	}
	p.AddNonZero("message_id", messageID)
	_, err = a.textRequest(ctx, "editMessageText", p, md)
	var apiErr *tgbotapi.Error
	if errors.As(err, &apiErr) && strings.Contains(apiErr.Message, "message is not modified") {
		return nil
	}
	return err
}

// progress shows the interim replies of one long command as one message.
// The handler's calls never wait for Telegram: a single goroutine shows
// them in order, skipping those overtaken while it was busy.
type progress struct {
	a       *Adapter
	chatID  int64
	replyTo int
	kick    chan struct{}
	done    chan struct{}

	mu      sync.Mutex
	next    *bot.Reply
	stopped bool
	// message is the progress message's id once sent; run alone writes
	// it, stop reads it once run returned.
	message int
}

func (a *Adapter) newProgress(in incoming) *progress {
	return &progress{a: a, chatID: in.o.chat.ID, replyTo: in.messageID, kick: make(chan struct{}, 1), done: make(chan struct{})}
}

// set is Request.Progress: r is shown next, in place of whatever set
// before has not been shown yet.
func (p *progress) set(r bot.Reply) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.next = &r
	select {
	case p.kick <- struct{}{}:
	default: // run is kicked already and will take r
	}
}

// run shows interim replies until stop.
func (p *progress) run(ctx context.Context) {
	defer close(p.done)
	defer p.a.recoverPanic("progress", p.replyTo)
	for range p.kick {
		p.mu.Lock()
		r := p.next
		p.next = nil
		p.mu.Unlock()
		if r != nil && ctx.Err() == nil {
			p.show(ctx, *r)
		}
	}
}

// stop drops what was not shown yet, waits for what is being shown, and
// returns the progress message's id (0 when none was sent).
func (p *progress) stop() int {
	p.mu.Lock()
	p.stopped, p.next = true, nil
	close(p.kick)
	p.mu.Unlock()
	<-p.done
	return p.message
}

// show sends the progress message in reply to the command, or edits it.
// Interim replies are one message long: the first alone is shown.
func (p *progress) show(ctx context.Context, r bot.Reply) {
	if strings.TrimSpace(r.Text) == "" {
		return
	}
	md := chunks(r.Text)[0]
	if p.message != 0 {
		if err := p.a.editText(withPriority(ctx, prioEdit), p.chatID, p.message, md, "", r.Buttons); err != nil {
			p.a.log.Warn("telegram progress not shown", "chat_id", p.chatID, "message_id", p.message, "err", err)
		}
		return
	}
	params, err := p.a.textParams(p.chatID, md, "", r.Buttons)
	if err == nil {
		err = addReplyTo(params, p.replyTo)
	}
	if err == nil {
		p.message, err = p.a.textRequest(ctx, "sendMessage", params, md)
	}
	if err != nil {
		p.a.log.Warn("telegram progress not shown", "chat_id", p.chatID, "err", err)
	}
}
