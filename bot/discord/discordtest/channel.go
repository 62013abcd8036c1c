package discordtest

import (
	"context"
	"net/http"

	"github.com/bwmarrin/discordgo"
)

// codeMissingPermissions is Discord's "Missing Permissions".
const codeMissingPermissions = 50013

// ChannelMessage is a message the bot posted in a channel (not an
// interaction response), as members see it now.
type ChannelMessage struct {
	ID        string
	ChannelID string
	Content   string
	Buttons   []Button
	Embeds    []*discordgo.MessageEmbed
	// Edits counts the edits the message received.
	Edits int
}

// Button returns the message's button with that label.
func (m ChannelMessage) Button(label string) (Button, bool) {
	return Message{Buttons: m.Buttons}.Button(label)
}

// channelRoutes registers the channel message routes.
func (s *Server) channelRoutes() {
	s.mux.HandleFunc("POST /api/{v}/channels/{channel}/messages", s.authed(s.createChannelMessage))
	s.mux.HandleFunc("PATCH /api/{v}/channels/{channel}/messages/{msg}", s.authed(s.editChannelMessage))
}

// DenyChannel makes the bot lack the permission to post in the channel:
// creating a message there answers 403 with 50013 Missing Permissions.
func (s *Server) DenyChannel(channelID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.denied[channelID] = true
}

// AllowChannel gives back the permission DenyChannel took.
func (s *Server) AllowChannel(channelID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.denied, channelID)
}

// ChannelMessages returns the messages the bot posted in a channel, in
// order; with channelID "" in every channel.
func (s *Server) ChannelMessages(channelID string) []ChannelMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ChannelMessage
	for _, m := range s.posts {
		if channelID == "" || m.ChannelID == channelID {
			out = append(out, *m)
		}
	}
	return out
}

// WaitChannelMessage waits until a message the bot posted in a channel
// satisfies match, and returns it.
func (s *Server) WaitChannelMessage(ctx context.Context, match func(ChannelMessage) bool) (ChannelMessage, error) {
	var got ChannelMessage
	err := s.wait(ctx, func() bool {
		for _, m := range s.posts {
			if match(*m) {
				got = *m
				return true
			}
		}
		return false
	})
	return got, err
}

// createChannelMessage answers POST /channels/{channel}/messages.
func (s *Server) createChannelMessage(w http.ResponseWriter, r *http.Request) {
	var body messageBody
	if _, err := payload(r, &body); err != nil {
		writeError(w, http.StatusBadRequest, 50109, "The request body contains invalid JSON.")
		return
	}
	if err := validate(&body); err != nil {
		writeError(w, http.StatusBadRequest, codeInvalidForm, "Invalid Form Body: "+err.Error())
		return
	}
	channel := r.PathValue("channel")
	s.mu.Lock()
	if s.denied[channel] {
		s.mu.Unlock()
		writeError(w, http.StatusForbidden, codeMissingPermissions, "Missing Permissions")
		return
	}
	if s.closedDMs[channel] {
		s.mu.Unlock()
		writeError(w, http.StatusForbidden, codeCannotMessageUser, "Cannot send messages to this user")
		return
	}
	m := &ChannelMessage{ID: s.newIDLocked(), ChannelID: channel}
	m.apply(&body)
	s.posts = append(s.posts, m)
	s.notifyLocked()
	out := m.json(s.opts.AppID)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// editChannelMessage answers PATCH /channels/{channel}/messages/{msg}.
func (s *Server) editChannelMessage(w http.ResponseWriter, r *http.Request) {
	var body messageBody
	if _, err := payload(r, &body); err != nil {
		writeError(w, http.StatusBadRequest, 50109, "The request body contains invalid JSON.")
		return
	}
	if err := validate(&body); err != nil {
		writeError(w, http.StatusBadRequest, codeInvalidForm, "Invalid Form Body: "+err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.posts {
		if m.ID == r.PathValue("msg") && m.ChannelID == r.PathValue("channel") {
			m.apply(&body)
			m.Edits++
			s.notifyLocked()
			writeJSON(w, http.StatusOK, m.json(s.opts.AppID))
			return
		}
	}
	writeError(w, http.StatusNotFound, codeUnknownMessage, "Unknown Message")
}

func (m *ChannelMessage) apply(b *messageBody) {
	if b.Content != nil {
		m.Content = *b.Content
	}
	if b.Components != nil {
		m.Buttons = flatten(*b.Components)
	}
	if b.Embeds != nil {
		m.Embeds = *b.Embeds
	}
}

func (m *ChannelMessage) json(appID string) map[string]any {
	return map[string]any{
		"id": m.ID, "type": 0, "channel_id": m.ChannelID, "content": m.Content, "flags": 0,
		"author": map[string]any{"id": appID, "username": "poapbot", "bot": true},
	}
}
