package telegramtest

import "strconv"

// MemberMessage is a message a member sent (SendText, SendMedia,
// SendAlbum, ReplyText), as its chat shows it.
type MemberMessage struct {
	MessageID int
	ChatID    int64
	From      User
	// Text is the message's text, or the caption of its media.
	Text string
	// Media is the file the message carries, nil for a text.
	Media *Media
	// MediaGroupID is the album the message belongs to, "" for none.
	MediaGroupID string
	// ReplyTo is the id of the message it replies to, 0 for none.
	ReplyTo int
	// Deleted is set once the bot deleted the message (deleteMessage).
	Deleted bool
}

// MemberMessages returns the messages members sent to chatID, oldest
// first, deleted ones included (see Deleted).
func (s *Server) MemberMessages(chatID int64) []MemberMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []MemberMessage
	for _, m := range s.incoming {
		if m.ChatID == chatID {
			out = append(out, m)
		}
	}
	return out
}

// keep records a message a member sent, and its body as updates carry
// it, for the replies to it.
func (s *Server) keep(m MemberMessage, body map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.incoming = append(s.incoming, m)
	s.memberBodies[m.MessageID] = body
}

// deleteMessage answers deleteMessage as the real API does for a bot
// allowed to delete messages: a member's message is marked deleted, a
// message the bot sent is accepted, and any other message, or one deleted
// already, is 400 "message to delete not found". To answer as for a bot
// without the right, Fail("deleteMessage", ...) with 400 "Bad Request:
// message can't be deleted".
// See https://core.telegram.org/bots/api#deletemessage.
func (s *Server) deleteMessage(p map[string]string) (any, *Failure) {
	chatID, err1 := strconv.ParseInt(p["chat_id"], 10, 64)
	id, err2 := strconv.Atoi(p["message_id"])
	if err1 != nil || err2 != nil {
		return nil, badRequest("message to delete not found")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, m := range s.incoming {
		if m.ChatID == chatID && m.MessageID == id && !m.Deleted {
			s.incoming[i].Deleted = true
			s.notifyLocked()
			return true, nil
		}
	}
	if s.sentLocked(chatID, id) {
		return true, nil
	}
	return nil, badRequest("message to delete not found")
}
