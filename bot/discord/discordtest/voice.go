package discordtest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Discord's JSON error codes of channels and scheduled events.
const (
	codeUnknownChannel             = 10003
	codeUnknownGuildScheduledEvent = 10070
)

// voiceWorld is the test guild's voice and stage channels, who is in
// them, and its scheduled events; guarded by Server.mu.
type voiceWorld struct {
	channels []discordgo.Channel
	// states are the voice states by user id, in the order users joined.
	states map[string]*discordgo.VoiceState
	order  []string
	events []*discordgo.GuildScheduledEvent
}

// voiceRoutes registers the routes of channels and scheduled events.
func (s *Server) voiceRoutes() {
	s.mux.HandleFunc("GET /api/{v}/channels/{channel}", s.authed(s.getChannel))
	s.mux.HandleFunc("GET /api/{v}/guilds/{guild}/scheduled-events", s.authed(s.inGuild(s.getScheduledEvents)))
	s.mux.HandleFunc("GET /api/{v}/guilds/{guild}/scheduled-events/{event}", s.authed(s.inGuild(s.getScheduledEvent)))
}

// AddVoiceChannel adds a voice channel (type 2) to the test guild, or a
// stage channel (type 13) when stage is true, without telling the bot:
// it is in GUILD_CREATE and GET /channels/{id}.
func (s *Server) AddVoiceChannel(id, name string, stage bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	kind := discordgo.ChannelTypeGuildVoice
	if stage {
		kind = discordgo.ChannelTypeGuildStageVoice
	}
	s.voice.channels = append(s.voice.channels, discordgo.Channel{
		ID: id, GuildID: s.opts.GuildID, Name: name, Type: kind, Bitrate: 64000, Position: len(s.voice.channels) + 1,
	})
	s.notifyLocked()
}

// AddBot puts a bot account (user.bot true) in the test guild, without
// telling the bot under test.
func (s *Server) AddBot(userID, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addMemberLocked(userID, name, nil).User.Bot = true
}

// Voice is a member's voice state as a test sets it: the channel ("" to
// leave voice) and the flags Discord reports. Deaf and Mute are the
// server's; SelfDeaf and SelfMute the member's own.
type Voice struct {
	ChannelID  string
	Deaf       bool
	Mute       bool
	SelfDeaf   bool
	SelfMute   bool
	SelfStream bool
	SelfVideo  bool
}

// SetVoice changes a member's voice state and dispatches
// VOICE_STATE_UPDATE as Discord does (channel_id null on leaving, the
// member, a voice session id, suppress true for a stage's audience). It
// returns an error for a user not in the guild or an unknown channel.
func (s *Server) SetVoice(ctx context.Context, userID string, v Voice) error {
	s.mu.Lock()
	payload, err := s.setVoiceLocked(userID, v)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.Dispatch(ctx, "VOICE_STATE_UPDATE", payload)
}

// PutVoice sets a member's voice state without telling the bot: the state
// in the voice channels when the bot connects (GUILD_CREATE's
// voice_states), or one whose event the bot missed while it was down.
func (s *Server) PutVoice(userID string, v Voice) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.setVoiceLocked(userID, v)
	return err
}

// JoinVoice puts a member in a voice or stage channel, not muted nor
// deafened, and dispatches VOICE_STATE_UPDATE.
func (s *Server) JoinVoice(ctx context.Context, userID, channelID string) error {
	return s.SetVoice(ctx, userID, Voice{ChannelID: channelID})
}

// LeaveVoice takes a member out of voice and dispatches VOICE_STATE_UPDATE
// with channel_id null.
func (s *Server) LeaveVoice(ctx context.Context, userID string) error {
	return s.SetVoice(ctx, userID, Voice{})
}

