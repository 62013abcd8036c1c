package telegram

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// allowedUpdates are the update kinds the adapter asks for, set explicitly
// on getUpdates and setWebhook: left out, Telegram keeps whatever was set
// before. chat_join_request feeds gating (Options.JoinRequests). Features
// that need more (chat_member) add theirs here.
var allowedUpdates = []string{"message", "callback_query", "chat_join_request"}

// privateHint answers text that is not a command in the private chat.
const privateHint = "Commands start with a slash. Type /help to see what I can do."

// origin is where a command came from and who sent it.
type origin struct {
	chat *tgbotapi.Chat
	from *tgbotapi.User
	// anonymous is an administrator who posted as the group (see
	// sender): from is then GroupAnonymousBot, not them.
	anonymous bool
	// command is the command word, for the deep link of a group note.
	command string
}

func (o origin) private() bool { return o.chat.IsPrivate() }

// originOf is where message m came from and who sent it.
func originOf(m *tgbotapi.Message) origin {
	return origin{chat: m.Chat, from: m.From, anonymous: senderOf(m) == senderAnonymousAdmin}
}

// handleUpdate handles one update within the per-update timeout, and its
// replies' wait for their turn (Options.QueueWait). A panic is logged,
// never fatal: nothing a member sends may stop the bot.
func (a *Adapter) handleUpdate(ctx context.Context, u tgbotapi.Update) {
	ctx, cancel := context.WithTimeout(ctx, a.opts.UpdateTimeout+a.opts.QueueWait)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			a.log.Error("telegram update handler panicked", "update_id", u.UpdateID, "panic", p)
		}
	}()
	switch {
	case u.Message != nil:
		a.handleMessage(ctx, u.Message)
	case u.CallbackQuery != nil:
		a.handleCallback(ctx, u.CallbackQuery)
	case u.ChatJoinRequest != nil:
		a.handleJoinRequest(ctx, u.ChatJoinRequest)
	}
}

// incoming is a message, or an album, that may carry a command.
type incoming struct {
	o origin
	// messageID is the message whose text or caption line is; replies of
	// long commands answer it.
	messageID int
	line      string
	// media are the files that came with the line: the message's own, its
	// album's, or those of the message it replies to.
	media []bot.Media
	// key is the request's Key (see bot.Request).
	key string
}

// handleMessage runs a command typed in a private chat or a group, or
// written as the caption of a photo, video, animation or document. The
// items of an album are collected first (album.go). Messages of senders that
// are not people (see sender) run nothing; an anonymous administrator's run
// as the group's administrator's.
func (a *Adapter) handleMessage(ctx context.Context, m *tgbotapi.Message) {
	if m.Chat == nil || m.From == nil {
		return
	}
	switch senderOf(m) {
	case senderBot:
		return
	case senderChat:
		a.notAPerson(ctx, m)
		return
	}
	if m.MediaGroupID != "" && a.collect(m) {
		return
	}
	a.handleIncoming(ctx, a.single(m))
}

// single is the incoming of one message: its text or caption, with its
// own file or, when it has none, that of the message it replies to (only
// that message's, also when it belongs to an album; refused when another
// member sent it).
func (a *Adapter) single(m *tgbotapi.Message) incoming {
	in := incoming{
		o: originOf(m), messageID: m.MessageID, line: m.Text,
		key: fmt.Sprintf("telegram:%d:%d", m.Chat.ID, m.MessageID),
	}
	if in.line == "" {
		in.line = m.Caption
	}
	if md, ok := a.messageMedia(m); ok {
		in.media = []bot.Media{md}
	} else if r := m.ReplyToMessage; r != nil {
		if md, ok := a.messageMedia(r); ok {
			if r.From == nil || m.From == nil || r.From.ID != m.From.ID {
				// A Moment carries its author's own photos: another's
				// would be posted without their say.
				md.Unavailable = notYours
			}
			in.media = []bot.Media{md}
		}
	}
	return in
}

