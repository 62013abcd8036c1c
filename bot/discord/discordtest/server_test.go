package discordtest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/core/coretest"
)

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// restCode returns Discord's JSON error code of a REST error, or 0.
func restCode(err error) int {
	var re *discordgo.RESTError
	if errors.As(err, &re) && re.Message != nil {
		return re.Message.Code
	}
	return 0
}

func build(t *testing.T, srv *discordtest.Server, spec discordtest.InteractionSpec) (*discordtest.Interaction, *discordgo.Interaction) {
	t.Helper()
	it, raw, err := srv.Build(spec)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return it, raw
}

var help = &discordgo.ApplicationCommandInteractionData{Name: "help"}

func TestServer_Acknowledge(t *testing.T) {
	t.Parallel()
	clock := coretest.NewClock(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	srv := discordtest.NewServer(t, discordtest.Options{Clock: clock})
	s := srv.Session()
	msg := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource, Data: &discordgo.InteractionResponseData{Content: "hi"}}

	once, onceRaw := build(t, srv, discordtest.InteractionSpec{Data: help})
	if created, err := discordgo.SnowflakeTimestamp(onceRaw.ID); err != nil || !created.Equal(clock.Now()) || !once.Sent.Equal(clock.Now()) {
		t.Errorf("interaction id %s encodes %v (%v), Sent %v; want the clock's %v", onceRaw.ID, created, err, once.Sent, clock.Now())
	}
	if err := s.InteractionRespond(onceRaw, msg); err != nil {
		t.Fatalf("first callback: %v", err)
	}
	if err := s.InteractionRespond(onceRaw, msg); restCode(err) != 40060 {
		t.Errorf("second callback = %v, want code 40060", err)
	}

	onTime, onTimeRaw := build(t, srv, discordtest.InteractionSpec{Data: help})
	late, lateRaw := build(t, srv, discordtest.InteractionSpec{Data: help})
	clock.Add(3 * time.Second) // Discord's deadline, to the nanosecond: still in time
	if err := s.InteractionRespond(onTimeRaw, msg); err != nil {
		t.Errorf("callback at the deadline: %v", err)
	}
	clock.Add(time.Millisecond)
	if err := s.InteractionRespond(lateRaw, msg); restCode(err) != 10062 {
		t.Errorf("late callback = %v, want code 10062 Unknown interaction", err)
	}
	if r, err := onTime.WaitResponse(ctxFor(t)); err != nil || r.Status != 204 || r.Late {
		t.Errorf("response at the deadline = %+v, %v; want status 204, not late", r, err)
	}
	if r, err := late.WaitResponse(ctxFor(t)); err != nil || r.Status != 404 || !r.Late {
		t.Errorf("late response = %+v, %v; want status 404, late", r, err)
	}
	want := []discordtest.LateCallback{{Interaction: late.ID, Late: time.Millisecond}}
	if diff := cmp.Diff(want, srv.LateCallbacks()); diff != "" {
		t.Errorf("LateCallbacks() mismatch (-want +got):\n%s", diff)
	}
}

// TestServer_FollowupAfterDefer checks the rule the adapter relies on: a
// follow-up sent while a deferral loads replaces it and keeps its
// visibility.
func TestServer_FollowupAfterDefer(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t, discordtest.Options{})
	s := srv.Session()
	it, raw := build(t, srv, discordtest.InteractionSpec{Data: help})
	deferral := &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseDeferredChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Flags: discordgo.MessageFlagsEphemeral},
	}
	if err := s.InteractionRespond(raw, deferral); err != nil {
		t.Fatal(err)
	}
	if m := it.Messages(); len(m) != 1 || !m[0].Loading {
		t.Fatalf("after deferral: %+v, want one loading message", m)
	}
	if _, err := s.FollowupMessageCreate(raw, true, &discordgo.WebhookParams{Content: "public?"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FollowupMessageCreate(raw, true, &discordgo.WebhookParams{Content: "second"}); err != nil {
		t.Fatal(err)
	}
	got := it.Messages()
	want := []string{"public? ephemeral=true", "second ephemeral=false"}
	var gotS []string
	for _, m := range got {
		gotS = append(gotS, m.Content+" ephemeral="+map[bool]string{true: "true", false: "false"}[m.Ephemeral])
	}
	if !cmp.Equal(gotS, want) {
		t.Errorf("messages = %v, want %v", gotS, want)
	}
	if err := s.InteractionResponseDelete(raw); err != nil {
		t.Fatal(err)
	}
	if m := it.Messages(); len(m) != 1 || m[0].Content != "second" {
		t.Errorf("after deleting the original: %+v, want only the second follow-up", m)
	}
}

func TestServer_Line(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t, discordtest.Options{})
	s := srv.Session()
	str, integer := discordgo.ApplicationCommandOptionString, discordgo.ApplicationCommandOptionInteger
	cmds := []*discordgo.ApplicationCommand{{Name: "drop", Description: "d", Options: []*discordgo.ApplicationCommandOption{{
		Type: discordgo.ApplicationCommandOptionSubCommand, Name: "add", Description: "a",
		Options: []*discordgo.ApplicationCommandOption{
			{Type: integer, Name: "event", Description: "e", Required: true},
			{Type: discordgo.ApplicationCommandOptionUser, Name: "who", Description: "w"},
			{Type: discordgo.ApplicationCommandOptionAttachment, Name: "file", Description: "f"},
			{Type: str, Name: "message", Description: "m"},
		},
	}}}}
	if _, err := s.ApplicationCommandBulkOverwrite(srv.AppID(), srv.GuildID(), cmds); err != nil {
		t.Fatal(err)
	}
	_, raw := build(t, srv, discordtest.InteractionSpec{Line: `/drop add 123 who:<@42> file:codes.csv hello "big world"`})
	data := raw.ApplicationCommandData()
	sub := data.Options[0]
	got := map[string]any{}
	for _, o := range sub.Options {
		got[o.Name] = o.Value
	}
	fileID, _ := got["file"].(string)
	want := map[string]any{"event": int64(123), "who": "42", "file": fileID, "message": "hello big world"}
	if data.Name != "drop" || sub.Name != "add" || !cmp.Equal(got, want) {
		t.Errorf("line data = %s %s %v, want drop add %v", data.Name, sub.Name, got, want)
	}
	if a := data.Resolved.Attachments[fileID]; a == nil || a.Filename != "codes.csv" || a.ContentType == "" {
		t.Errorf("resolved attachment = %+v, want codes.csv", a)
	}
	if _, _, err := srv.Build(discordtest.InteractionSpec{Line: "/drop add x"}); err == nil {
		t.Error("Build with a non-integer event = nil error, want one")
	}
}
