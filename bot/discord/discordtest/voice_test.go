package discordtest_test

import (
	"context"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/bot/discord/discordtest"
)

const (
	stageID = "700000000000000001"
	voiceID = "700000000000000002"
	robotID = "400000000000000023"
)

// receive waits for the next event on ch.
func receive[T any](t *testing.T, ctx context.Context, ch <-chan T, what string) T {
	t.Helper()
	select {
	case e := <-ch:
		return e
	case <-ctx.Done():
		t.Fatalf("no %s", what)
		var zero T
		return zero
	}
}

// TestServer_Voice checks that a real discordgo session receives the
// fake's voice channels and states in GUILD_CREATE, and VOICE_STATE_UPDATE
// as discordgo types: a join, a deafen, a move to a stage (suppressed),
// a leave (no channel), a bot.
func TestServer_Voice(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t, discordtest.Options{})
	srv.AddVoiceChannel(stageID, "Town hall", true)
	srv.AddVoiceChannel(voiceID, "Lounge", false)
	srv.AddMember(carol, "Carol")
	srv.AddMember(dave, "Dave")
	srv.AddBot(robotID, "Music")
	if err := srv.PutVoice(carol, discordtest.Voice{ChannelID: stageID, SelfMute: true}); err != nil {
		t.Fatal(err)
	}
	if err := srv.JoinVoice(context.Background(), "999", stageID); err == nil {
		t.Error("JoinVoice(not a member) = nil, want an error")
	}

	s := srv.Session()
	s.Identify.Intents = discordgo.IntentGuilds | discordgo.IntentGuildVoiceStates | discordgo.IntentGuildScheduledEvents
	created := make(chan *discordgo.GuildCreate, 1)
	updates := make(chan *discordgo.VoiceStateUpdate, 8)
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.GuildCreate) { created <- e })
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.VoiceStateUpdate) { updates <- e })
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := ctxFor(t)

	g := receive(t, ctx, created, "GUILD_CREATE")
	kinds := map[string]discordgo.ChannelType{}
	for _, c := range g.Channels {
		kinds[c.ID] = c.Type
	}
	if kinds[stageID] != discordgo.ChannelTypeGuildStageVoice || kinds[voiceID] != discordgo.ChannelTypeGuildVoice {
		t.Errorf("GUILD_CREATE channels = %v, want a stage (13) and a voice channel (2)", kinds)
	}
	if len(g.VoiceStates) != 1 || g.VoiceStates[0].UserID != carol || g.VoiceStates[0].ChannelID != stageID ||
		!g.VoiceStates[0].SelfMute || !g.VoiceStates[0].Suppress || g.VoiceStates[0].SessionID == "" {
		t.Errorf("GUILD_CREATE voice_states = %+v, want Carol muted in the stage's audience", g.VoiceStates)
	}
	if len(g.Members) != 2 || g.Members[1].User.ID != carol {
		t.Errorf("GUILD_CREATE members = %d, want the bot and Carol (in voice)", len(g.Members))
	}

	steps := []struct {
		name  string
		act   func() error
		check func(*discordgo.VoiceStateUpdate) bool
	}{
		{"join", func() error { return srv.JoinVoice(ctx, dave, voiceID) }, func(e *discordgo.VoiceStateUpdate) bool {
			return e.UserID == dave && e.ChannelID == voiceID && e.GuildID == srv.GuildID() && e.Member != nil &&
				e.Member.User.ID == dave && e.SessionID != "" && !e.Suppress && !e.SelfDeaf
		}},
		{"deafen", func() error {
			return srv.SetVoice(ctx, dave, discordtest.Voice{ChannelID: voiceID, SelfDeaf: true, SelfMute: true})
		}, func(e *discordgo.VoiceStateUpdate) bool {
			return e.ChannelID == voiceID && e.SelfDeaf && e.SelfMute && !e.Deaf
		}},
		{"server deafen", func() error { return srv.SetVoice(ctx, dave, discordtest.Voice{ChannelID: voiceID, Deaf: true}) },
			func(e *discordgo.VoiceStateUpdate) bool { return e.Deaf && !e.SelfDeaf }},
		{"move to the stage", func() error { return srv.JoinVoice(ctx, dave, stageID) },
			func(e *discordgo.VoiceStateUpdate) bool { return e.ChannelID == stageID && e.Suppress && !e.Deaf }},
		{"leave", func() error { return srv.LeaveVoice(ctx, dave) },
			func(e *discordgo.VoiceStateUpdate) bool { return e.UserID == dave && e.ChannelID == "" }},
		{"a bot", func() error { return srv.JoinVoice(ctx, robotID, voiceID) },
			func(e *discordgo.VoiceStateUpdate) bool { return e.Member != nil && e.Member.User.Bot }},
	}
	for _, st := range steps {
		if err := st.act(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if e := receive(t, ctx, updates, "VOICE_STATE_UPDATE after "+st.name); !st.check(e) {
			t.Errorf("%s: VOICE_STATE_UPDATE = %+v (member %+v)", st.name, e.VoiceState, e.Member)
		}
	}
	if got := srv.VoiceStates(); len(got) != 2 || got[0].UserID != carol || got[1].UserID != robotID {
		t.Errorf("VoiceStates = %+v, want Carol and the bot", got)
	}
	if c, err := s.Channel(stageID); err != nil || c.Type != discordgo.ChannelTypeGuildStageVoice || c.Name != "Town hall" {
		t.Errorf("Channel(stage) = %+v, %v", c, err)
	}
	if _, err := s.Channel("1234"); restCode(err) != discordgo.ErrCodeUnknownChannel {
		t.Errorf("Channel(unknown) = %v, want code 10003", err)
	}
}

