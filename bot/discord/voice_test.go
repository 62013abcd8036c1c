package discord

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/core"
)

var _ VoiceSink = (*core.AttendanceService)(nil)

const (
	voiceChan = "700000000000000002"
	stageChan = "700000000000000001"
	vCarol    = "400000000000000031"
	vDave     = "400000000000000032"
	vErin     = "400000000000000033"
	vRobot    = "400000000000000039"
)

// voiceCall is one call of a VoiceSink.
type voiceCall struct {
	Kind   string // observe, resume, event, left, suspend
	Place  string
	State  core.VoiceState
	States []core.VoiceState
	Event  core.ScheduledEvent
	Member core.Member
	At     time.Time
}

// voiceRecorder is a VoiceSink that hands each call to the test; Resume
// returns resumed and a completed or canceled event stops a session.
type voiceRecorder struct {
	calls   chan voiceCall
	resumed []core.AttendanceSummary
}

func newVoiceRecorder() *voiceRecorder { return &voiceRecorder{calls: make(chan voiceCall, 6000)} }

func (r *voiceRecorder) put(ctx context.Context, c voiceCall) {
	select {
	case r.calls <- c:
	case <-ctx.Done():
	}
}

func (r *voiceRecorder) Observe(ctx context.Context, p core.Place, v core.VoiceState) error {
	r.put(ctx, voiceCall{Kind: "observe", Place: p.ExternalID + "/" + p.Name, State: v})
	return nil
}

func (r *voiceRecorder) Resume(ctx context.Context, p core.Place, current []core.VoiceState) ([]core.AttendanceSummary, error) {
	r.put(ctx, voiceCall{Kind: "resume", Place: p.ExternalID + "/" + p.Name, States: sortStates(current)})
	return r.resumed, nil
}

func (r *voiceRecorder) EventChanged(ctx context.Context, p core.Place, ev core.ScheduledEvent, current []core.VoiceState) (core.EventChange, error) {
	r.put(ctx, voiceCall{Kind: "event", Place: p.ExternalID + "/" + p.Name, Event: ev, States: sortStates(current)})
	if ev.Status == core.EventCompleted || ev.Status == core.EventCanceled {
		return core.EventChange{Stopped: &core.AttendanceSummary{Session: core.AttendanceSession{ScheduledEventID: ev.ID}, Attended: len(current)}}, nil
	}
	return core.EventChange{}, nil
}

func (r *voiceRecorder) MemberLeft(ctx context.Context, p core.Place, m core.Member, at time.Time) error {
	r.put(ctx, voiceCall{Kind: "left", Place: p.ExternalID + "/" + p.Name, Member: m, At: at})
	return nil
}

func (r *voiceRecorder) Suspend(ctx context.Context, p core.Place, at time.Time) error {
	r.put(ctx, voiceCall{Kind: "suspend", Place: p.ExternalID + "/" + p.Name, At: at})
	return nil
}

// next waits for the next call.
func (r *voiceRecorder) next(ctx context.Context, t *testing.T) voiceCall {
	t.Helper()
	select {
	case c := <-r.calls:
		return c
	case <-ctx.Done():
		t.Fatalf("no call of the voice sink: %v", ctx.Err())
		return voiceCall{}
	}
}

// none checks that no call is waiting.
func (r *voiceRecorder) none(t *testing.T) {
	t.Helper()
	select {
	case c := <-r.calls:
		t.Errorf("unexpected call %+v", c)
	default:
	}
}

func sortStates(vs []core.VoiceState) []core.VoiceState {
	out := slices.Clone(vs)
	slices.SortFunc(out, func(a, b core.VoiceState) int { return strings.Compare(a.Member.ExternalID, b.Member.ExternalID) })
	return out
}

var voiceNow = time.Date(2026, 11, 26, 18, 0, 0, 0, time.UTC)