// setVoiceLocked applies v and returns the VOICE_STATE_UPDATE payload;
// s.mu must be held.
func (s *Server) setVoiceLocked(userID string, v Voice) (map[string]any, error) {
	m := s.guild.members[userID] // nil once they left the guild
	if s.voice.states == nil {
		s.voice.states = map[string]*discordgo.VoiceState{}
	}
	if v.ChannelID == "" {
		old := s.voice.states[userID]
		delete(s.voice.states, userID)
		s.voice.order = slices.DeleteFunc(s.voice.order, func(id string) bool { return id == userID })
		s.notifyLocked()
		left := &discordgo.VoiceState{GuildID: s.opts.GuildID, UserID: userID, Member: m}
		if old != nil {
			left.SessionID = old.SessionID
		}
		return voicePayload(left, true), nil
	}
	if m == nil {
		return nil, fmt.Errorf("discordtest: user %s is not in the test guild", userID)
	}
	ch := s.voiceChannelLocked(v.ChannelID)
	if ch == nil {
		return nil, fmt.Errorf("discordtest: no voice or stage channel %s", v.ChannelID)
	}
	st := s.voice.states[userID]
	if st == nil {
		st = &discordgo.VoiceState{SessionID: "voice-" + s.newIDLocked()}
		s.voice.states[userID] = st
		s.voice.order = append(s.voice.order, userID)
	}
	moved := st.ChannelID != v.ChannelID
	*st = discordgo.VoiceState{
		GuildID: s.opts.GuildID, ChannelID: v.ChannelID, UserID: userID, Member: m, SessionID: st.SessionID,
		Deaf: v.Deaf, Mute: v.Mute, SelfDeaf: v.SelfDeaf, SelfMute: v.SelfMute, SelfStream: v.SelfStream, SelfVideo: v.SelfVideo,
		Suppress: st.Suppress,
	}
	if moved {
		// A stage's audience joins suppressed (it listens); a voice
		// channel suppresses nobody.
		st.Suppress = ch.Type == discordgo.ChannelTypeGuildStageVoice
	}
	s.notifyLocked()
	return voicePayload(st, true), nil
}

// voicePayload is a voice state as Discord sends it: in
// VOICE_STATE_UPDATE (full) with guild_id and the member; in GUILD_CREATE
// (full false) a partial one without either, the members being in its
// members; channel_id and request_to_speak_timestamp null when unset.
func voicePayload(st *discordgo.VoiceState, full bool) map[string]any {
	p := map[string]any{
		"channel_id": nil, "user_id": st.UserID, "session_id": st.SessionID,
		"deaf": st.Deaf, "mute": st.Mute, "self_deaf": st.SelfDeaf, "self_mute": st.SelfMute,
		"self_stream": st.SelfStream, "self_video": st.SelfVideo, "suppress": st.Suppress,
		"request_to_speak_timestamp": st.RequestToSpeakTimestamp,
	}
	if st.ChannelID != "" {
		p["channel_id"] = st.ChannelID
	}
	if full {
		p["guild_id"] = st.GuildID
		if st.Member != nil {
			m := memberCopy(st.Member)
			m.GuildID = st.GuildID
			p["member"] = m
		}
	}
	return p
}

// voiceChannelLocked returns the voice or stage channel, nil when there is
// none; s.mu must be held.
func (s *Server) voiceChannelLocked(id string) *discordgo.Channel {
	for i := range s.voice.channels {
		if s.voice.channels[i].ID == id {
			return &s.voice.channels[i]
		}
	}
	return nil
}

// resolveChannel adds a channel option's channel to the interaction's
// resolved data, as Discord does (a partial channel: id, name, type), when
// it is the text channel DefaultChannelID or a voice or stage channel.
func (s *Server) resolveChannel(id string, res *discordgo.ApplicationCommandInteractionDataResolved) {
	var c *discordgo.Channel
	s.mu.Lock()
	if vc := s.voiceChannelLocked(id); vc != nil {
		c = &discordgo.Channel{ID: vc.ID, Name: vc.Name, Type: vc.Type}
	}
	s.mu.Unlock()
	if c == nil && id == DefaultChannelID {
		c = &discordgo.Channel{ID: id, Name: "general", Type: discordgo.ChannelTypeGuildText}
	}
	if c == nil {
		return
	}
	if res.Channels == nil {
		res.Channels = map[string]*discordgo.Channel{}
	}
	res.Channels[id] = c
}

