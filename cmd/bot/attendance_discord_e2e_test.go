package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/bot/discord"
	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// The voice channels of the Discord attendance tests.
const (
	callChannel  = "500000000000000001"
	lobbyChannel = "500000000000000002"
)

// voiceSeen wraps Main's voice sink and counts the voice events handled,
// so that a test moves the clock only once the events before were
// recorded at the time they happened.
type voiceSeen struct {
	discord.VoiceSink
	mu      sync.Mutex
	handled int
	resumed int
	changed chan struct{}
	// loseStops, when set, drops the summaries of the sessions that
	// scheduled events stop, as a process that died right after the stop
	// would.
	loseStops atomic.Bool
}

func newVoiceSeen() *voiceSeen { return &voiceSeen{changed: make(chan struct{})} }

func (v *voiceSeen) wrap(s discord.VoiceSink) discord.VoiceSink {
	v.VoiceSink = s
	return v
}

func (v *voiceSeen) done(resume bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.handled++
	if resume {
		v.resumed++
	}
	close(v.changed)
	v.changed = make(chan struct{})
}

func (v *voiceSeen) Observe(ctx context.Context, p core.Place, s core.VoiceState) error {
	defer v.done(false)
	return v.VoiceSink.Observe(ctx, p, s)
}

func (v *voiceSeen) Resume(ctx context.Context, p core.Place, current []core.VoiceState) ([]core.AttendanceSummary, error) {
	defer v.done(true)
	return v.VoiceSink.Resume(ctx, p, current)
}

func (v *voiceSeen) EventChanged(ctx context.Context, p core.Place, ev core.ScheduledEvent, current []core.VoiceState) (core.EventChange, error) {
	defer v.done(false)
	change, err := v.VoiceSink.EventChanged(ctx, p, ev, current)
	if v.loseStops.Load() {
		change.Stopped = nil
	}
	return change, err
}

func (v *voiceSeen) MemberLeft(ctx context.Context, p core.Place, m core.Member, at time.Time) error {
	defer v.done(false)
	return v.VoiceSink.MemberLeft(ctx, p, m, at)
}

func (v *voiceSeen) Suspend(ctx context.Context, p core.Place, at time.Time) error {
	defer v.done(false)
	return v.VoiceSink.Suspend(ctx, p, at)
}

// wait waits until n events in all (resumes: n resumes, when resumes is
// true) were handled.
func (v *voiceSeen) wait(ctx context.Context, t testing.TB, n int, resumes bool) {
	t.Helper()
	for {
		v.mu.Lock()
		got := v.handled
		if resumes {
			got = v.resumed
		}
		ch := v.changed
		v.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("%d voice events handled (resumes %v), want %d", got, resumes, n)
		}
	}
}

// resumedCount returns how many resumes were handled.
func (v *voiceSeen) resumedCount() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.resumed
}

// count returns how many events were handled.
func (v *voiceSeen) count() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.handled
}

// voiceRig is a Main with Discord on a fake with two voice channels, the
// sessions' clock moved by hand and the voice events counted.
type voiceRig struct {
	t     *testing.T
	ctx   context.Context
	srv   *discordtest.Server
	clock *coretest.Clock
	seen  *voiceSeen
	db    string
	env   map[string]string // more of Main's environment
	// interval is Main's AttendanceInterval; 20 ms when zero.
	interval time.Duration
	s        *session
	// turn gets a value after each of Main's attendance turns, when
	// there is room.
	turn chan struct{}
}

// turned tells that Main ended an attendance turn (Main.AttendanceTurned).
func (r *voiceRig) turned() {
	select {
	case r.turn <- struct{}{}:
	default:
	}
}

// turns waits for n attendance turns of Main to end from now.
func (r *voiceRig) turns(n int) {
	r.t.Helper()
	select {
	case <-r.turn: // a turn that may have begun before
	default:
	}
	for range n {
		select {
		case <-r.turn:
		case <-r.ctx.Done():
			r.t.Fatalf("no attendance turn of Main: %v", r.ctx.Err())
		}
	}
}

