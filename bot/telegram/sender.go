package telegram

import (
	"context"
	"errors"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot"
)

// Senders that are not people. In a group, Telegram gives a message posted
// on behalf of a chat the sender_chat field, and a stand-in account in
// from: Channel_Bot for a channel posting as itself, 777000 for the
// automatic forward of a linked channel's post, GroupAnonymousBot for an
// administrator who remains anonymous (sender_chat is then the group
// itself). Each stand-in is one account shared by every chat that posts
// through it, so none may be taken for a member.
// See https://core.telegram.org/bots/api#message (sender_chat).
const (
	// telegramServiceID is the account of Telegram's service messages
	// and automatic forwards.
	telegramServiceID = 777000
	// channelBotID is Channel_Bot, the sender of messages posted on
	// behalf of a channel.
	channelBotID = 136817688
	// groupAnonymousBotID is GroupAnonymousBot, the sender of anonymous
	// administrators' messages.
	groupAnonymousBotID = 1087968824
)

// sender is who posted a message, as far as the bot acts on it.
type sender int

const (
	// senderPerson is a member writing as themselves.
	senderPerson sender = iota
	// senderAnonymousAdmin is an administrator posting as the group.
	senderAnonymousAdmin
	// senderChat is a chat (a channel) posting, or a forward of its post:
	// not a member.
	senderChat
	// senderBot is another bot: ignored.
	senderBot
)

// senderOf says who posted m. A message whose sender_chat is the chat it is
// in comes from one of its anonymous administrators (only they can post as
// the group); any other sender_chat, and the stand-in accounts without
// one, are chats; other bots are bots.
func senderOf(m *tgbotapi.Message) sender {
	switch {
	case m.SenderChat != nil && m.Chat != nil && m.SenderChat.ID == m.Chat.ID && !m.Chat.IsPrivate():
		return senderAnonymousAdmin
	case m.SenderChat != nil:
		return senderChat
	case m.From == nil:
		return senderChat
	case m.From.ID == telegramServiceID || m.From.ID == channelBotID || m.From.ID == groupAnonymousBotID:
		return senderChat
	case m.From.IsBot:
		return senderBot
	}
	return senderPerson
}

// errNotAPerson refuses a command posted by a chat rather than a person.
var errNotAPerson = errors.New("telegram: the sender is a chat, not a person")

// notAPerson answers a command a chat posted in a group (a channel posting
// as itself, a linked channel's post forwarded): nothing runs for it, since
// no member stands behind it, and the group is told to post as themselves.
// A /drop add is deleted all the same when it may carry an edit code.
// Messages that are no command of this bot's are ignored.
func (a *Adapter) notAPerson(ctx context.Context, m *tgbotapi.Message) {
	text := strings.TrimSpace(m.Text)
	if text == "" {
		text = strings.TrimSpace(m.Caption)
	}
	if !strings.HasPrefix(text, "/") || m.Chat.IsPrivate() {
		return
	}
	word, _ := firstWord(text[1:])
	_, at, addressed := strings.Cut(word, "@")
	if addressed && !strings.EqualFold(at, a.username) {
		return
	}
	if _, _, err := a.bot.ParseLine(text, a.username); errors.Is(err, bot.ErrUnknownCommand) && !addressed {
		return // another bot's command, most likely
	}
	if a.bot.MayCarrySecret(text, a.username) {
		a.deleteMessage(ctx, m.Chat.ID, m.MessageID)
	}
	o := origin{chat: m.Chat, from: m.From, command: commandWord(text)}
	a.send(ctx, o, bot.Reply{Text: words(errNotAPerson)})
}
