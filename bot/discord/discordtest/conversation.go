package discordtest

import (
	"context"
	"net/http"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Kind says which REST call a Response came from.
type Kind string

// The kinds of responses to an interaction.
const (
	// KindCallback is the interaction callback: the acknowledgement.
	KindCallback Kind = "callback"
	// KindEdit edits the original response or a follow-up.
	KindEdit Kind = "edit"
	// KindFollowup is a follow-up message.
	KindFollowup Kind = "followup"
	// KindDelete deletes the original response or a follow-up.
	KindDelete Kind = "delete"
)

// Button is a button of a message, flattened out of its action rows.
type Button struct {
	Label    string
	Style    discordgo.ButtonStyle
	URL      string
	CustomID string
}

// Response is one call the bot made about an interaction.
type Response struct {
	Kind Kind
	// Type is the callback type (4 message, 5 deferred, ...); callbacks only.
	Type discordgo.InteractionResponseType
	// Flags are the flags as sent; for edits, and for a follow-up that
	// replaced a deferred response, the flags of the message it changed.
	Flags   discordgo.MessageFlags
	Content string
	Buttons []Button
	Embeds  []*discordgo.MessageEmbed
	// Files are the files attached, as uploaded.
	Files []File
	// Status is the HTTP status the fake answered with.
	Status int
	// Late is true for a callback that came after the acknowledgement
	// deadline, refused with 404 and 10062 Unknown interaction as Discord
	// refuses it.
	Late bool
	// Sent is when the interaction was created (see Interaction.Sent), At
	// when the fake received this call, both by the fake's clock.
	Sent, At time.Time
}

// Ephemeral reports whether the response carries the ephemeral flag.
func (r Response) Ephemeral() bool { return r.Flags&discordgo.MessageFlagsEphemeral != 0 }

// Delay is how long after the interaction's creation the call arrived:
// a figure to log. Whether a callback was in time is the fake's to judge
// (Status, Late), as it is Discord's.
func (r Response) Delay() time.Duration { return r.At.Sub(r.Sent) }

// Message is a message of an interaction's conversation, as the member
// sees it.
type Message struct {
	ID        string
	Content   string
	Ephemeral bool
	// Loading is true for a deferred response not yet completed (the
	// "thinking..." message).
	Loading bool
	Buttons []Button
	Embeds  []*discordgo.MessageEmbed
	// Files are the message's attachments.
	Files   []File
	deleted bool
}

// Button returns the message's button with that label.
func (m Message) Button(label string) (Button, bool) {
	for _, b := range m.Buttons {
		if b.Label == label {
			return b, true
		}
	}
	return Button{}, false
}

func (m *Message) json(appID string) map[string]any {
	flags := 0
	if m.Ephemeral {
		flags = int(discordgo.MessageFlagsEphemeral)
	}
	return map[string]any{
		"id": m.ID, "type": 0, "channel_id": DefaultChannelID, "content": m.Content, "flags": flags,
		"application_id": appID, "author": map[string]any{"id": appID, "username": "poapbot", "bot": true},
	}
}

// messageBody is the message part of callbacks, edits and follow-ups.
type messageBody struct {
	Content    *string                    `json:"content"`
	Flags      discordgo.MessageFlags     `json:"flags"`
	Components *[]component               `json:"components"`
	Embeds     *[]*discordgo.MessageEmbed `json:"embeds"`
}

type component struct {
	Type       discordgo.ComponentType `json:"type"`
	Style      discordgo.ButtonStyle   `json:"style"`
	Label      string                  `json:"label"`
	URL        string                  `json:"url"`
	CustomID   string                  `json:"custom_id"`
	Components []component             `json:"components"`
}

func flatten(cs []component) []Button {
	var out []Button
	for _, c := range cs {
		if c.Type == discordgo.ButtonComponent {
			out = append(out, Button{Label: c.Label, Style: c.Style, URL: c.URL, CustomID: c.CustomID})
		}
		out = append(out, flatten(c.Components)...)
	}
	return out
}

// apply changes the fields the body sets.
func (m *Message) apply(b *messageBody, files []File) {
	if b.Content != nil {
		m.Content = *b.Content
	}
	if b.Components != nil {
		m.Buttons = flatten(*b.Components)
	}
	if b.Embeds != nil {
		m.Embeds = *b.Embeds
	}
	if files != nil {
		m.Files = files
	}
	m.Loading = false
}

// response records a call with the body's content.
func (it *Interaction) record(kind Kind, flags discordgo.MessageFlags, b *messageBody, files []File, status int) *Response {
	r := Response{Kind: kind, Flags: flags, Files: files, Status: status, Sent: it.Sent, At: it.srv.now()}
	if b != nil {
		m := Message{}
		m.apply(b, files)
		r.Content, r.Buttons, r.Embeds = m.Content, m.Buttons, m.Embeds
	}
	it.responses = append(it.responses, r)
	return &it.responses[len(it.responses)-1]
}

// acknowledge applies an interaction callback, by Discord's rules: once,
// and within the deadline. A late callback is refused and reported (see
// LateCallbacks).
func (s *Server) acknowledge(id, token string, typ discordgo.InteractionResponseType, b *messageBody, files []File) (status, code int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.notifyLocked()
	it := s.interactions[token]
	if it == nil || it.ID != id {
		return http.StatusNotFound, codeUnknownInteraction, "Unknown interaction"
	}
	status = http.StatusNoContent
	late := s.now().Sub(it.Sent) - s.opts.AckDeadline
	switch {
	case it.acked:
		status, code, msg = http.StatusBadRequest, codeAlreadyAcknowledged, "Interaction has already been acknowledged."
	case late > 0:
		status, code, msg = http.StatusNotFound, codeUnknownInteraction, "Unknown interaction"
		s.late = append(s.late, LateCallback{Interaction: id, Late: late})
	}
	r := it.record(KindCallback, b.Flags, b, files, status)
	r.Type, r.Late = typ, late > 0 && !it.acked
	if status != http.StatusNoContent {
		return status, code, msg
	}
	it.acked = true
	ephemeral := b.Flags&discordgo.MessageFlagsEphemeral != 0
	switch typ {
	case discordgo.InteractionResponseChannelMessageWithSource:
		it.original = &Message{ID: s.newIDLocked(), Ephemeral: ephemeral}
		it.original.apply(b, files)
	case discordgo.InteractionResponseDeferredChannelMessageWithSource:
		it.original = &Message{ID: s.newIDLocked(), Ephemeral: ephemeral, Loading: true}
	}
	return status, 0, ""
}

// LateCallback is an interaction callback the fake refused because it
// came after the acknowledgement deadline: on Discord, the member would
// have read "This interaction failed".
type LateCallback struct {
	// Interaction is the interaction's id.
	Interaction string
	// Late is how long after the deadline the callback came.
	Late time.Duration
}

// LateCallbacks returns the callbacks refused for coming after the
// acknowledgement deadline, in the order they came.
func (s *Server) LateCallbacks() []LateCallback {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]LateCallback(nil), s.late...)
}