// eachVoiceDB runs f in parallel on each test database (testDatabases),
// with a voice rig on it whose Main has env as more of its environment.
func eachVoiceDB(t *testing.T, env map[string]string, f func(t *testing.T, r *voiceRig)) {
	t.Helper()
	t.Parallel()
	for name, url := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f(t, newVoiceRig(t, url, env))
		})
	}
}

// newVoiceRig starts a Main on a Discord fake with the call and lobby
// channels; its context (r.ctx) bounds the test to 30 s, a hang guard.
func newVoiceRig(t *testing.T, databaseURL string, env map[string]string) *voiceRig {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	srv := discordtest.NewServer(t, discordtest.Options{})
	srv.AddVoiceChannel(callChannel, "Community call", false)
	srv.AddVoiceChannel(lobbyChannel, "Lobby", false)
	r := &voiceRig{t: t, ctx: ctx, srv: srv, db: databaseURL, env: env, clock: coretest.NewClock(time.Date(2026, 11, 1, 18, 0, 0, 0, time.UTC)),
		turn: make(chan struct{}, 1)}
	r.start()
	return r
}

// start runs a Main on the rig's fake and database and waits until it
// resumed the guild from GUILD_CREATE.
func (r *voiceRig) start() {
	r.t.Helper()
	r.seen = newVoiceSeen()
	env := map[string]string{
		"DATABASE_URL": r.db, "DISCORD_TOKEN": discordtest.DefaultToken,
		"DISCORD_API_URL": r.srv.URL(), "DISCORD_GUILD_ID": r.srv.GuildID(),
	}
	maps.Copy(env, r.env)
	interval := cmp.Or(r.interval, 20*time.Millisecond)
	r.s = startMainTuned(r.t, env, false, func(m *Main) {
		m.Clock, m.AttendanceInterval, m.WrapVoice, m.AttendanceTurned = r.clock, interval, r.seen.wrap, r.turned
	})
	r.seen.wait(r.ctx, r.t, 1, true)
}

// stop stops the Main.
func (r *voiceRig) stop() {
	r.t.Helper()
	r.s.stop()
	if err := r.s.wait(); err != nil {
		r.t.Fatal(err)
	}
	r.s.m.Close()
}

// voice applies voice changes through the fake, each dispatched as
// VOICE_STATE_UPDATE, and waits until the bot handled them all.
func (r *voiceRig) voice(changes ...func() error) {
	r.t.Helper()
	before := r.seen.count()
	for _, c := range changes {
		if err := c(); err != nil {
			r.t.Fatal(err)
		}
	}
	r.seen.wait(r.ctx, r.t, before+len(changes), false)
}

func (r *voiceRig) join(u discordtest.User, channel string) func() error {
	return func() error { return r.srv.JoinVoice(r.ctx, u.ID, channel) }
}

func (r *voiceRig) set(u discordtest.User, v discordtest.Voice) func() error {
	return func() error { return r.srv.SetVoice(r.ctx, u.ID, v) }
}

func (r *voiceRig) leave(u discordtest.User) func() error {
	return func() error { return r.srv.LeaveVoice(r.ctx, u.ID) }
}

// says sends a command as u and waits for the private answer that holds
// every want.
func (r *voiceRig) says(u discordtest.User, line string, wants ...string) string {
	r.t.Helper()
	msg, _ := discordReply(r.ctx, r.t, r.srv.Command(u, line), func(m discordtest.Message) bool {
		for _, w := range wants {
			if !strings.Contains(m.Content, w) {
				return false
			}
		}
		return true
	})
	return msg.Content
}

