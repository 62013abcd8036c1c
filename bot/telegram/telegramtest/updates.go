package telegramtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
)

// User is a Telegram account that acts in a test.
type User struct {
	ID        int64
	FirstName string
	Username  string
	IsBot     bool
}

// Chat is where a message is posted. Type is "private", "group",
// "supergroup" or "channel"; a private chat's ID equals its user's ID.
type Chat struct {
	ID        int64
	Type      string
	Title     string
	FirstName string
	Username  string
}

// PrivateChat returns the bot's private chat with u.
func PrivateChat(u User) Chat {
	return Chat{ID: u.ID, Type: "private", FirstName: u.FirstName, Username: u.Username}
}

// Group returns a supergroup; Telegram group ids are negative
// (-100xxxxxxxxxx for supergroups).
func Group(id int64, title string) Chat {
	return Chat{ID: id, Type: "supergroup", Title: title}
}

type pendingUpdate struct {
	id   int
	kind string
	body map[string]any
}

// Delivery is the outcome of POSTing one update to the webhook.
type Delivery struct {
	UpdateID int
	// Status is the webhook's HTTP status, 0 when the request failed.
	Status int
	Err    error
}

// SendText pushes a message update: from writes text in chat. Text starting
// with "/" carries a bot_command entity, as Telegram adds. It returns the
// update id. The chat keeps the message (see MemberMessages) until the bot
// deletes it.
func (s *Server) SendText(chat Chat, from User, text string) int {
	id := s.newMessageID()
	msg := memberMessage(id, chat, from)
	msg["text"] = text
	addEntities(msg, "entities", text)
	s.keep(MemberMessage{MessageID: id, ChatID: chat.ID, From: from, Text: text}, msg)
	return s.PushUpdate(map[string]any{"message": msg})
}

// memberMessage is the body of a message from sent in chat, without its
// content.
func memberMessage(id int, chat Chat, from User) map[string]any {
	return map[string]any{"message_id": id, "date": time.Now().Unix(), "chat": chatJSON(chat), "from": userJSON(from)}
}

// addEntities gives text starting with "/" the bot_command entity
// Telegram adds, under key ("entities", or "caption_entities").
func addEntities(msg map[string]any, key, text string) {
	if strings.HasPrefix(text, "/") {
		word, _, _ := strings.Cut(text, " ")
		msg[key] = []any{map[string]any{"type": "bot_command", "offset": 0, "length": len(utf16.Encode([]rune(word)))}}
	}
}

// PressButton pushes a callback_query update: from presses the callback
// button labelled label under msg. It returns the update id, or an error
// when msg has no such button.
func (s *Server) PressButton(msg Message, from User, label string) (int, error) {
	for _, row := range msg.Buttons {
		for _, b := range row {
			if b.Text != label || b.CallbackData == "" {
				continue
			}
			id := s.newMessageID()
			return s.PushUpdate(map[string]any{"callback_query": map[string]any{
				"id": "cq" + strconv.Itoa(id), "from": userJSON(from), "chat_instance": "ci" + strconv.FormatInt(msg.ChatID, 10),
				"data": b.CallbackData, "message": map[string]any{
					"message_id": msg.MessageID, "date": time.Now().Unix(), "text": msg.Text,
					"chat": chatJSON(Chat{ID: msg.ChatID, Type: chatType(msg.ChatID)}),
				},
			}}), nil
		}
	}
	return 0, fmt.Errorf("telegramtest: message %d has no callback button %q", msg.MessageID, label)
}

// PushUpdate queues an update of any kind, given its fields without
// update_id ({"chat_join_request": {...}}), and returns its id. It is
// served by getUpdates, or POSTed to the webhook when one is set.
func (s *Server) PushUpdate(fields map[string]any) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextUpdate++
	u := pendingUpdate{id: s.nextUpdate, body: map[string]any{"update_id": s.nextUpdate}}
	for k, v := range fields {
		u.kind = k
		u.body[k] = v
	}
	s.pending = append(s.pending, u)
	s.notifyLocked()
	if s.webhook != nil {
		s.deliverLocked(u)
	}
	return u.id
}

// PendingUpdates returns how many updates were not yet confirmed (by a
// getUpdates offset past them, or a successful webhook delivery).
func (s *Server) PendingUpdates() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}

// Deliveries returns the outcomes of webhook deliveries so far.
func (s *Server) Deliveries() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Delivery(nil), s.delivered...)
}

func (s *Server) newMessageID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextMessage++
	return s.nextMessage
}

// getUpdates long-polls: it answers at once when updates at or past offset
// wait, otherwise when one arrives, the timeout passes, the client gives up
// or the server closes.
func (s *Server) getUpdates(r *http.Request, p map[string]string) (any, *Failure) {
	offset, _ := strconv.Atoi(p["offset"])
	limit, err := strconv.Atoi(p["limit"])
	if err != nil || limit < 1 || limit > 100 {
		limit = 100
	}
	timeout, _ := strconv.Atoi(p["timeout"])
	allowed := allowedUpdates(p["allowed_updates"])
	deadline := time.NewTimer(time.Duration(timeout) * time.Second)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		if s.webhook != nil {
			s.mu.Unlock()
			return nil, &Failure{Code: http.StatusConflict, Description: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"}
		}
		out := s.takeLocked(offset, limit, allowed)
		changed := s.changed
		s.mu.Unlock()
		if len(out) > 0 || timeout <= 0 {
			return out, nil
		}
		select {
		case <-changed:
		case <-deadline.C:
			return []any{}, nil
		case <-r.Context().Done():
			return []any{}, nil
		case <-s.closed:
			return []any{}, nil
		}
	}
}

// takeLocked forgets updates before offset and those of kinds not allowed,
// and returns up to limit of the rest.
func (s *Server) takeLocked(offset, limit int, allowed []string) []any {
	s.pending = slices.DeleteFunc(s.pending, func(u pendingUpdate) bool {
		return u.id < offset || !slices.Contains(allowed, u.kind)
	})
	var out []any
	for _, u := range s.pending[:min(limit, len(s.pending))] {
		out = append(out, u.body)
	}
	return out
}

// allowedUpdates reads allowed_updates; absent or empty means Telegram's
// default: every kind but chat_member and reactions.
func allowedUpdates(raw string) []string {
	var kinds []string
	if raw != "" && raw != "null" {
		_ = json.Unmarshal([]byte(raw), &kinds)
	}
	if len(kinds) == 0 {
		kinds = []string{"message", "edited_message", "channel_post", "edited_channel_post", "inline_query",
			"chosen_inline_result", "callback_query", "shipping_query", "pre_checkout_query", "poll", "poll_answer",
			"my_chat_member", "chat_join_request"}
	}
	return kinds
}

func chatJSON(c Chat) map[string]any {
	m := map[string]any{"id": c.ID, "type": c.Type}
	for k, v := range map[string]string{"title": c.Title, "first_name": c.FirstName, "username": c.Username} {
		if v != "" {
			m[k] = v
		}
	}
	return m
}

func userJSON(u User) map[string]any {
	first := u.FirstName
	if first == "" {
		first = "Member"
	}
	m := map[string]any{"id": u.ID, "is_bot": u.IsBot, "first_name": first}
	if u.Username != "" {
		m["username"] = u.Username
	}
	return m
}