// edit applies PATCH .../messages/{msg} to the original or a follow-up.
func (s *Server) edit(token, msgID string, b *messageBody, files []File) (Message, int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.notifyLocked()
	it := s.interactions[token]
	if it == nil {
		return Message{}, http.StatusNotFound, codeUnknownWebhook
	}
	m := it.message(msgID)
	if m == nil {
		it.record(KindEdit, 0, b, files, http.StatusNotFound)
		return Message{}, http.StatusNotFound, codeUnknownMessage
	}
	m.apply(b, files)
	it.record(KindEdit, flagsOf(m), b, files, http.StatusOK)
	return *m, http.StatusOK, 0
}

// follow applies a follow-up. Right after a deferral it completes the
// deferred message instead, keeping its visibility, as Discord does.
func (s *Server) follow(token string, b *messageBody, files []File) (Message, int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.notifyLocked()
	it := s.interactions[token]
	if it == nil || !it.acked {
		return Message{}, http.StatusNotFound, codeUnknownWebhook
	}
	m := it.original
	if m == nil || m.deleted || !m.Loading {
		m = &Message{ID: s.newIDLocked(), Ephemeral: b.Flags&discordgo.MessageFlagsEphemeral != 0}
		it.followups = append(it.followups, m)
	}
	m.apply(b, files)
	it.record(KindFollowup, flagsOf(m), b, files, http.StatusOK)
	return *m, http.StatusOK, 0
}