// VoiceStates returns the test guild's voice states, in the order members
// joined voice.
func (s *Server) VoiceStates() []discordgo.VoiceState {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]discordgo.VoiceState, 0, len(s.voice.order))
	for _, id := range s.voice.order {
		out = append(out, *s.voice.states[id])
	}
	return out
}

// guildCreateVoiceLocked returns GUILD_CREATE's channels (the text channel
// DefaultChannelID and the voice and stage channels, without guild_id as
// Discord sends them there), voice_states,
// guild_scheduled_events and members: as Discord sends a large guild's,
// or any guild's without the presences intent, the bot and the members in
// voice; s.mu must be held.
func (s *Server) guildCreateVoiceLocked() (channels, states, events, members []any) {
	members = []any{memberCopy(s.guild.members[s.opts.AppID])}
	for _, id := range s.voice.order {
		if m := s.voice.states[id].Member; m != nil && id != s.opts.AppID {
			members = append(members, memberCopy(m))
		}
	}
	channels = []any{map[string]any{"id": DefaultChannelID, "type": 0, "name": "general"}}
	for _, c := range s.voice.channels {
		c.GuildID = "" // GUILD_CREATE's channels have no guild_id
		channels = append(channels, c)
	}
	states = []any{}
	for _, id := range s.voice.order {
		states = append(states, voicePayload(s.voice.states[id], false))
	}
	events = []any{}
	for _, e := range s.voice.events {
		events = append(events, eventPayload(e))
	}
	return channels, states, events, members
}

