package telegramtest

import (
	"strconv"
	"time"
)

// The accounts Telegram puts in from for messages that no person sent as
// themselves. See https://core.telegram.org/bots/api#message (sender_chat).
var (
	// ChannelBot sends the messages a channel posts in a group as itself.
	ChannelBot = User{ID: 136817688, FirstName: "Channel", Username: "Channel_Bot", IsBot: true}
	// ServiceAccount sends Telegram's service messages and the automatic
	// forwards of a linked channel's posts.
	ServiceAccount = User{ID: 777000, FirstName: "Telegram"}
	// GroupAnonymousBot sends an anonymous administrator's messages.
	GroupAnonymousBot = User{ID: 1087968824, FirstName: "Group", Username: "GroupAnonymousBot", IsBot: true}
)

// Channel returns a channel; its id is negative, as a supergroup's.
func Channel(id int64, title string) Chat {
	return Chat{ID: id, Type: "channel", Title: title}
}

// SendOnBehalf pushes a message update: text posted in chat on behalf of
// senderChat (a channel, or chat itself for an anonymous administrator),
// with from the stand-in account Telegram puts there; forward marks an
// automatic forward of a linked channel's post. It returns the update id.
func (s *Server) SendOnBehalf(chat Chat, from User, senderChat Chat, text string, forward bool) int {
	id := s.newMessageID()
	msg := memberMessage(id, chat, from)
	msg["text"] = text
	msg["sender_chat"] = chatJSON(senderChat)
	if forward {
		msg["is_automatic_forward"] = true
	}
	addEntities(msg, "entities", text)
	s.keep(MemberMessage{MessageID: id, ChatID: chat.ID, From: from, Text: text}, msg)
	return s.PushUpdate(map[string]any{"message": msg})
}

// PressData pushes a callback_query update with any data, as a modified
// client can send on a message of the bot's (msg) whatever its buttons
// carry. It returns the update id.
func (s *Server) PressData(msg Message, from User, data string) int {
	id := s.newMessageID()
	return s.PushUpdate(map[string]any{"callback_query": map[string]any{
		"id": "cq" + strconv.Itoa(id), "from": userJSON(from), "chat_instance": "ci" + strconv.FormatInt(msg.ChatID, 10),
		"data": data, "message": map[string]any{
			"message_id": msg.MessageID, "date": time.Now().Unix(), "text": msg.Text,
			"chat": chatJSON(Chat{ID: msg.ChatID, Type: chatType(msg.ChatID)}),
		},
	}})
}