// TestServer_ScheduledEvents checks GUILD_SCHEDULED_EVENT_CREATE, _UPDATE
// (active, completed) and _DELETE as discordgo types, Discord's status
// transitions, and GET /guilds/{g}/scheduled-events.
func TestServer_ScheduledEvents(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t, discordtest.Options{})
	srv.AddVoiceChannel(stageID, "Town hall", true)
	srv.AddVoiceChannel(voiceID, "Lounge", false)
	s := srv.Session()
	s.Identify.Intents = discordgo.IntentGuilds | discordgo.IntentGuildScheduledEvents
	created := make(chan *discordgo.GuildScheduledEventCreate, 2)
	updated := make(chan *discordgo.GuildScheduledEventUpdate, 2)
	deleted := make(chan *discordgo.GuildScheduledEventDelete, 1)
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.GuildScheduledEventCreate) { created <- e })
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.GuildScheduledEventUpdate) { updated <- e })
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.GuildScheduledEventDelete) { deleted <- e })
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := ctxFor(t)

	call, err := srv.AddScheduledEvent(ctx, discordtest.ScheduledEvent{ChannelID: stageID, Name: "Community call"})
	if err != nil {
		t.Fatal(err)
	}
	if e := receive(t, ctx, created, "GUILD_SCHEDULED_EVENT_CREATE"); e.ID != call.ID || e.ChannelID != stageID || e.Name != "Community call" ||
		e.Status != discordgo.GuildScheduledEventStatusScheduled || e.EntityType != discordgo.GuildScheduledEventEntityTypeStageInstance ||
		e.ScheduledStartTime.IsZero() {
		t.Errorf("GUILD_SCHEDULED_EVENT_CREATE = %+v, want a scheduled stage event", e.GuildScheduledEvent)
	}
	for _, status := range []discordgo.GuildScheduledEventStatus{discordgo.GuildScheduledEventStatusActive, discordgo.GuildScheduledEventStatusCompleted} {
		if err := srv.SetScheduledEventStatus(ctx, call.ID, status); err != nil {
			t.Fatal(err)
		}
		if e := receive(t, ctx, updated, "GUILD_SCHEDULED_EVENT_UPDATE"); e.ID != call.ID || e.Status != status || e.GuildID != srv.GuildID() {
			t.Errorf("GUILD_SCHEDULED_EVENT_UPDATE = %+v, want status %d", e.GuildScheduledEvent, status)
		}
	}
	if err := srv.SetScheduledEventStatus(ctx, call.ID, discordgo.GuildScheduledEventStatusActive); err == nil {
		t.Error("completed -> active = nil, want an error (Discord refuses it)")
	}
	list, err := s.GuildScheduledEvents(srv.GuildID(), false)
	if err != nil || len(list) != 1 || list[0].Status != discordgo.GuildScheduledEventStatusCompleted {
		t.Errorf("GuildScheduledEvents = %+v, %v; want the completed call", list, err)
	}

	lounge, err := srv.AddScheduledEvent(ctx, discordtest.ScheduledEvent{ChannelID: voiceID, Name: "Hangout"})
	if err != nil {
		t.Fatal(err)
	}
	if e := receive(t, ctx, created, "GUILD_SCHEDULED_EVENT_CREATE"); e.EntityType != discordgo.GuildScheduledEventEntityTypeVoice {
		t.Errorf("voice event entity_type = %d, want 2", e.EntityType)
	}
	if err := srv.DeleteScheduledEvent(ctx, lounge.ID); err != nil {
		t.Fatal(err)
	}
	if e := receive(t, ctx, deleted, "GUILD_SCHEDULED_EVENT_DELETE"); e.ID != lounge.ID {
		t.Errorf("GUILD_SCHEDULED_EVENT_DELETE = %+v, want the hangout", e.GuildScheduledEvent)
	}
	if _, err := s.GuildScheduledEvent(srv.GuildID(), lounge.ID, false); restCode(err) != discordgo.ErrCodeUnknownGuildScheduledEvent {
		t.Errorf("GuildScheduledEvent(deleted) = %v, want code 10070", err)
	}
}