// voiceFake is the fake with a voice and a stage channel, Carol, Dave and
// Erin, and a bot account.
func voiceFake(t *testing.T) *discordtest.Server {
	t.Helper()
	fake := discordtest.NewServer(t, discordtest.Options{})
	fake.AddVoiceChannel(stageChan, "Town hall", true)
	fake.AddVoiceChannel(voiceChan, "Lounge", false)
	fake.AddMember(vCarol, "Carol")
	fake.AddMember(vDave, "Dave")
	fake.AddMember(vErin, "Erin")
	fake.AddBot(vRobot, "Music")
	return fake
}

// summaryRecorder is an Options.Summaries that hands the summaries to the
// test.
type summaryRecorder chan []core.AttendanceSummary

func (s summaryRecorder) post(ctx context.Context, sums []core.AttendanceSummary) {
	select {
	case s <- sums:
	case <-ctx.Done():
	}
}

// startVoice runs an adapter against fake with rec as Options.Voice, the
// clock at voiceNow.
func startVoice(t *testing.T, fake *discordtest.Server, rec *voiceRecorder, sums summaryRecorder) *rig {
	t.Helper()
	opts := Options{Voice: rec}
	if sums != nil {
		opts.Summaries = sums.post
	}
	return startOn(t, fake, plainBot(), opts, func(a *Adapter) { a.now = func() time.Time { return voiceNow } })
}

// member is the core member of a fake's member.
func member(id, name string) core.Member {
	return core.Member{Platform: core.Discord, ExternalID: id, Name: name}
}

var guildPlace = discordtest.DefaultGuildID + "/" + discordtest.DefaultGuildName

// TestVoice_States checks what VOICE_STATE_UPDATE gives Observe: a join,
// a deafen by the member and by the server, an undeafen, a move to a
// stage, a leave, a bot.
func TestVoice_States(t *testing.T) {
	t.Parallel()
	fake := voiceFake(t)
	rec := newVoiceRecorder()
	startVoice(t, fake, rec, nil)
	ctx := timeout(t, 10*time.Second)
	if c := rec.next(ctx, t); c.Kind != "resume" || len(c.States) != 0 || c.Place != guildPlace {
		t.Fatalf("first call = %+v, want Resume of %s with no one in voice", c, guildPlace)
	}
	steps := []struct {
		name string
		user string
		v    discordtest.Voice
		want core.VoiceState
	}{
		{"Join", vCarol, discordtest.Voice{ChannelID: voiceChan}, core.VoiceState{Member: member(vCarol, "Carol"), ChannelID: voiceChan}},
		{"SelfMuteCounts", vCarol, discordtest.Voice{ChannelID: voiceChan, SelfMute: true}, core.VoiceState{Member: member(vCarol, "Carol"), ChannelID: voiceChan}},
		{"SelfDeaf", vCarol, discordtest.Voice{ChannelID: voiceChan, SelfDeaf: true, SelfMute: true}, core.VoiceState{Member: member(vCarol, "Carol"), ChannelID: voiceChan, Deafened: true}},
		{"Undeafen", vCarol, discordtest.Voice{ChannelID: voiceChan}, core.VoiceState{Member: member(vCarol, "Carol"), ChannelID: voiceChan}},
		{"ServerDeaf", vCarol, discordtest.Voice{ChannelID: voiceChan, Deaf: true}, core.VoiceState{Member: member(vCarol, "Carol"), ChannelID: voiceChan, Deafened: true}},
		{"ServerUndeafen", vCarol, discordtest.Voice{ChannelID: voiceChan}, core.VoiceState{Member: member(vCarol, "Carol"), ChannelID: voiceChan}},
		{"MoveToStage", vCarol, discordtest.Voice{ChannelID: stageChan}, core.VoiceState{Member: member(vCarol, "Carol"), ChannelID: stageChan}},
		{"Leave", vCarol, discordtest.Voice{}, core.VoiceState{Member: member(vCarol, "Carol"), ChannelID: ""}},
		{"Bot", vRobot, discordtest.Voice{ChannelID: voiceChan}, core.VoiceState{Member: member(vRobot, "Music"), ChannelID: voiceChan, Bot: true}},
	}
	for _, st := range steps {
		if err := fake.SetVoice(ctx, st.user, st.v); err != nil {
			t.Fatal(err)
		}
		c := rec.next(ctx, t)
		want := st.want
		want.At = voiceNow
		if c.Kind != "observe" || c.Place != guildPlace {
			t.Fatalf("%s: call %+v, want Observe in %s", st.name, c, guildPlace)
		}
		if diff := cmp.Diff(want, c.State); diff != "" {
			t.Errorf("%s: Observe state (-want +got):\n%s", st.name, diff)
		}
	}
	rec.none(t)
}