// posted waits for a message in the channel that holds every want.
func (r *voiceRig) posted(wants ...string) discordtest.ChannelMessage {
	r.t.Helper()
	msg, err := r.srv.WaitChannelMessage(r.ctx, func(m discordtest.ChannelMessage) bool {
		for _, w := range wants {
			if !strings.Contains(m.Content, w) {
				return false
			}
		}
		return true
	})
	if err != nil {
		var all []string
		for _, m := range r.srv.ChannelMessages(discordtest.DefaultChannelID) {
			all = append(all, m.Content)
		}
		r.t.Fatalf("no message in the channel shows %q: %v; messages %q", wants, err, all)
	}
	return msg
}

// claimButton returns the custom id of the post's Claim button.
func (r *voiceRig) claimButton(post discordtest.ChannelMessage) string {
	r.t.Helper()
	b, ok := post.Button("Claim")
	if !ok {
		r.t.Fatalf("the summary has no Claim button: %+v", post)
	}
	return b.CustomID
}

// voiceUser is a member of the test guild.
func (r *voiceRig) member(id, name string) discordtest.User {
	r.srv.AddMember(id, name)
	return discordtest.User{ID: id, Username: name, GlobalName: name}
}

// TestAttendance_Discord counts a call through Main with the Discord
// fake, on each database, the sessions' clock moved by hand: ada is in
// the channel before the start (counted from it), bob deafens for 5
// minutes, cy moves to another channel for 5 minutes, dee leaves early
// and rejoins for 12 minutes in all, a bot joins; the stop posts the
// summary with its Claim button; ada claims her link, dee and a member
// who never joined are refused with their minutes.
func TestAttendance_Discord(t *testing.T) {
	eachVoiceDB(t, nil, func(t *testing.T, r *voiceRig) {
		ctx := r.ctx
		mod := discordtest.Moderator
		drop := sandbox.DemoLinksDropID
		ada, bob, cy, dee := r.member("410000000000000001", "ada"), r.member("410000000000000002", "bob"),
			r.member("410000000000000003", "cy"), r.member("410000000000000004", "dee")
		never := r.member("410000000000000005", "never")
		r.srv.AddBot("410000000000000009", "musicbot")
		addDiscordDrop(ctx, t, r.srv)

		r.voice(r.join(ada, callChannel))
		r.says(mod, fmt.Sprintf("/attendance start channel:%s drop:%d min:30m", callChannel, drop),
			"Counting who attends <#"+callChannel+">", "30 minutes")
		r.voice(r.join(bob, callChannel), r.join(cy, callChannel), r.join(dee, callChannel),
			func() error { return r.srv.JoinVoice(ctx, "410000000000000009", callChannel) })
		r.clock.Add(10 * time.Minute) // 18:10
		r.voice(r.set(bob, discordtest.Voice{ChannelID: callChannel, SelfDeaf: true}), r.join(cy, lobbyChannel), r.leave(dee))
		r.clock.Add(5 * time.Minute) // 18:15
		r.voice(r.set(bob, discordtest.Voice{ChannelID: callChannel}), r.join(cy, callChannel))
		r.clock.Add(5 * time.Minute) // 18:20
		r.voice(r.join(dee, callChannel))
		r.clock.Add(2 * time.Minute) // 18:22
		r.voice(r.leave(dee))
		r.clock.Add(18 * time.Minute) // 18:40

		r.says(mod, "/attendance list", "4 members", "ada: 40 minutes ✓", "bob: 35 minutes ✓", "cy: 35 minutes ✓", "dee: 12 minutes")
		r.says(mod, "/attendance stop", "Stopped.", "4 members attended, 3 met the minimum")
		post := r.posted("**Attendance of Community call**", "4 members attended, 3 met the minimum of 30 minutes", "It lasted 40 minutes")
		if _, ok := post.Button("Claim"); !ok {
			t.Errorf("the summary has no Claim button: %+v", post)
		}
		if strings.Contains(post.Content, "down for") {
			t.Errorf("the summary tells a downtime: %q", post.Content)
		}
		r.says(ada, claimLine, "/mint/")
		r.says(cy, claimLine, "/mint/")
		r.says(dee, claimLine, "You were not counted in the attendance of Community call: 12 of 30 minutes")
		r.says(never, claimLine, "You were not counted in the attendance of Community call: 0 of 30 minutes")

		// The stop's post told the summary: it is not owed once the
		// stop's hold on it ends.
		r.clock.Add(core.AttendanceSummaryLease)
		r.s.m.owedSummaries(ctx)
		if n := r.summaries(); n != 1 {
			t.Errorf("%d summaries in the channel, want 1", n)
		}
	})
}