// notYours refuses the media of someone else's message replied to.
const notYours = "This photo or video was sent by someone else, and a Moment carries your own: reply to a message of yours, or send the file with the caption."

// handleIncoming runs the command of a text or a caption. A command that
// takes files (an AttachmentOption, /moment) gets the media that came
// with it in Request.Media; other commands run as typed, their media
// ignored, so that a caption /help answers as the text /help does. Long
// commands run apart (long.go).
func (a *Adapter) handleIncoming(ctx context.Context, in incoming) {
	o := in.o
	text := strings.TrimSpace(in.line)
	if !strings.HasPrefix(text, "/") {
		if o.private() && text != "" {
			a.send(ctx, o, bot.Reply{Text: privateHint})
		}
		return
	}
	word, payload := firstWord(text[1:])
	_, at, addressed := strings.Cut(word, "@")
	if addressed && !strings.EqualFold(at, a.username) {
		return // for another bot in the group
	}
	o.command = commandWord(text)
	switch {
	case o.command == "start":
		a.send(ctx, o, a.start(ctx, o, payload))
		return
	case !o.private() && a.bot.MayCarrySecret(text, a.username):
		a.secretInGroup(ctx, o, in.messageID, text)
		return
	}
	cmd, _, err := a.bot.ParseLine(text, a.username)
	if errors.Is(err, bot.ErrUnknownCommand) && !o.private() && !addressed {
		return // another bot's command, most likely
	}
	req := a.newRequest(ctx, o)
	req.Key = in.key
	if o.private() {
		req.ActFor = a.actFor(o)
	}
	if cmd != nil && cmd.TakesFiles() {
		req.Media = in.media
	}
	if cmd != nil && cmd.Long {
		in.o = o
		a.startLong(ctx, in, cmd, req, text)
		return
	}
	if reply, ok := a.bot.HandleLine(ctx, req, text, a.username); ok {
		a.send(ctx, o, a.withPost(ctx, o, reply))
	}
}

// handleCallback runs the action of a pressed button (callbackPrefix and
// its id) as the member who pressed it, then answers the query so the
// client stops its spinner. In a group, getChatMember must say they belong
// to it first: anyone who can read a public group can press its buttons, and
// a member can send any callback data. A press that runs nothing is answered
// with an alert saying why. When the reply is personal and the presser never
// opened the private chat, the answer opens it through the deep link
// instead.
func (a *Adapter) handleCallback(ctx context.Context, q *tgbotapi.CallbackQuery) {
	answer := tgbotapi.NewCallback(q.ID, "")
	id, ours := strings.CutPrefix(q.Data, callbackPrefix)
	if q.From == nil || q.Message == nil || q.Message.Chat == nil || (!ours && !strings.HasPrefix(q.Data, oldCallbackPrefix)) {
		// Not a button of the bot's messages (an inline message's, or
		// data of another shape): nothing to run.
		a.answerCallback(ctx, answer)
		return
	}
	o := origin{chat: q.Message.Chat, from: q.From}
	req, err := a.pressRequest(ctx, o, id)
	var reply bot.Reply
	refused := true
	switch {
	case err != nil:
		reply = bot.Reply{Text: words(err)}
	case !ours:
		reply = a.bot.Refusal(req, bot.ErrOldButton)
	default:
		reply, refused = a.bot.Press(ctx, req, id)
	}
	if refused {
		answer.Text, answer.ShowAlert = bot.Shorten(bot.PlainText(reply.Text), maxAlert), true
		a.answerCallback(ctx, answer)
		return
	}
	o.command = req.Command
	reply = a.withPost(ctx, o, reply)
	if a.deliver(ctx, o, reply) {
		answer.URL = a.deepLink(o.command)
		if !a.answerCallback(ctx, answer) {
			a.noteInGroup(ctx, o)
		}
		return
	}
	a.answerCallback(ctx, answer)
}

