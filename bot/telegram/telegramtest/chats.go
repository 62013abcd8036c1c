package telegramtest

import (
	"net/http"
	"strconv"
)

// BotRights are the bot's status in a chat and the administrator rights
// getChatMember reports for it.
type BotRights struct {
	// Status is "administrator", "creator", "member", "left" or "kicked".
	Status string
	// CanInvite is can_invite_users (invite links, join requests),
	// CanRestrict can_restrict_members (ban and unban), CanDelete
	// can_delete_messages.
	CanInvite, CanRestrict, CanDelete bool
}

// admin reports whether the status is an administrator's.
func (r BotRights) admin() bool { return r.Status == "administrator" || r.Status == "creator" }

// SetChat registers a chat for getChat (its type: "private", "group",
// "supergroup" or "channel"; and its title). getChat answers 400 "chat
// not found" for a group or channel not registered; a positive id is a
// private chat.
func (s *Server) SetChat(id int64, typ, title string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chats[id] = Chat{ID: id, Type: typ, Title: title}
}

// SetBotRights sets the bot's status and rights in a chat, over SetAdmins
// and SetStatus. Without it, the bot has the status those give (a plain
// member by default), and as an administrator every right.
func (s *Server) SetBotRights(chatID int64, r BotRights) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.botRights[chatID] = r
}

// ForbidAdmin makes the chat refuse what needs administrator rights
// (createChatInviteLink, approveChatJoinRequest, declineChatJoinRequest,
// banChatMember, unbanChatMember) with Telegram's 400 answers, while
// getChatMember still reports the rights: the bot lost them since it
// last looked.
func (s *Server) ForbidAdmin(chatID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forbidden[chatID] = true
}

// Member returns a user's status in a chat, as getChatMember answers it:
// "member" for a user the fake knows nothing of.
func (s *Server) Member(chatID, userID int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.statusLocked(chatID, userID)
}

// statusLocked is a user's status in a chat; s.mu must be held.
func (s *Server) statusLocked(chatID, userID int64) string {
	if r, ok := s.botRights[chatID]; ok && userID == s.BotID {
		return r.Status
	}
	if status, ok := s.statuses[chatID][userID]; ok {
		return status
	}
	if s.admins[chatID][userID] {
		return "administrator"
	}
	return "member"
}

// botRightsLocked is the bot's status and rights in a chat; s.mu must be
// held.
func (s *Server) botRightsLocked(chatID int64) BotRights {
	if r, ok := s.botRights[chatID]; ok {
		return r
	}
	r := BotRights{Status: s.statusLocked(chatID, s.BotID)}
	if r.admin() {
		r.CanInvite, r.CanRestrict, r.CanDelete = true, true, true
	}
	return r
}

// botAbsentLocked is Telegram's answer to a bot that left a chat or was
// removed from it, nil while it is in; s.mu must be held.
func (s *Server) botAbsentLocked(chatID int64) *Failure {
	switch s.botRightsLocked(chatID).Status {
	case "kicked":
		return &Failure{Code: http.StatusForbidden, Description: "Forbidden: bot was kicked from the supergroup chat"}
	case "left":
		return &Failure{Code: http.StatusForbidden, Description: "Forbidden: bot is not a member of the supergroup chat"}
	}
	return nil
}

// getChat answers getChat from SetChat.
// See https://core.telegram.org/bots/api#getchat.
func (s *Server) getChat(p map[string]string) (any, *Failure) {
	chatID, err := strconv.ParseInt(p["chat_id"], 10, 64)
	if err != nil {
		return nil, badRequest("chat not found")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.chats[chatID]
	switch {
	case !ok && chatID > 0:
		c = Chat{ID: chatID, Type: "private", FirstName: "Member"}
	case !ok:
		return nil, badRequest("chat not found")
	}
	if f := s.botAbsentLocked(chatID); f != nil && c.Type != "private" {
		return nil, f
	}
	return chatJSON(c), nil
}

// chatMember answers getChatMember from SetBotRights, SetStatus and
// SetAdmins; anyone else is a member. The bot's own answer carries its
// rights; a restricted user is still a member (is_member true).
// See https://core.telegram.org/bots/api#getchatmember.
func (s *Server) chatMember(p map[string]string) (any, *Failure) {
	chatID, err1 := strconv.ParseInt(p["chat_id"], 10, 64)
	userID, err2 := strconv.ParseInt(p["user_id"], 10, 64)
	if err1 != nil || err2 != nil {
		return nil, badRequest("chat not found")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.botAbsentLocked(chatID); f != nil && chatID < 0 {
		return nil, f
	}
	status := s.statusLocked(chatID, userID)
	m := map[string]any{"user": map[string]any{"id": userID, "is_bot": false, "first_name": "Member"}, "status": status}
	if status == "restricted" {
		m["is_member"] = true
	}
	if userID == s.BotID {
		m["user"] = s.getMe()
		if r := s.botRightsLocked(chatID); r.Status == "administrator" {
			m["can_invite_users"], m["can_restrict_members"], m["can_delete_messages"] = r.CanInvite, r.CanRestrict, r.CanDelete
			m["can_manage_chat"] = true
		}
	}
	return m, nil
}

// refusedLocked is the answer of an action that needs an administrator
// right the bot lacks (has false) or lost (ForbidAdmin), nil when it may
// act; s.mu must be held.
func (s *Server) refusedLocked(chatID int64, has bool, description string) *Failure {
	if f := s.botAbsentLocked(chatID); f != nil {
		return f
	}
	if !has || s.forbidden[chatID] {
		return badRequest(description)
	}
	return nil
}