// TestAttendance_DiscordDown takes the bot's view of voice away for 15
// minutes in the middle of a session, in each way it can go: the bot
// stops and starts again on the same database and Discord (GUILD_CREATE's
// voice states tell who is still there); the gateway drops while the
// process runs and its heartbeats go on, and Discord lets the bot back
// with a new session (GUILD_CREATE) or resumes it (the events missed
// replayed, then RESUMED). Each time the 15 minutes are credited to nobody
// (bob, who left meanwhile, keeps his 10 minutes; ada, who stayed, gets
// 10 + 20) and the summary tells them as the bot's downtime.
func TestAttendance_DiscordDown(t *testing.T) {
	t.Parallel()
	// gatewayLost drops the gateway and waits until the adapter
	// suspended the server's sessions.
	gatewayLost := func(t *testing.T, r *voiceRig) {
		handled := r.seen.count()
		r.srv.DropGateway()
		t.Cleanup(func() { r.srv.Reconnect(false) })
		r.seen.wait(r.ctx, t, handled+1, false)
	}
	// gatewayBack lets the bot back once Main's heartbeats ran in the
	// outage (one landing after it would hide it, if the sessions were
	// not suspended), and waits for the resume.
	gatewayBack := func(t *testing.T, r *voiceRig, resume bool) {
		r.turns(2)
		resumed := r.seen.resumedCount()
		r.srv.Reconnect(resume)
		r.seen.wait(r.ctx, t, resumed+1, true)
	}
	for _, tt := range []struct {
		name string
		// down takes the view away, bob leaves meanwhile; up gives it
		// back 15 minutes later.
		down func(t *testing.T, r *voiceRig, bob discordtest.User)
		up   func(t *testing.T, r *voiceRig)
	}{
		{"Restart", func(t *testing.T, r *voiceRig, bob discordtest.User) {
			r.stop()
			if err := r.srv.PutVoice(bob.ID, discordtest.Voice{}); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, r *voiceRig) { r.start() }},
		{"GatewayNewSession", func(t *testing.T, r *voiceRig, bob discordtest.User) {
			gatewayLost(t, r)
			if err := r.srv.PutVoice(bob.ID, discordtest.Voice{}); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, r *voiceRig) { gatewayBack(t, r, false) }},
		{"GatewayResumed", func(t *testing.T, r *voiceRig, bob discordtest.User) {
			gatewayLost(t, r)
			// Kept by Discord, replayed on resuming.
			if err := r.srv.LeaveVoice(r.ctx, bob.ID); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, r *voiceRig) { gatewayBack(t, r, true) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			eachVoiceDB(t, nil, func(t *testing.T, r *voiceRig) {
				ctx := r.ctx
				mod := discordtest.Moderator
				drop := sandbox.DemoLinksDropID
				ada, bob := r.member("410000000000000001", "ada"), r.member("410000000000000002", "bob")
				addDiscordDrop(ctx, t, r.srv)
				r.says(mod, fmt.Sprintf("/attendance start channel:%s drop:%d min:25m", callChannel, drop), "Counting who attends")
				r.voice(r.join(ada, callChannel), r.join(bob, callChannel))
				r.clock.Add(10 * time.Minute) // 18:10
				tt.down(t, r, bob)
				r.clock.Add(15 * time.Minute) // 18:25
				tt.up(t, r)
				r.clock.Add(20 * time.Minute) // 18:45

				r.says(mod, "/attendance list", "2 members", "ada: 30 minutes ✓", "bob: 10 minutes")
				r.says(mod, "/attendance stop", "Stopped.")
				r.posted("2 members attended, 1 met the minimum of 25 minutes", "It lasted 45 minutes",
					"The bot was down for 15 minutes of it, credited to nobody.")
				r.says(ada, claimLine, "/mint/")
				r.says(bob, claimLine, "10 of 25 minutes")
			})
		})
	}
}

