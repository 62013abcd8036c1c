package telegramtest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RefuseURL makes the fake unable to fetch each url, as Telegram is when
// a server does not answer or does not serve an image: a sendPhoto or
// sendMediaGroup naming one of them answers 400 "Bad Request: failed to
// get HTTP URL content" and sends nothing.
func (s *Server) RefuseURL(urls ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range urls {
		s.refused[u] = true
	}
}

// fetch fails as Telegram does for a photo it cannot fetch.
func (s *Server) fetch(photo string) *Failure {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refused[photo] {
		return badRequest("failed to get HTTP URL content")
	}
	return nil
}

// inputMedia is one item of sendMediaGroup's media parameter.
type inputMedia struct {
	Type      string `json:"type"`
	Media     string `json:"media"`
	Caption   string `json:"caption"`
	ParseMode string `json:"parse_mode"`
}

// sendMediaGroup records an album as one message per photo, all with the
// same MediaGroupID, as Telegram does, after checking it as the real API
// would: 2 to 10 items, each with a photo the fake can fetch (see
// RefuseURL) and a caption that parses and fits. An item "attach://<name>"
// names a file uploaded under name. The fake knows only photos; other
// media types are refused. The call arrived at at.
func (s *Server) sendMediaGroup(c Call, at time.Time) (any, *Failure) {
	p := c.Params
	chatID, err := strconv.ParseInt(p["chat_id"], 10, 64)
	if err != nil {
		return nil, badRequest("chat not found")
	}
	var items []inputMedia
	if json.Unmarshal([]byte(p["media"]), &items) != nil {
		return nil, badRequest("can't parse media JSON object")
	}
	if len(items) < 2 || len(items) > 10 {
		return nil, badRequest("media group must include 2-10 items")
	}
	ms := make([]Message, len(items))
	for i, it := range items {
		m, f := s.groupItem(c, chatID, it)
		if f != nil {
			return nil, f
		}
		m.At = at
		ms[i] = m
	}
	return s.storeGroup(ms)
}

// groupItem checks one item of a media group and makes its message.
func (s *Server) groupItem(c Call, chatID int64, it inputMedia) (Message, *Failure) {
	if it.Type != "photo" {
		return Message{}, badRequest("telegramtest knows only photos in a media group, not " + strconv.Quote(it.Type))
	}
	photo := it.Media
	if name, ok := strings.CutPrefix(photo, "attach://"); ok {
		if _, uploaded := c.Files[name]; !uploaded {
			return Message{}, badRequest("wrong file identifier/HTTP URL specified")
		}
		photo = c.Params[name]
	}
	if photo == "" {
		return Message{}, badRequest("wrong file identifier/HTTP URL specified")
	}
	if f := s.fetch(photo); f != nil {
		return Message{}, f
	}
	if f := checkText(it.Caption, it.ParseMode, true); f != nil {
		return Message{}, f
	}
	return Message{Method: c.Method, ChatID: chatID, Text: it.Caption, ParseMode: it.ParseMode, Photo: photo, Params: c.Params}, nil
}

// storeGroup keeps the messages of an album, all or none, unless their
// private chat was never opened, and returns them as Telegram does.
func (s *Server) storeGroup(ms []Message) (any, *Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ms[0].ChatID > 0 && s.neverStarted[ms[0].ChatID] {
		return nil, &Failure{Code: http.StatusForbidden, Description: "Forbidden: bot can't initiate conversation with a user"}
	}
	s.nextGroup++
	group := strconv.Itoa(s.nextGroup)
	var result []map[string]any
	for _, m := range ms {
		s.nextMessage++
		m.MessageID, m.MediaGroupID = s.nextMessage, group
		s.sent = append(s.sent, m)
		result = append(result, map[string]any{
			"message_id": m.MessageID, "date": time.Now().Unix(), "media_group_id": group,
			"chat":    chatJSON(Chat{ID: m.ChatID, Type: chatType(m.ChatID)}),
			"caption": m.Text, "photo": []map[string]any{{"file_id": "photo-" + strconv.Itoa(m.MessageID), "file_unique_id": "u" + strconv.Itoa(m.MessageID), "width": 128, "height": 128}},
		})
	}
	s.notifyLocked()
	return result, nil
}
