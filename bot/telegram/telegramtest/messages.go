package telegramtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Message is something the bot sent: sendMessage, sendPhoto, one photo
// of a sendMediaGroup, sendDocument, or an edit (editMessageText,
// editMessageCaption) of an earlier message, recorded with that message's
// id.
type Message struct {
	Method    string
	MessageID int
	ChatID    int64
	// Text is the message text, or the caption of a photo or document.
	Text      string
	ParseMode string
	// Photo is the photo sent by sendPhoto or in a media group (a URL, a
	// file id, or "attach:<name>" for an upload).
	Photo string
	// MediaGroupID is the album a sendMediaGroup photo belongs to, the
	// same for every photo of one call; empty for other messages.
	MediaGroupID string
	// Document is the file sent by sendDocument; its Name alone for a
	// file id or URL.
	Document *Document
	// Buttons are the inline keyboard, row by row.
	Buttons [][]Button
	// ReplyTo is the id of the message this one answers
	// (reply_parameters, or the older reply_to_message_id), 0 for none.
	ReplyTo int
	// Params holds every parameter as sent.
	Params map[string]string
	// At is when the fake took up the call that sent it (after any
	// Delay): the time the limits counted it at (see Limits, MaxInWindow).
	At time.Time
}

// Button is one inline-keyboard button of a sent message.
type Button struct {
	Text         string `json:"text"`
	URL          string `json:"url,omitempty"`
	CallbackData string `json:"callback_data,omitempty"`
}

// String summarises the message for test failures.
func (m Message) String() string {
	if m.Photo != "" {
		return fmt.Sprintf("%s #%d to %d: %s %q", m.Method, m.MessageID, m.ChatID, m.Photo, m.Text)
	}
	return fmt.Sprintf("%s #%d to %d: %q", m.Method, m.MessageID, m.ChatID, m.Text)
}

// Messages returns what the bot sent so far, oldest first.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.sent...)
}

// WaitMessage returns the first sent message that match accepts (nil
// accepts any), waiting for it until ctx is done. The error then lists
// what was sent, to make a failing test readable.
func (s *Server) WaitMessage(ctx context.Context, match func(Message) bool) (Message, error) {
	for {
		s.mu.Lock()
		for _, m := range s.sent {
			if match == nil || match(m) {
				s.mu.Unlock()
				return m, nil
			}
		}
		changed, seen := s.changed, summary(s.sent)
		s.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return Message{}, fmt.Errorf("telegramtest: no matching message; sent so far: %s: %w", seen, ctx.Err())
		}
	}
}

// WaitMessages returns the sent messages that match accepts once there
// are at least n of them, waiting until ctx is done.
func (s *Server) WaitMessages(ctx context.Context, n int, match func(Message) bool) ([]Message, error) {
	for {
		s.mu.Lock()
		var found []Message
		for _, m := range s.sent {
			if match(m) {
				found = append(found, m)
			}
		}
		changed, seen := s.changed, summary(s.sent)
		s.mu.Unlock()
		if len(found) >= n {
			return found, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return found, fmt.Errorf("telegramtest: %d of %d matching messages; sent so far: %s: %w", len(found), n, seen, ctx.Err())
		}
	}
}

// To matches messages sent to chatID (a user id is the private chat).
func To(chatID int64) func(Message) bool {
	return func(m Message) bool { return m.ChatID == chatID }
}

// Contains matches messages whose text contains s.
func Contains(s string) func(Message) bool {
	return func(m Message) bool { return strings.Contains(m.Text, s) }
}

// Method matches messages sent by method ("sendMessage",
// "sendMediaGroup", ...).
func Method(method string) func(Message) bool {
	return func(m Message) bool { return m.Method == method }
}

// All matches messages that every one of preds matches.
func All(preds ...func(Message) bool) func(Message) bool {
	return func(m Message) bool {
		for _, p := range preds {
			if !p(m) {
				return false
			}
		}
		return true
	}
}

func summary(ms []Message) string {
	if len(ms) == 0 {
		return "nothing"
	}
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.String()
	}
	return strings.Join(parts, "; ")
}

// send records a sendMessage, sendPhoto (of a photo the fake can fetch,
// see RefuseURL) or editMessageText after checking it as the real API
// would. The call arrived at at.
func (s *Server) send(method string, p map[string]string, at time.Time) (any, *Failure) {
	chatID, err := strconv.ParseInt(p["chat_id"], 10, 64)
	if err != nil {
		return nil, badRequest("chat not found")
	}
	m := Message{Method: method, ChatID: chatID, ParseMode: p["parse_mode"], Params: p, Text: p["text"], At: at}
	caption := method == "sendPhoto" || method == "editMessageCaption"
	switch {
	case method == "sendPhoto":
		m.Photo, m.Text = p["photo"], p["caption"]
		if m.Photo == "" {
			return nil, badRequest("there is no photo in the request")
		}
		if f := s.fetch(m.Photo); f != nil {
			return nil, f
		}
	case caption:
		m.Text = p["caption"]
	case m.Text == "":
		return nil, badRequest("message text is empty")
	}
	if f := checkText(m.Text, m.ParseMode, caption); f != nil {
		return nil, f
	}
	var f *Failure
	if m.Buttons, f = keyboard(p); f != nil {
		return nil, f
	}
	m.ReplyTo = replyTo(p)
	return s.store(m)
}