// TestVoice_Restart checks that GUILD_CREATE's voice states reach Resume
// with names and bot flags from its members, at start-up and after a
// restart that missed changes, and that Resume's summaries reach
// Options.Summaries.
func TestVoice_Restart(t *testing.T) {
	t.Parallel()
	fake := voiceFake(t)
	for id, v := range map[string]discordtest.Voice{
		vCarol: {ChannelID: voiceChan},
		vDave:  {ChannelID: stageChan, SelfDeaf: true},
		vRobot: {ChannelID: voiceChan},
	} {
		if err := fake.PutVoice(id, v); err != nil {
			t.Fatal(err)
		}
	}
	rec := newVoiceRecorder()
	rec.resumed = []core.AttendanceSummary{{Attended: 7}}
	sums := make(summaryRecorder, 4)
	r := startVoice(t, fake, rec, sums)
	ctx := timeout(t, 10*time.Second)
	want := voiceCall{Kind: "resume", Place: guildPlace, States: []core.VoiceState{
		{Member: member(vCarol, "Carol"), ChannelID: voiceChan, At: voiceNow},
		{Member: member(vDave, "Dave"), ChannelID: stageChan, Deafened: true, At: voiceNow},
		{Member: member(vRobot, "Music"), ChannelID: voiceChan, Bot: true, At: voiceNow},
	}}
	if diff := cmp.Diff(want, rec.next(ctx, t)); diff != "" {
		t.Errorf("start-up Resume (-want +got):\n%s", diff)
	}
	select {
	case got := <-sums:
		if len(got) != 1 || got[0].Attended != 7 {
			t.Errorf("Summaries got %+v, want Resume's", got)
		}
	case <-ctx.Done():
		t.Fatal("Resume's summaries never reached Options.Summaries")
	}
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}

	// While the bot is down: Carol leaves, Dave undeafens, Erin joins.
	for id, v := range map[string]discordtest.Voice{vCarol: {}, vDave: {ChannelID: stageChan}, vErin: {ChannelID: voiceChan, Mute: true}} {
		if err := fake.PutVoice(id, v); err != nil {
			t.Fatal(err)
		}
	}
	rec.resumed = nil
	startVoice(t, fake, rec, sums)
	want.States = []core.VoiceState{
		{Member: member(vDave, "Dave"), ChannelID: stageChan, At: voiceNow},
		{Member: member(vErin, "Erin"), ChannelID: voiceChan, At: voiceNow},
		{Member: member(vRobot, "Music"), ChannelID: voiceChan, Bot: true, At: voiceNow},
	}
	if diff := cmp.Diff(want, rec.next(ctx, t)); diff != "" {
		t.Errorf("Resume after the restart (-want +got):\n%s", diff)
	}
	// The voice states of the new session are followed too.
	if err := fake.JoinVoice(ctx, vCarol, voiceChan); err != nil {
		t.Fatal(err)
	}
	if c := rec.next(ctx, t); c.Kind != "observe" || c.State.Member.ExternalID != vCarol || c.State.ChannelID != voiceChan {
		t.Errorf("after the restart: %+v, want Carol's join", c)
	}
	select {
	case got := <-sums:
		t.Errorf("Summaries got %+v with no session stopped", got)
	default:
	}
	rec.none(t)
}