// maxAlert is the most characters Telegram shows in a callback's answer.
// See https://core.telegram.org/bots/api#answercallbackquery.
const maxAlert = 200

// pressRequest is the request of a member pressing the button of action id
// in o's chat: in a group once getChatMember says they belong to it
// (errNotInGroup, errMemberCheck), with the rights it says they have and
// the group among their Roles. In their private chat, a button of a
// personal reply to a command given in a group runs for that group, so
// checked the same way (groupRequest); any other as a command there.
func (a *Adapter) pressRequest(ctx context.Context, o origin, id string) (*bot.Request, error) {
	if o.private() {
		place, err := a.bot.ButtonPlace(ctx, core.Telegram, id)
		if group, perr := strconv.ParseInt(place, 10, 64); err == nil && perr == nil && group < 0 {
			return a.groupRequest(ctx, o, group)
		}
		// Press says why, for a button it cannot open.
		return a.newRequest(ctx, o), nil
	}
	admin, err := a.membership(ctx, o.chat.ID, o.from.ID)
	if err != nil {
		return nil, err
	}
	return requestFor(o, admin), nil
}

func (a *Adapter) answerCallback(ctx context.Context, c tgbotapi.CallbackConfig) bool {
	if _, err := a.request(ctx, c); err != nil {
		a.log.Warn("telegram answerCallbackQuery failed", "err", err)
		return false
	}
	return true
}

// newRequest builds the bot request of a command from its origin. Group
// administrators manage drops and roles; nobody does in a private chat.
// In a group, the group is the caller's one Role (see Request.Roles). An
// anonymous administrator is the group's administrator, with the group's
// id for a member's: no person's account stands for them.
func (a *Adapter) newRequest(ctx context.Context, o origin) *bot.Request {
	admin := false
	if !o.private() && !o.anonymous {
		admin = a.isAdmin(ctx, o.chat.ID, o.from.ID)
	}
	return requestFor(o, admin)
}

// requestFor is newRequest with the caller's rights known: admin says
// whether they administer the group.
func requestFor(o origin, admin bool) *bot.Request {
	place := core.Place{Platform: core.Telegram, ExternalID: strconv.FormatInt(o.chat.ID, 10), Name: o.chat.Title}
	chat := bot.Chat{Private: o.private(), Channel: place.ExternalID}
	if o.anonymous {
		return &bot.Request{Place: place, Chat: chat, Caps: capabilities, Caller: bot.Caller{
			ExternalID: place.ExternalID, Name: "anonymous administrator", ManagesDrops: true, ManagesRoles: true, Anonymous: true,
		}}
	}
	if place.Name == "" {
		place.Name = displayName(o.from)
	}
	req := &bot.Request{
		Place: place,
		Chat:  chat,
		Caps:  capabilities,
		Caller: bot.Caller{
			ExternalID:   strconv.FormatInt(o.from.ID, 10),
			Name:         displayName(o.from),
			ManagesDrops: admin,
			ManagesRoles: admin,
		},
	}
	if !o.private() {
		// Whoever writes in a group belongs to it: a drop that requires
		// membership of the group it was added in is claimable there.
		req.Roles = []string{place.ExternalID}
	}
	return req
}

// displayName is the member's username, or first name when they have none,
// without the characters that change the direction of text (the bot
// cleans request names again, bot.Handle).
func displayName(u *tgbotapi.User) string {
	if u.UserName != "" {
		return u.UserName
	}
	return core.StripDirectionControls(u.FirstName)
}

// firstWord splits s at its first run of white space.
func firstWord(s string) (word, rest string) {
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// commandWord returns a line's command word in lower case, without the
// slash and "@BotName".
func commandWord(line string) string {
	w, _ := firstWord(strings.TrimPrefix(strings.TrimSpace(line), "/"))
	w, _, _ = strings.Cut(w, "@")
	return strings.ToLower(w)
}