// replyTo reads the message a sent one replies to, 0 for none.
func replyTo(p map[string]string) int {
	var rp struct {
		MessageID int `json:"message_id"`
	}
	if json.Unmarshal([]byte(p["reply_parameters"]), &rp) == nil && rp.MessageID > 0 {
		return rp.MessageID
	}
	id, _ := strconv.Atoi(p["reply_to_message_id"])
	return id
}

// maxDocument is the Bot API's limit on a file a bot sends: 50 MB.
const maxDocument = 50_000_000

// sendDocument records a sendDocument after checking it as the real API
// would: a document, uploaded or named, of at most 50 MB, and a caption
// that parses and fits. The call arrived at at.
func (s *Server) sendDocument(c Call, at time.Time) (any, *Failure) {
	p := c.Params
	chatID, err := strconv.ParseInt(p["chat_id"], 10, 64)
	if err != nil {
		return nil, badRequest("chat not found")
	}
	doc, uploaded := c.Files["document"]
	switch {
	case !uploaded && p["document"] == "":
		return nil, badRequest("there is no document in the request")
	case !uploaded:
		doc = Document{Name: p["document"]}
	case doc.Size > maxDocument:
		return nil, &Failure{Code: http.StatusRequestEntityTooLarge, Description: "Request Entity Too Large"}
	}
	m := Message{Method: c.Method, ChatID: chatID, Text: p["caption"], ParseMode: p["parse_mode"], Document: &doc, Params: p, At: at}
	if f := checkText(m.Text, m.ParseMode, true); f != nil {
		return nil, f
	}
	var f *Failure
	if m.Buttons, f = keyboard(p); f != nil {
		return nil, f
	}
	return s.store(m)
}

// keyboard reads the inline keyboard of reply_markup, nil when there is
// none.
func keyboard(p map[string]string) ([][]Button, *Failure) {
	raw := p["reply_markup"]
	if raw == "" {
		return nil, nil
	}
	var kb struct {
		InlineKeyboard [][]Button `json:"inline_keyboard"`
	}
	if json.Unmarshal([]byte(raw), &kb) != nil {
		return nil, badRequest("can't parse reply keyboard markup JSON object")
	}
	return kb.InlineKeyboard, nil
}

// store keeps a sent message unless its private chat was never opened.
func (s *Server) store(m Message) (any, *Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m.ChatID > 0 && s.neverStarted[m.ChatID] {
		return nil, &Failure{Code: http.StatusForbidden, Description: "Forbidden: bot can't initiate conversation with a user"}
	}
	if strings.HasPrefix(m.Method, "edit") {
		m.MessageID, _ = strconv.Atoi(m.Params["message_id"])
		last, ok := s.lastVersionLocked(m.ChatID, m.MessageID)
		if !ok {
			return nil, badRequest("message to edit not found")
		}
		if last.Text == m.Text && last.Params["reply_markup"] == m.Params["reply_markup"] {
			return nil, badRequest("message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")
		}
	} else {
		s.nextMessage++
		m.MessageID = s.nextMessage
	}
	s.sent = append(s.sent, m)
	s.notifyLocked()
	return map[string]any{
		"message_id": m.MessageID, "date": time.Now().Unix(),
		"chat": chatJSON(Chat{ID: m.ChatID, Type: chatType(m.ChatID)}), "text": m.Text,
	}, nil
}

// sentLocked reports whether the bot sent message id to the chat; s.mu
// must be held.
func (s *Server) sentLocked(chatID int64, id int) bool {
	_, ok := s.lastVersionLocked(chatID, id)
	return ok
}

// lastVersionLocked returns message id of the chat as last sent or
// edited; s.mu must be held.
func (s *Server) lastVersionLocked(chatID int64, id int) (Message, bool) {
	for i := len(s.sent) - 1; i >= 0; i-- {
		if m := s.sent[i]; m.ChatID == chatID && m.MessageID == id {
			return m, true
		}
	}
	return Message{}, false
}

// Edits returns the edits (editMessageText, editMessageCaption) of
// message id of the chat so far, in the order Telegram applied them.
func (s *Server) Edits(chatID int64, id int) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.editsLocked(chatID, id)
}

// WaitEdits returns the edits of message id of the chat once there are at
// least n, in order, waiting for them until ctx is done. The error then
// lists what was sent, to make a failing test readable.
func (s *Server) WaitEdits(ctx context.Context, chatID int64, id, n int) ([]Message, error) {
	for {
		s.mu.Lock()
		edits, changed := s.editsLocked(chatID, id), s.changed
		s.mu.Unlock()
		if len(edits) >= n {
			return edits, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			seen := summary(s.Messages())
			return edits, fmt.Errorf("telegramtest: %d edits of message %d, want %d; sent so far: %s: %w", len(edits), id, n, seen, ctx.Err())
		}
	}
}

func (s *Server) editsLocked(chatID int64, id int) []Message {
	var out []Message
	for _, m := range s.sent {
		if m.ChatID == chatID && m.MessageID == id && strings.HasPrefix(m.Method, "edit") {
			out = append(out, m)
		}
	}
	return out
}

func (s *Server) myCommands() any {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.calls) - 1; i >= 0; i-- {
		if c := s.calls[i]; c.Method == "setMyCommands" && c.Params["scope"] == "" {
			return json.RawMessage(c.Params["commands"])
		}
	}
	return []any{}
}

func badRequest(reason string) *Failure {
	return &Failure{Code: http.StatusBadRequest, Description: "Bad Request: " + reason}
}

func chatType(id int64) string {
	if id > 0 {
		return "private"
	}
	return "supergroup"
}