// getChannel answers GET /channels/{channel} for the text channel
// DefaultChannelID and the voice and stage channels; 404 Unknown Channel
// for others.
func (s *Server) getChannel(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("channel")
	s.mu.Lock()
	var out any
	if c := s.voiceChannelLocked(id); c != nil {
		out = *c
	} else if id == DefaultChannelID {
		out = map[string]any{"id": DefaultChannelID, "type": 0, "name": "general", "guild_id": s.opts.GuildID}
	}
	s.mu.Unlock()
	if out == nil {
		writeError(w, http.StatusNotFound, codeUnknownChannel, "Unknown Channel")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// ScheduledEvent is a scheduled event a test creates in a voice or stage
// channel.
type ScheduledEvent struct {
	ChannelID string
	Name      string
	// Start is scheduled_start_time; zero is an hour from the fake's now.
	Start time.Time
}

// AddScheduledEvent creates a scheduled event (status 1, scheduled; entity
// type 1 in a stage channel, 2 in a voice channel) and dispatches
// GUILD_SCHEDULED_EVENT_CREATE. It returns the event, or an error for an
// unknown channel.
func (s *Server) AddScheduledEvent(ctx context.Context, e ScheduledEvent) (discordgo.GuildScheduledEvent, error) {
	s.mu.Lock()
	ch := s.voiceChannelLocked(e.ChannelID)
	if ch == nil {
		s.mu.Unlock()
		return discordgo.GuildScheduledEvent{}, fmt.Errorf("discordtest: no voice or stage channel %s", e.ChannelID)
	}
	kind := discordgo.GuildScheduledEventEntityTypeVoice
	if ch.Type == discordgo.ChannelTypeGuildStageVoice {
		kind = discordgo.GuildScheduledEventEntityTypeStageInstance
	}
	start := e.Start
	if start.IsZero() {
		start = s.now().Add(time.Hour)
	}
	ev := &discordgo.GuildScheduledEvent{
		ID: s.newIDLocked(), GuildID: s.opts.GuildID, ChannelID: e.ChannelID, CreatorID: s.guild.owner, Name: e.Name,
		ScheduledStartTime: start.UTC(), PrivacyLevel: discordgo.GuildScheduledEventPrivacyLevelGuildOnly,
		Status: discordgo.GuildScheduledEventStatusScheduled, EntityType: kind,
	}
	s.voice.events = append(s.voice.events, ev)
	s.notifyLocked()
	out, payload := *ev, eventPayload(ev)
	s.mu.Unlock()
	return out, s.Dispatch(ctx, "GUILD_SCHEDULED_EVENT_CREATE", payload)
}

// SetScheduledEventStatus moves a scheduled event to status and dispatches
// GUILD_SCHEDULED_EVENT_UPDATE. Like Discord it allows only scheduled ->
// active -> completed and scheduled -> canceled; it returns an error for
// another change or an unknown event.
func (s *Server) SetScheduledEventStatus(ctx context.Context, id string, status discordgo.GuildScheduledEventStatus) error {
	s.mu.Lock()
	ev := s.eventLocked(id)
	if ev == nil {
		s.mu.Unlock()
		return fmt.Errorf("discordtest: no scheduled event %s", id)
	}
	allowed := map[discordgo.GuildScheduledEventStatus][]discordgo.GuildScheduledEventStatus{
		discordgo.GuildScheduledEventStatusScheduled: {discordgo.GuildScheduledEventStatusActive, discordgo.GuildScheduledEventStatusCanceled},
		discordgo.GuildScheduledEventStatusActive:    {discordgo.GuildScheduledEventStatusCompleted},
	}
	if !slices.Contains(allowed[ev.Status], status) {
		s.mu.Unlock()
		return fmt.Errorf("discordtest: a scheduled event cannot go from status %d to %d", ev.Status, status)
	}
	ev.Status = status
	s.notifyLocked()
	payload := eventPayload(ev)
	s.mu.Unlock()
	return s.Dispatch(ctx, "GUILD_SCHEDULED_EVENT_UPDATE", payload)
}

// DeleteScheduledEvent removes a scheduled event and dispatches
// GUILD_SCHEDULED_EVENT_DELETE with it. It returns an error for an
// unknown event.
func (s *Server) DeleteScheduledEvent(ctx context.Context, id string) error {
	s.mu.Lock()
	ev := s.eventLocked(id)
	if ev == nil {
		s.mu.Unlock()
		return fmt.Errorf("discordtest: no scheduled event %s", id)
	}
	s.voice.events = slices.DeleteFunc(s.voice.events, func(e *discordgo.GuildScheduledEvent) bool { return e.ID == id })
	s.notifyLocked()
	payload := eventPayload(ev)
	s.mu.Unlock()
	return s.Dispatch(ctx, "GUILD_SCHEDULED_EVENT_DELETE", payload)
}

// eventLocked returns the scheduled event, nil when there is none; s.mu
// must be held.
func (s *Server) eventLocked(id string) *discordgo.GuildScheduledEvent {
	for _, e := range s.voice.events {
		if e.ID == id {
			return e
		}
	}
	return nil
}

// eventPayload is a scheduled event as Discord sends it: the fields of a
// voice or stage event, with null where Discord has null.
func eventPayload(e *discordgo.GuildScheduledEvent) map[string]any {
	return map[string]any{
		"id": e.ID, "guild_id": e.GuildID, "channel_id": e.ChannelID, "creator_id": e.CreatorID, "name": e.Name,
		"description": nil, "scheduled_start_time": e.ScheduledStartTime.Format(time.RFC3339),
		"scheduled_end_time": nil, "privacy_level": e.PrivacyLevel, "status": e.Status, "entity_type": e.EntityType,
		"entity_id": nil, "entity_metadata": nil, "image": nil, "recurrence_rule": nil,
	}
}

// getScheduledEvents answers GET /guilds/{guild}/scheduled-events.
func (s *Server) getScheduledEvents(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	out := []any{}
	for _, e := range s.voice.events {
		out = append(out, eventPayload(e))
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// getScheduledEvent answers GET /guilds/{guild}/scheduled-events/{event},
// 404 Unknown Guild Scheduled Event for none.
func (s *Server) getScheduledEvent(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	ev := s.eventLocked(r.PathValue("event"))
	var out map[string]any
	if ev != nil {
		out = eventPayload(ev)
	}
	s.mu.Unlock()
	if out == nil {
		writeError(w, http.StatusNotFound, codeUnknownGuildScheduledEvent, "Unknown Guild Scheduled Event")
		return
	}
	writeJSON(w, http.StatusOK, out)
}
