package telegram

import (
	"context"
	"strconv"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/core"
)

// JoinRequests is told of the requests to join a group the bot
// administers (chat_join_request updates), for gating: it decides, and
// answers them through Gates (Grant, Decline) now or later.
type JoinRequests interface {
	// JoinRequested is called once per update, within the update timeout:
	// the member asks to join the group place (its chat id).
	JoinRequested(ctx context.Context, place string, m core.Member)
}

// handleJoinRequest hands a join request to Options.JoinRequests; without
// one the request is left to the group's administrators.
// See https://core.telegram.org/bots/api#chatjoinrequest.
func (a *Adapter) handleJoinRequest(ctx context.Context, r *tgbotapi.ChatJoinRequest) {
	if a.opts.JoinRequests == nil || r.From.ID == 0 {
		a.log.Debug("telegram join request ignored", "chat_id", r.Chat.ID)
		return
	}
	// The requester's private chat has their user id (user_chat_id, Bot
	// API 6.5, is newer than the library).
	m := core.Member{Platform: core.Telegram, ExternalID: strconv.FormatInt(r.From.ID, 10), Name: displayName(&r.From)}
	a.opts.JoinRequests.JoinRequested(ctx, strconv.FormatInt(r.Chat.ID, 10), m)
}