// TestAttendance_DiscordMintAcrossRestarts: a delivery:mint session
// reaches its maximum length while the bot is down. The next start stops
// it from GUILD_CREATE (Resume), counts nobody past the bot's stop, mints
// the drop to the one eligible member with a verified wallet and tells the
// summary in the channel; the start after that mints nothing more and
// tells nothing again. The member minted to is told they have it; the
// eligible one without a wallet is asked to link one.
func TestAttendance_DiscordMintAcrossRestarts(t *testing.T) {
	eachVoiceDB(t, map[string]string{"ATTENDANCE_MAX_LENGTH": "1h"}, func(t *testing.T, r *voiceRig) {
		ctx := r.ctx
		mod := discordtest.Moderator
		drop := sandbox.DemoLinksDropID
		ada, bob := r.member("410000000000000001", "ada"), r.member("410000000000000002", "bob")
		r.says(mod, fmt.Sprintf("/drop add %d edit_code:%s delivery:mint", drop, sandbox.DemoEditCode), "is set up here")
		discordVerify(ctx, t, r.srv, ada, coretest.TestAddress, func(m string) string { return coretest.Sign(coretest.TestKey, m) })
		r.says(mod, fmt.Sprintf("/attendance start channel:%s drop:%d min:5m", callChannel, drop), "stops by itself after 1 hour")
		r.voice(r.join(ada, callChannel), r.join(bob, callChannel))
		r.clock.Add(10 * time.Minute) // 18:10
		r.stop()

		r.clock.Add(2 * time.Hour) // 20:10, past the session's hour
		r.start()
		post := r.posted("**Attendance of Community call**", "2 members attended, 2 met the minimum of 5 minutes", "It lasted 60 minutes",
			"The bot was down for 50 minutes of it", "It reached its maximum length.",
			"Minted straight to the verified wallets of 1 member.", "Not minted to 1 eligible without a verified wallet",
			"Press Claim to get your POAP.")
		claim := r.claimButton(post)
		if n := r.s.m.SandboxAPI.Requests(wire.OpMint); n != 1 {
			t.Errorf("%d mints at the first start, want 1", n)
		}
		r.says(mod, "/attendance list", "ada: 10 minutes ✓", "bob: 10 minutes ✓")
		r.stop()

		r.start()
		// The guild's voice events are handled in order: once this
		// one is, the resume and whatever it posted are done.
		r.voice(r.leave(bob))
		if n := r.s.m.SandboxAPI.Requests(wire.OpMint); n != 0 {
			t.Errorf("%d mints at the second start, want none", n)
		}
		if summaries := r.summaries(); summaries != 1 {
			t.Errorf("%d summaries in the channel, want 1", summaries)
		}
		r.says(ada, claimLine, "was minted to")
		// bob, eligible, has no wallet yet: the summary's Claim button
		// asks for one.
		discordReply(ctx, t, r.srv.Press(bob, claim), containing("is minted straight to your wallet. Link one first"))
	})
}