// remove deletes the original or a follow-up.
func (s *Server) remove(token, msgID string) (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.notifyLocked()
	it := s.interactions[token]
	if it == nil {
		return http.StatusNotFound, codeUnknownWebhook
	}
	m := it.message(msgID)
	if m == nil {
		it.record(KindDelete, 0, nil, nil, http.StatusNotFound)
		return http.StatusNotFound, codeUnknownMessage
	}
	m.deleted = true
	it.record(KindDelete, flagsOf(m), nil, nil, http.StatusNoContent)
	return http.StatusNoContent, 0
}

func flagsOf(m *Message) discordgo.MessageFlags {
	if m.Ephemeral {
		return discordgo.MessageFlagsEphemeral
	}
	return 0
}

// Interaction is the test's handle on one dispatched interaction.
type Interaction struct {
	ID    string
	Token string
	// Sent is when the interaction was created, to the millisecond: the
	// time its id (a snowflake) encodes, from which the acknowledgement
	// deadline runs, as Discord's does.
	Sent time.Time

	srv *Server
	err error // why it could not be built or dispatched

	// guarded by srv.mu
	acked     bool
	original  *Message
	followups []*Message
	responses []Response
}

// message finds a live message by id, "@original" for the original.
func (it *Interaction) message(id string) *Message {
	if id == "@original" || (it.original != nil && it.original.ID == id) {
		if it.original == nil || it.original.deleted {
			return nil
		}
		return it.original
	}
	for _, m := range it.followups {
		if m.ID == id && !m.deleted {
			return m
		}
	}
	return nil
}

// Err returns why the interaction could not be built or dispatched.
func (it *Interaction) Err() error { return it.err }

// Responses returns every call the bot made about the interaction.
func (it *Interaction) Responses() []Response {
	it.srv.mu.Lock()
	defer it.srv.mu.Unlock()
	return append([]Response(nil), it.responses...)
}

// Messages returns the messages the member sees now: the original
// response, then the follow-ups, without deleted ones.
func (it *Interaction) Messages() []Message {
	it.srv.mu.Lock()
	defer it.srv.mu.Unlock()
	return it.messagesLocked()
}

func (it *Interaction) messagesLocked() []Message {
	var out []Message
	for _, m := range append([]*Message{it.original}, it.followups...) {
		if m != nil && !m.deleted {
			out = append(out, *m)
		}
	}
	return out
}

// WaitResponse waits for the interaction callback (the acknowledgement)
// and returns it, whatever its status, skipping callbacks refused as
// malformed (400); Responses has those.
func (it *Interaction) WaitResponse(ctx context.Context) (Response, error) {
	var got Response
	err := it.waitFor(ctx, func() bool {
		for _, r := range it.responses {
			if r.Kind == KindCallback && r.Status != http.StatusBadRequest {
				got = r
				return true
			}
		}
		return false
	})
	return got, err
}

// WaitReply waits for the first message that is not loading, and returns
// it. When the bot answers with a visibility other than its deferral's, it
// leaves a short note first: use WaitMessage to wait for the answer.
func (it *Interaction) WaitReply(ctx context.Context) (Message, error) {
	return it.WaitMessage(ctx, func(m Message) bool { return !m.Loading })
}

// WaitMessage waits until a message the member sees satisfies match, and
// returns it.
func (it *Interaction) WaitMessage(ctx context.Context, match func(Message) bool) (Message, error) {
	var got Message
	err := it.waitFor(ctx, func() bool {
		for _, m := range it.messagesLocked() {
			if match(m) {
				got = m
				return true
			}
		}
		return false
	})
	return got, err
}

func (it *Interaction) waitFor(ctx context.Context, cond func() bool) error {
	if it.err != nil {
		return it.err
	}
	return it.srv.wait(ctx, cond)
}