// TestVoice_ScheduledEvents checks that a scheduled event's start,
// completion, cancellation and deletion reach EventChanged with the voice
// states of its channel at that moment, and the summaries of the sessions
// stopped reach Options.Summaries.
func TestVoice_ScheduledEvents(t *testing.T) {
	t.Parallel()
	fake := voiceFake(t)
	if err := fake.PutVoice(vCarol, discordtest.Voice{ChannelID: voiceChan}); err != nil {
		t.Fatal(err)
	}
	rec := newVoiceRecorder()
	sums := make(summaryRecorder, 4)
	startVoice(t, fake, rec, sums)
	ctx := timeout(t, 10*time.Second)
	if c := rec.next(ctx, t); c.Kind != "resume" || len(c.States) != 1 {
		t.Fatalf("first call %+v, want Resume with Carol", c)
	}
	observe := func(user string, v discordtest.Voice) {
		t.Helper()
		if err := fake.SetVoice(ctx, user, v); err != nil {
			t.Fatal(err)
		}
		if c := rec.next(ctx, t); c.Kind != "observe" || c.State.Member.ExternalID != user {
			t.Fatalf("call %+v, want Observe of %s", c, user)
		}
	}
	observe(vDave, discordtest.Voice{ChannelID: stageChan})
	observe(vRobot, discordtest.Voice{ChannelID: voiceChan})
	carolIn := core.VoiceState{Member: member(vCarol, "Carol"), ChannelID: voiceChan, At: voiceNow}
	daveIn := core.VoiceState{Member: member(vDave, "Dave"), ChannelID: voiceChan, Deafened: true, At: voiceNow}
	robotIn := core.VoiceState{Member: member(vRobot, "Music"), ChannelID: voiceChan, Bot: true, At: voiceNow}

	call, err := fake.AddScheduledEvent(ctx, discordtest.ScheduledEvent{ChannelID: voiceChan, Name: "Community call"})
	if err != nil {
		t.Fatal(err)
	}
	if err := fake.SetScheduledEventStatus(ctx, call.ID, discordgo.GuildScheduledEventStatusActive); err != nil {
		t.Fatal(err)
	}
	want := voiceCall{Kind: "event", Place: guildPlace, Event: core.ScheduledEvent{ID: call.ID, ChannelID: voiceChan, Status: core.EventActive},
		States: []core.VoiceState{carolIn, robotIn}}
	if diff := cmp.Diff(want, rec.next(ctx, t)); diff != "" {
		t.Errorf("event active (-want +got):\n%s", diff)
	}
	observe(vDave, discordtest.Voice{ChannelID: voiceChan, SelfDeaf: true})
	if err := fake.SetScheduledEventStatus(ctx, call.ID, discordgo.GuildScheduledEventStatusCompleted); err != nil {
		t.Fatal(err)
	}
	want.Event.Status, want.States = core.EventCompleted, []core.VoiceState{carolIn, daveIn, robotIn}
	if diff := cmp.Diff(want, rec.next(ctx, t)); diff != "" {
		t.Errorf("event completed (-want +got):\n%s", diff)
	}
	select {
	case got := <-sums:
		if len(got) != 1 || got[0].Session.ScheduledEventID != call.ID || got[0].Attended != 3 {
			t.Errorf("Summaries got %+v, want the completed event's", got)
		}
	case <-ctx.Done():
		t.Fatal("the stopped session's summary never reached Options.Summaries")
	}

	// A stage event cancelled, another deleted: both Canceled.
	observe(vCarol, discordtest.Voice{ChannelID: stageChan})
	carolOnStage := core.VoiceState{Member: member(vCarol, "Carol"), ChannelID: stageChan, At: voiceNow}
	talk, err := fake.AddScheduledEvent(ctx, discordtest.ScheduledEvent{ChannelID: stageChan, Name: "Talk"})
	if err != nil {
		t.Fatal(err)
	}
	if err := fake.SetScheduledEventStatus(ctx, talk.ID, discordgo.GuildScheduledEventStatusCanceled); err != nil {
		t.Fatal(err)
	}
	want = voiceCall{Kind: "event", Place: guildPlace, Event: core.ScheduledEvent{ID: talk.ID, ChannelID: stageChan, Status: core.EventCanceled},
		States: []core.VoiceState{carolOnStage}}
	if diff := cmp.Diff(want, rec.next(ctx, t)); diff != "" {
		t.Errorf("event cancelled (-want +got):\n%s", diff)
	}
	<-sums
	gone, err := fake.AddScheduledEvent(ctx, discordtest.ScheduledEvent{ChannelID: stageChan, Name: "Gone"})
	if err != nil {
		t.Fatal(err)
	}
	if err := fake.DeleteScheduledEvent(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	want.Event.ID = gone.ID
	if diff := cmp.Diff(want, rec.next(ctx, t)); diff != "" {
		t.Errorf("event deleted (-want +got):\n%s", diff)
	}
	<-sums
	rec.none(t)
}

// TestVoice_MemberLeft checks that a member leaving the server reaches
// MemberLeft, after their voice events, and is no longer among a
// channel's voice states; the member cache still learns of it.
func TestVoice_MemberLeft(t *testing.T) {
	t.Parallel()
	fake := voiceFake(t)
	if err := fake.PutVoice(vCarol, discordtest.Voice{ChannelID: voiceChan}); err != nil {
		t.Fatal(err)
	}
	rec := newVoiceRecorder()
	r := startVoice(t, fake, rec, nil)
	ctx := timeout(t, 10*time.Second)
	rec.next(ctx, t) // Resume
	if err := fake.Leave(ctx, vCarol); err != nil {
		t.Fatal(err)
	}
	want := voiceCall{Kind: "left", Place: guildPlace, Member: member(vCarol, "Carol"), At: voiceNow}
	if diff := cmp.Diff(want, rec.next(ctx, t)); diff != "" {
		t.Errorf("MemberLeft (-want +got):\n%s", diff)
	}
	waitCached(ctx, t, r.adapter.members, memberKey{discordtest.DefaultGuildID, vCarol}, func(e memberEntry, ok bool) bool { return ok && !e.in })
	ev, err := fake.AddScheduledEvent(ctx, discordtest.ScheduledEvent{ChannelID: voiceChan, Name: "Call"})
	if err != nil {
		t.Fatal(err)
	}
	if err := fake.SetScheduledEventStatus(ctx, ev.ID, discordgo.GuildScheduledEventStatusActive); err != nil {
		t.Fatal(err)
	}
	if c := rec.next(ctx, t); c.Kind != "event" || len(c.States) != 0 {
		t.Errorf("event after Carol left: %+v, want no one in the channel", c)
	}
}

// TestVoice_GuildUnavailable: a server that becomes unavailable
// (GUILD_DELETE with unavailable, a Discord outage) has its sessions
// suspended then; its next GUILD_CREATE resumes them.
func TestVoice_GuildUnavailable(t *testing.T) {
	t.Parallel()
	fake := voiceFake(t)
	rec := newVoiceRecorder()
	startVoice(t, fake, rec, nil)
	ctx := timeout(t, 10*time.Second)
	rec.next(ctx, t) // Resume
	gone := map[string]any{"id": discordtest.DefaultGuildID, "unavailable": true}
	if err := fake.Dispatch(ctx, "GUILD_DELETE", gone); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(voiceCall{Kind: "suspend", Place: guildPlace, At: voiceNow}, rec.next(ctx, t)); diff != "" {
		t.Errorf("on GUILD_DELETE (-want +got):\n%s", diff)
	}
}

// TestVoice_Burst checks that a burst of 5,000 VOICE_STATE_UPDATEs over
// 500 members arrives complete and, for each member, in order.
func TestVoice_Burst(t *testing.T) {
	t.Parallel()
	const members, perMember = 500, 10
	fake := voiceFake(t)
	ids := make([]string, members)
	for i := range ids {
		ids[i] = fmt.Sprintf("5%017d", i)
		fake.AddMember(ids[i], fmt.Sprintf("m%d", i))
	}
	rec := newVoiceRecorder()
	startVoice(t, fake, rec, nil)
	ctx := timeout(t, 60*time.Second)
	rec.next(ctx, t) // Resume
	// Member i's step k: the voice or the stage channel by turns,
	// deafened every third step, out of voice at the last.
	step := func(k int) discordtest.Voice {
		if k == perMember-1 {
			return discordtest.Voice{}
		}
		return discordtest.Voice{ChannelID: []string{voiceChan, stageChan}[k%2], SelfDeaf: k%3 == 1}
	}
	want := map[string][]string{}
	// Each member's steps follow each other, as a flapping connection's
	// do: the events most likely to be reordered.
	for _, id := range ids {
		for k := range perMember {
			v := step(k)
			if err := fake.SetVoice(ctx, id, v); err != nil {
				t.Fatal(err)
			}
			want[id] = append(want[id], fmt.Sprintf("%s/%v", v.ChannelID, v.SelfDeaf))
		}
	}
	got := map[string][]string{}
	for range members * perMember {
		c := rec.next(ctx, t)
		if c.Kind != "observe" {
			t.Fatalf("call %+v, want Observe", c)
		}
		got[c.State.Member.ExternalID] = append(got[c.State.Member.ExternalID], fmt.Sprintf("%s/%v", c.State.ChannelID, c.State.Deafened))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("voice states per member (-want +got):\n%s", diff)
	}
	rec.none(t)
}

// dropCounter is an Observer that counts the drops by reason.
type dropCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (d *dropCounter) CountDiscordVoiceDropped(reason string, n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.n == nil {
		d.n = map[string]int{}
	}
	d.n[reason] += n
}

func (d *dropCounter) counts() map[string]int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return maps.Clone(d.n)
}