// TestAttendance_DiscordScheduledEvent ties sessions to Discord scheduled
// events through Main with the Discord fake, on each database: started
// while its event is scheduled, a session counts nobody until the event
// becomes active (ada, in the channel 20 minutes before, is counted from
// the start), then counts who is there; the event's completion stops it
// and its summary is posted in the channel where the command ran; ada,
// who met the minimum, claims, cy is refused with her minutes. A second
// event's deletion (Discord's cancel of an event under way) stops its
// session too.
func TestAttendance_DiscordScheduledEvent(t *testing.T) {
	eachVoiceDB(t, nil, func(t *testing.T, r *voiceRig) {
		ctx := r.ctx
		mod := discordtest.Moderator
		drop := sandbox.DemoLinksDropID
		ada, bob, cy := r.member("410000000000000001", "ada"), r.member("410000000000000002", "bob"),
			r.member("410000000000000003", "cy")
		addDiscordDrop(ctx, t, r.srv)
		call, err := r.srv.AddScheduledEvent(ctx, discordtest.ScheduledEvent{ChannelID: callChannel, Name: "Community call"})
		if err != nil {
			t.Fatal(err)
		}
		talk, err := r.srv.AddScheduledEvent(ctx, discordtest.ScheduledEvent{ChannelID: lobbyChannel, Name: "Lobby talk"})
		if err != nil {
			t.Fatal(err)
		}
		status := func(id string, s discordgo.GuildScheduledEventStatus) func() error {
			return func() error { return r.srv.SetScheduledEventStatus(ctx, id, s) }
		}

		// Unknown: a name no event has, an id Discord does not know,
		// a link to another server's event.
		r.says(mod, fmt.Sprintf("/attendance start event:nope drop:%d", drop), "There is no scheduled event `nope`")
		r.says(mod, fmt.Sprintf("/attendance start event:499999999999999999 drop:%d", drop), "There is no scheduled event")
		r.says(mod, fmt.Sprintf("/attendance start event:https://discord.com/events/100000000000000009/%s drop:%d", call.ID, drop),
			"There is no scheduled event")
		r.says(mod, fmt.Sprintf("/attendance start event:%s channel:%s drop:%d", call.ID, callChannel, drop), "not both")

		r.voice(r.join(ada, callChannel))
		started := r.says(mod, fmt.Sprintf("/attendance start event:%s drop:%d min:30m", call.ID, drop),
			"scheduled event Community call", "<#"+callChannel+">", "starts counting when the event starts", "30 minutes")
		sess := regexp.MustCompile(`\(session (\d+)\)`).FindStringSubmatch(started)
		if sess == nil {
			t.Fatalf("start = %q, want its session number", started)
		}
		// By its name, as a moderator may give it.
		r.says(mod, fmt.Sprintf("/attendance start event:%q drop:%d min:5m", "lobby talk", drop),
			"scheduled event Lobby talk", "<#"+lobbyChannel+">", "starts counting when the event starts")
		r.clock.Add(20 * time.Minute) // 18:20: the event has not started
		r.says(mod, "/attendance list session:"+sess[1], "(waiting)", "0 members")

		r.voice(status(call.ID, discordgo.GuildScheduledEventStatusActive))
		r.clock.Add(10 * time.Minute) // 18:30
		r.voice(r.join(cy, callChannel))
		r.clock.Add(25 * time.Minute) // 18:55
		r.says(mod, "/attendance list session:"+sess[1], "(open)", "ada: 35 minutes ✓", "cy: 25 minutes")

		r.voice(status(call.ID, discordgo.GuildScheduledEventStatusCompleted))
		// The summary the bot posts by itself is a claim message, as
		// /attendance stop's: its Claim button works, and its count
		// follows the claims.
		post := r.posted("**Attendance of Community call**", "2 members attended, 1 met the minimum of 30 minutes", "It lasted 35 minutes",
			"Its scheduled event ended.", "Press Claim to get your POAP.", "**50** of 55 links left")
		if post.ChannelID != discordtest.DefaultChannelID {
			t.Errorf("the summary is in channel %s, want %s where the command ran", post.ChannelID, discordtest.DefaultChannelID)
		}
		claim := r.claimButton(post)
		r.says(mod, "/attendance list session:"+sess[1], "(closed)", "ada: 35 minutes ✓", "cy: 25 minutes")
		discordReply(ctx, t, r.srv.Press(ada, claim), containing("/mint/"))
		discordReply(ctx, t, r.srv.Press(cy, claim), containing("You were not counted in the attendance of Community call: 25 of 30 minutes"))
		r.posted("**Attendance of Community call**", "**49** of 55 links left")

		// The second event starts, bob attends, and the event is
		// deleted: its session stops.
		r.voice(status(talk.ID, discordgo.GuildScheduledEventStatusActive), r.join(bob, lobbyChannel))
		r.clock.Add(10 * time.Minute) // 19:05
		r.voice(func() error { return r.srv.DeleteScheduledEvent(ctx, talk.ID) })
		r.posted("**Attendance of Lobby**", "1 member attended, 1 met the minimum of 5 minutes", "It lasted 10 minutes",
			"Its scheduled event was cancelled.")
	})
}

