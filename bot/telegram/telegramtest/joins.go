package telegramtest

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// The Bot API's words for the refusals of gating methods.
const (
	// NoRightsToRestrict answers banChatMember and unbanChatMember from a
	// bot that may not ban users.
	NoRightsToRestrict = "not enough rights to restrict/unrestrict chat member"
	// NoRightsToInvite answers createChatInviteLink from a bot that may
	// not invite users.
	NoRightsToInvite = "not enough rights to manage chat invite links"
	// AdminRequired answers approveChatJoinRequest and
	// declineChatJoinRequest from a bot that may not invite users.
	AdminRequired = "CHAT_ADMIN_REQUIRED"
	// RequesterMissing answers approveChatJoinRequest and
	// declineChatJoinRequest for a request that is not pending (handled
	// already, or withdrawn).
	RequesterMissing = "HIDE_REQUESTER_MISSING"
)

type memberKey struct{ chat, user int64 }

// RequestJoin pushes a chat_join_request update: u asks to join the chat
// (registered with SetChat, or a supergroup without a title), through
// the last join-request link the bot created in it, if any. The request
// stays pending until the bot approves or declines it; a user with no
// status in the chat becomes "left" (not a member). It returns the update
// id.
func (s *Server) RequestJoin(chatID int64, u User) int {
	s.mu.Lock()
	c, ok := s.chats[chatID]
	if !ok {
		c = Group(chatID, "")
	}
	s.joins[memberKey{chatID, u.ID}] = true
	if _, set := s.statuses[chatID][u.ID]; !set {
		s.setStatusLocked(chatID, u.ID, "left")
	}
	req := map[string]any{"chat": chatJSON(c), "from": userJSON(u), "user_chat_id": u.ID, "date": time.Now().Unix()}
	if link, ok := s.links[chatID]; ok {
		req["invite_link"] = link
	}
	s.mu.Unlock()
	return s.PushUpdate(map[string]any{"chat_join_request": req})
}

// JoinPending reports whether u's request to join the chat waits for the
// bot.
func (s *Server) JoinPending(chatID, userID int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.joins[memberKey{chatID, userID}]
}

// WaitApproved returns once the bot approved the user's request to join
// the chat (a successful approveChatJoinRequest), or ctx is done.
func (s *Server) WaitApproved(ctx context.Context, chatID, userID int64) error {
	return s.waitAnswered(ctx, "approveChatJoinRequest", chatID, userID)
}

// WaitDeclined returns once the bot declined the user's request to join
// the chat (a successful declineChatJoinRequest), or ctx is done.
func (s *Server) WaitDeclined(ctx context.Context, chatID, userID int64) error {
	return s.waitAnswered(ctx, "declineChatJoinRequest", chatID, userID)
}

// WaitRemoved returns once the bot removed the user from the chat (a
// successful banChatMember), or ctx is done. The unban that lets them ask
// again is a call of its own.
func (s *Server) WaitRemoved(ctx context.Context, chatID, userID int64) error {
	return s.waitAnswered(ctx, "banChatMember", chatID, userID)
}

// waitAnswered waits for a successful call of method about the user in
// the chat.
func (s *Server) waitAnswered(ctx context.Context, method string, chatID, userID int64) error {
	chat, user := strconv.FormatInt(chatID, 10), strconv.FormatInt(userID, 10)
	match := func(c Call) bool {
		return c.Method == method && c.Params["chat_id"] == chat && c.Params["user_id"] == user
	}
	if _, err := s.waitIn(ctx, func() []Call { return s.answered }, match); err != nil {
		return fmt.Errorf("telegramtest: no successful %s of user %d in chat %d: %w", method, userID, chatID, err)
	}
	return nil
}

// answer records a call the fake answered successfully.
func (s *Server) answer(c Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answered = append(s.answered, c)
	s.notifyLocked()
}

