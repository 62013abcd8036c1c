package telegram

import (
	"context"
	"errors"
	"net/http"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// errNotDeleted means a moderator command typed in a group, which may
// carry a drop's edit code, could not be deleted there.
var errNotDeleted = errors.New("telegram: message with an edit code not deleted")

// secretInGroup runs a moderator command typed in a group that may carry
// a drop's edit code (see bot.MayCarrySecret): the message is deleted at
// once, while the command runs, and whoever sent it, moderator or not, is
// answered in the private chat; a claim post the command makes is still
// published. When the deletion fails (the bot is no administrator allowed
// to delete messages), the answer asks them to delete it by hand and to
// give the bot that right.
func (a *Adapter) secretInGroup(ctx context.Context, o origin, messageID int, text string) {
	deleted := make(chan bool, 1)
	go func() { deleted <- a.deleteMessage(ctx, o.chat.ID, messageID) }()
	reply, ok := a.bot.HandleLine(ctx, a.newRequest(ctx, o), text, a.username)
	if ok {
		reply = a.withPost(ctx, o, reply)
	}
	if !<-deleted {
		reply.Text = strings.TrimSpace(reply.Text + "\n\n" + words(errNotDeleted))
		ok = true
	}
	if !ok {
		return
	}
	// The answer goes to the private chat, away from the group; an
	// anonymous administrator has none, and the bot says nothing
	// personal to them.
	reply.Personal = !o.anonymous
	a.send(ctx, o, reply)
}

// deleteMessage deletes a message in a chat, and reports whether it is
// gone: deleted now, or before (Telegram answers "message to delete not
// found"). Failures are logged without the message's text.
// See https://core.telegram.org/bots/api#deletemessage.
func (a *Adapter) deleteMessage(ctx context.Context, chatID int64, messageID int) bool {
	_, err := a.request(ctx, tgbotapi.NewDeleteMessage(chatID, messageID))
	var apiErr *tgbotapi.Error
	switch {
	case err == nil:
		return true
	case errors.As(err, &apiErr) && apiErr.Code == http.StatusBadRequest && strings.Contains(apiErr.Message, "message to delete not found"):
		return true
	}
	a.log.Warn("telegram could not delete a message that may carry an edit code", "chat_id", chatID, "message_id", messageID, "err", err)
	return false
}