// summaries counts the summaries posted in the test channel.
func (r *voiceRig) summaries() int {
	n := 0
	for _, m := range r.srv.ChannelMessages(discordtest.DefaultChannelID) {
		if strings.Contains(m.Content, "Attendance of") {
			n++
		}
	}
	return n
}

// untoldSummary runs a session on a scheduled event that ada attends for
// its 20 minutes (18:00 to 18:20, minimum 10), whose completion the
// process handles but whose summary it loses, as a process that died
// right after the stop would; then it stops Main. It returns ada.
func (r *voiceRig) untoldSummary() discordtest.User {
	r.t.Helper()
	ctx, t := r.ctx, r.t
	ada := r.member("410000000000000001", "ada")
	addDiscordDrop(ctx, t, r.srv)
	call, err := r.srv.AddScheduledEvent(ctx, discordtest.ScheduledEvent{ChannelID: callChannel, Name: "Community call"})
	if err != nil {
		t.Fatal(err)
	}
	status := func(s discordgo.GuildScheduledEventStatus) func() error {
		return func() error { return r.srv.SetScheduledEventStatus(ctx, call.ID, s) }
	}
	r.voice(r.join(ada, callChannel))
	r.says(discordtest.Moderator, fmt.Sprintf("/attendance start event:%s drop:%d min:10m", call.ID, sandbox.DemoLinksDropID),
		"starts counting when the event starts")
	r.voice(status(discordgo.GuildScheduledEventStatusActive))
	r.clock.Add(20 * time.Minute) // 18:20
	r.seen.loseStops.Store(true)
	r.voice(status(discordgo.GuildScheduledEventStatusCompleted))
	r.says(discordtest.Moderator, "/attendance list", "(closed)", "ada: 20 minutes ✓")
	r.stop()
	return ada
}

// TestAttendance_DiscordSummaryOwed: the process that stopped a session
// (its scheduled event completed) dies before telling its summary. The
// next start, a minute later, tells it as a claim message whose button
// works; the start after that tells nothing more.
func TestAttendance_DiscordSummaryOwed(t *testing.T) {
	eachVoiceDB(t, nil, func(t *testing.T, r *voiceRig) {
		ctx := r.ctx
		ada := r.untoldSummary()
		if n := r.summaries(); n != 0 {
			t.Fatalf("%d summaries posted by the process that lost them, want none", n)
		}

		r.clock.Add(time.Minute) // 18:21
		r.start()
		post := r.posted("**Attendance of Community call**", "1 member attended, 1 met the minimum of 10 minutes",
			"It lasted 20 minutes", "Its scheduled event ended.", "Press Claim to get your POAP.")
		discordReply(ctx, t, r.srv.Press(ada, r.claimButton(post)), containing("/mint/"))
		r.stop()

		r.clock.Add(time.Minute) // 18:22
		r.start()
		if owed, err := r.s.m.attendance.OwedSummaries(ctx, core.Discord); err != nil || len(owed) != 0 {
			t.Errorf("summaries owed after the summary was told = %d, %v; want none", len(owed), err)
		}
		r.stop()
		if n := r.summaries(); n != 1 {
			t.Errorf("%d summaries in the channel, want 1", n)
		}
	})
}