// chatUser reads chat_id and user_id.
func chatUser(p map[string]string) (memberKey, *Failure) {
	chatID, err1 := strconv.ParseInt(p["chat_id"], 10, 64)
	userID, err2 := strconv.ParseInt(p["user_id"], 10, 64)
	if err1 != nil || err2 != nil {
		return memberKey{}, badRequest("chat not found")
	}
	return memberKey{chatID, userID}, nil
}

// joinRequest answers approveChatJoinRequest and declineChatJoinRequest:
// 400 CHAT_ADMIN_REQUIRED from a bot that may not invite users, 400
// HIDE_REQUESTER_MISSING for a request that is not pending. An approved
// requester becomes a member.
// See https://core.telegram.org/bots/api#approvechatjoinrequest.
func (s *Server) joinRequest(approve bool, p map[string]string) (any, *Failure) {
	k, f := chatUser(p)
	if f != nil {
		return nil, f
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.refusedLocked(k.chat, s.botRightsLocked(k.chat).CanInvite, AdminRequired); f != nil {
		return nil, f
	}
	if !s.joins[k] {
		return nil, badRequest(RequesterMissing)
	}
	delete(s.joins, k)
	if approve {
		s.setStatusLocked(k.chat, k.user, "member")
	}
	return true, nil
}

// ban answers banChatMember: the user becomes "kicked". Owners and
// administrators cannot be banned.
// See https://core.telegram.org/bots/api#banchatmember.
func (s *Server) ban(p map[string]string) (any, *Failure) {
	k, f := chatUser(p)
	if f != nil {
		return nil, f
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.refusedLocked(k.chat, s.botRightsLocked(k.chat).CanRestrict, NoRightsToRestrict); f != nil {
		return nil, f
	}
	switch s.statusLocked(k.chat, k.user) {
	case "creator":
		return nil, badRequest("can't remove chat owner")
	case "administrator":
		return nil, badRequest("user is an administrator of the chat")
	}
	s.setStatusLocked(k.chat, k.user, "kicked")
	return true, nil
}

// unban answers unbanChatMember: a banned user becomes "left". As on the
// real API, unbanning a member without only_if_banned removes them.
// See https://core.telegram.org/bots/api#unbanchatmember.
func (s *Server) unban(p map[string]string) (any, *Failure) {
	k, f := chatUser(p)
	if f != nil {
		return nil, f
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.refusedLocked(k.chat, s.botRightsLocked(k.chat).CanRestrict, NoRightsToRestrict); f != nil {
		return nil, f
	}
	switch s.statusLocked(k.chat, k.user) {
	case "kicked":
		s.setStatusLocked(k.chat, k.user, "left")
	case "member", "restricted":
		if p["only_if_banned"] != "true" {
			s.setStatusLocked(k.chat, k.user, "left")
		}
	}
	return true, nil
}

// createInviteLink answers createChatInviteLink with a new link of the
// chat, named and creating join requests as asked.
// See https://core.telegram.org/bots/api#createchatinvitelink.
func (s *Server) createInviteLink(p map[string]string) (any, *Failure) {
	chatID, err := strconv.ParseInt(p["chat_id"], 10, 64)
	if err != nil {
		return nil, badRequest("chat not found")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.chats[chatID]; !ok {
		return nil, badRequest("chat not found")
	}
	if f := s.refusedLocked(chatID, s.botRightsLocked(chatID).CanInvite, NoRightsToInvite); f != nil {
		return nil, f
	}
	s.nextLink++
	link := map[string]any{
		"invite_link": fmt.Sprintf("https://t.me/+fakeInvite%04d", s.nextLink), "creator": s.getMe(),
		"creates_join_request": p["creates_join_request"] == "true", "is_primary": false, "is_revoked": false,
	}
	if p["name"] != "" {
		link["name"] = p["name"]
	}
	if link["creates_join_request"] == true {
		s.links[chatID] = link
	}
	return link, nil
}

// setStatusLocked sets a user's status in a chat; s.mu must be held.
func (s *Server) setStatusLocked(chatID, userID int64, status string) {
	if s.statuses[chatID] == nil {
		s.statuses[chatID] = map[int64]string{}
	}
	s.statuses[chatID][userID] = status
}