// TestVoiceQueue_Full checks that a full backlog drops an event, logged
// and counted (and told to the Observer), after its short wait, the next
// at once, and that the events queued before are handled in order; after
// stop, events are dropped and counted.
func TestVoiceQueue_Full(t *testing.T) {
	t.Parallel()
	q := newVoiceQueue(slog.New(slog.DiscardHandler))
	obs := &dropCounter{}
	q.obs = obs
	q.slots = make(chan struct{}, 2)
	q.fullWait = 0
	release := make(chan struct{})
	var mu sync.Mutex
	var ran []int
	done := make(chan struct{}, 4)
	job := func(n int) voiceJob {
		return voiceJob{kind: "test", run: func(context.Context) error {
			<-release
			mu.Lock()
			ran = append(ran, n)
			mu.Unlock()
			done <- struct{}{}
			return nil
		}}
	}
	q.add("g", job(1))
	q.add("g", job(2))
	q.add("g", job(3)) // the backlog of 2 is full
	if n := q.dropped.Load(); n != 1 {
		t.Errorf("dropped %d, want 1", n)
	}
	// While the backlog stays full, the next event is dropped without
	// waiting again (an hour's wait would time the test out).
	q.fullWait = time.Hour
	q.add("g", job(5))
	if n := q.dropped.Load(); n != 2 {
		t.Errorf("dropped %d, want 2", n)
	}
	if got := obs.counts(); !maps.Equal(got, map[string]int{"full": 2}) {
		t.Errorf("Observer counted %v, want full: 2", got)
	}
	// A control job (the gateway lost, say) is queued all the same, in
	// order.
	control := job(6)
	control.control = true
	q.add("g", control)
	if n := q.dropped.Load(); n != 2 {
		t.Errorf("dropped %d with the control job, want 2", n)
	}
	close(release)
	ctx := timeout(t, 5*time.Second)
	for range 3 {
		select {
		case <-done:
		case <-ctx.Done():
			t.Fatal("queued jobs not run")
		}
	}
	q.stop()
	q.add("g", job(4)) // after stop: dropped
	if n := q.dropped.Load(); n != 3 {
		t.Errorf("dropped %d after stop, want 3", n)
	}
	if got := obs.counts(); !maps.Equal(got, map[string]int{"full": 2, "closing": 1}) {
		t.Errorf("Observer counted %v after stop, want full: 2, closing: 1", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(ran, []int{1, 2, 6}) {
		t.Errorf("ran %v, want [1 2 6]", ran)
	}
}

// TestVoice_AttendanceChannel checks that /attendance start and stop are
// registered with a channel option Discord's picker limits to voice and
// stage channels, and that a channel id typed or forged past the picker is
// refused unless it is a voice or stage channel of the server: the text
// channel, an unknown channel and what is not an id are refused with
// their words, a voice channel is looked up.
func TestVoice_AttendanceChannel(t *testing.T) {
	t.Parallel()
	fake := voiceFake(t)
	rec := newVoiceRecorder()
	startVoice(t, fake, rec, nil)
	ctx := timeout(t, 15*time.Second)
	cmds, err := fake.WaitCommands(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	voiceOnly := []discordgo.ChannelType{discordgo.ChannelTypeGuildVoice, discordgo.ChannelTypeGuildStageVoice}
	for _, sub := range []string{"start", "stop"} {
		opt := findOption(cmds, "attendance", sub, "channel")
		if opt == nil {
			t.Fatalf("registered /attendance %s has no channel option", sub)
		}
		if !slices.Equal(opt.ChannelTypes, voiceOnly) {
			t.Errorf("/attendance %s channel: channel_types %v, want %v", sub, opt.ChannelTypes, voiceOnly)
		}
	}

	for _, c := range []struct {
		name, channel, want string
	}{
		{"TextChannel", discordtest.DefaultChannelID, "<#" + discordtest.DefaultChannelID + "> is not a voice or stage channel"},
		{"UnknownChannel", "700000000000000099", "<#700000000000000099> is not a voice or stage channel"},
		{"NotAnID", "lounge", "That channel is not a voice or stage channel"},
		// A voice channel gets past the check: drop 4242 does not exist.
		{"VoiceChannel", voiceChan, "There is no drop"},
	} {
		it := fake.Command(discordtest.Moderator, "/attendance start channel:"+c.channel+" drop:4242")
		msg, err := it.WaitReply(ctx)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !strings.Contains(msg.Content, c.want) || !msg.Ephemeral {
			t.Errorf("%s: reply %q (ephemeral %v), want an ephemeral %q", c.name, msg.Content, msg.Ephemeral, c.want)
		}
	}
}

// findOption returns the option of a registered command's subcommand.
func findOption(cmds []*discordgo.ApplicationCommand, group, sub, name string) *discordgo.ApplicationCommandOption {
	for _, c := range cmds {
		if c.Name != group {
			continue
		}
		for _, s := range c.Options {
			if s.Name != sub {
				continue
			}
			for _, o := range s.Options {
				if o.Name == name {
					return o
				}
			}
		}
	}
	return nil
}

// movableClock is a clock the test moves.
type movableClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *movableClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *movableClock) set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// TestVoice_Reconnect checks a gateway outage within one run, for a
// session that resumes and for one that Discord invalidates: when the
// gateway drops, the server's sessions are suspended then; once it is
// back, Resume gets who is in voice now, so that the outage is downtime,
// credited to nobody, and a member who left meanwhile is not credited with
// it.
func TestVoice_Reconnect(t *testing.T) {
	t.Parallel()
	for _, resume := range []bool{false, true} {
		t.Run(map[bool]string{false: "InvalidSession", true: "Resumed"}[resume], func(t *testing.T) {
			t.Parallel()
			fake := voiceFake(t)
			for _, id := range []string{vCarol, vDave} {
				if err := fake.PutVoice(id, discordtest.Voice{ChannelID: voiceChan}); err != nil {
					t.Fatal(err)
				}
			}
			clock := &movableClock{now: voiceNow}
			rec := newVoiceRecorder()
			r := startOn(t, fake, plainBot(), Options{Voice: rec, VoiceClock: clock.Now}, nil)
			// Should the test stop during the outage, the bot's held
			// connection is let in first, so that it can close.
			t.Cleanup(func() { fake.Reconnect(false) })
			ctx := timeout(t, 15*time.Second)
			carol := core.VoiceState{Member: member(vCarol, "Carol"), ChannelID: voiceChan, At: voiceNow}
			dave := core.VoiceState{Member: member(vDave, "Dave"), ChannelID: voiceChan, At: voiceNow}
			want := voiceCall{Kind: "resume", Place: guildPlace, States: []core.VoiceState{carol, dave}}
			if diff := cmp.Diff(want, rec.next(ctx, t)); diff != "" {
				t.Fatalf("start-up Resume (-want +got):\n%s", diff)
			}

			// The gateway drops ten minutes in: the server's sessions
			// are suspended then.
			lost := voiceNow.Add(10 * time.Minute)
			clock.set(lost)
			fake.DropGateway()
			if diff := cmp.Diff(voiceCall{Kind: "suspend", Place: guildPlace, At: lost}, rec.next(ctx, t)); diff != "" {
				t.Errorf("on losing the gateway (-want +got):\n%s", diff)
			}

			// While it is down, Carol leaves and Erin joins.
			back := voiceNow.Add(40 * time.Minute)
			if resume {
				// Discord replays the events on resuming.
				if err := fake.LeaveVoice(ctx, vCarol); err != nil {
					t.Fatal(err)
				}
				if err := fake.JoinVoice(ctx, vErin, voiceChan); err != nil {
					t.Fatal(err)
				}
			} else {
				if err := fake.PutVoice(vCarol, discordtest.Voice{}); err != nil {
					t.Fatal(err)
				}
				if err := fake.PutVoice(vErin, discordtest.Voice{ChannelID: voiceChan}); err != nil {
					t.Fatal(err)
				}
			}
			clock.set(back)
			fake.Reconnect(resume)
			if resume {
				// The replayed events are seen as the bot gets them;
				// Carol's stretch closed when the gateway dropped
				// (Suspend).
				for _, st := range []core.VoiceState{
					{Member: member(vCarol, "Carol"), At: back},
					{Member: member(vErin, "Erin"), ChannelID: voiceChan, At: back},
				} {
					want := voiceCall{Kind: "observe", Place: guildPlace, State: st}
					if diff := cmp.Diff(want, rec.next(ctx, t)); diff != "" {
						t.Errorf("replayed event (-want +got):\n%s", diff)
					}
				}
			}
			want = voiceCall{Kind: "resume", Place: guildPlace, States: []core.VoiceState{
				{Member: member(vDave, "Dave"), ChannelID: voiceChan, At: back},
				{Member: member(vErin, "Erin"), ChannelID: voiceChan, At: back},
			}}
			if diff := cmp.Diff(want, rec.next(ctx, t)); diff != "" {
				t.Errorf("Resume once the gateway is back (-want +got):\n%s", diff)
			}
			conns := fake.Connections()
			if last := conns[len(conns)-1]; len(conns) != 2 || last.Resumed != resume || !last.Open {
				t.Errorf("connections %+v, want a second one, open, resumed %v", conns, resume)
			}

			// Voice is followed on the new connection, and the adapter's
			// own closing is no outage.
			if err := fake.JoinVoice(ctx, vCarol, stageChan); err != nil {
				t.Fatal(err)
			}
			if c := rec.next(ctx, t); c.Kind != "observe" || c.State.Member.ExternalID != vCarol || c.State.ChannelID != stageChan {
				t.Errorf("after reconnecting: %+v, want Carol's join", c)
			}
			if err := r.stop(); err != nil {
				t.Fatal(err)
			}
			rec.none(t)
		})
	}
}