// TestAttendance_DiscordStopPostFailed: a moderator stops a session while
// the bot may not post in the channel. The reply tells the moderator the
// summary and that the bot will post it later; nothing reaches the channel.
// Once the stop's hold on the summary ends (and the permission is back),
// the bot posts it as a claim message whose button works, once.
func TestAttendance_DiscordStopPostFailed(t *testing.T) {
	eachVoiceDB(t, nil, func(t *testing.T, r *voiceRig) {
		ctx := r.ctx
		mod := discordtest.Moderator
		ada := r.member("410000000000000001", "ada")
		addDiscordDrop(ctx, t, r.srv)
		r.voice(r.join(ada, callChannel))
		r.says(mod, fmt.Sprintf("/attendance start channel:%s drop:%d min:10m", callChannel, sandbox.DemoLinksDropID),
			"Counting who attends <#"+callChannel+">")
		r.clock.Add(20 * time.Minute) // 18:20
		r.srv.DenyChannel(discordtest.DefaultChannelID)
		r.says(mod, "/attendance stop", "Stopped.", "1 member attended, 1 met the minimum",
			"I lack permissions there", fmt.Sprintf("I will post it there in about %d minutes", int(core.AttendanceSummaryLease.Minutes())))
		if n := r.summaries(); n != 0 {
			t.Fatalf("%d summaries in the denied channel", n)
		}

		r.srv.AllowChannel(discordtest.DefaultChannelID)
		r.clock.Add(core.AttendanceSummaryLease) // the stop's hold ends
		r.s.m.summaries.lookAgain()
		post := r.posted("**Attendance of Community call**", "1 member attended, 1 met the minimum of 10 minutes",
			"Press Claim to get your POAP.")
		discordReply(ctx, t, r.srv.Press(ada, r.claimButton(post)), containing("/mint/"))
		// The post shows before the background tell marks the summary
		// told: stopping Main waits for that tell to end.
		r.stop()
		r.clock.Add(core.AttendanceSummaryLease)
		r.start()
		r.s.m.owedSummaries(ctx)
		if owed, err := r.s.m.attendance.OwedSummaries(ctx, core.Discord); err != nil || len(owed) != 0 {
			t.Errorf("summaries owed after the summary was told = %d, %v; want none", len(owed), err)
		}
		r.stop()
		if n := r.summaries(); n != 1 {
			t.Errorf("%d summaries in the channel, want 1", n)
		}
	})
}

// TestAttendance_DiscordSummaryGivenUp: the summary owed by a process that
// died cannot be told (the bot may not post in its channel): after a
// failed try it is not owed until its back-off ends, and after
// core.AttendanceSummaryAttempts tries it is given up, however far the
// clock moves. Main's attendance turns are an hour apart, so that the
// test drives the looks at the summaries owed.
func TestAttendance_DiscordSummaryGivenUp(t *testing.T) {
	eachVoiceDB(t, nil, func(t *testing.T, r *voiceRig) {
		ctx := r.ctx
		r.untoldSummary()

		r.srv.DenyChannel(discordtest.DefaultChannelID)
		r.interval = time.Hour
		r.start()
		owed := func() int {
			t.Helper()
			sums, err := r.s.m.attendance.OwedSummaries(ctx, core.Discord)
			if err != nil {
				t.Fatalf("OwedSummaries = %v", err)
			}
			return len(sums)
		}
		for try := 1; try <= core.AttendanceSummaryAttempts; try++ {
			r.clock.Add(7 * time.Hour) // past the lease and any back-off
			r.s.m.owedSummaries(ctx)
			if n := owed(); n != 0 {
				t.Fatalf("summaries owed right after try %d failed = %d, want none (it waits)", try, n)
			}
		}
		r.clock.Add(7 * time.Hour)
		if n := owed(); n != 0 {
			t.Errorf("summaries owed after %d failed tries = %d, want none (given up)", core.AttendanceSummaryAttempts, n)
		}
		r.stop()
		if n := r.summaries(); n != 0 {
			t.Errorf("%d summaries in the denied channel", n)
		}
	})
}
