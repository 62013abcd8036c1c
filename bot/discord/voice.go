package discord

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// VoiceIntents are the gateway intents the adapter adds to Intents when
// Options.Voice is set: voice states and scheduled events. Neither is
// privileged.
const VoiceIntents = discordgo.IntentGuildVoiceStates | discordgo.IntentGuildScheduledEvents

// VoiceSink is told of who is in the servers' voice and stage channels,
// for attendance: *core.AttendanceService is one.
type VoiceSink interface {
	// Observe records a member's voice state as it changed
	// (VOICE_STATE_UPDATE).
	Observe(ctx context.Context, p core.Place, v core.VoiceState) error
	// Resume takes the voice states of a server as the gateway gives them
	// on (re)connecting (GUILD_CREATE) and returns the summaries of the
	// sessions it stopped.
	Resume(ctx context.Context, p core.Place, current []core.VoiceState) ([]core.AttendanceSummary, error)
	// EventChanged handles a scheduled event's change with the voice
	// states of its channel at that moment.
	EventChanged(ctx context.Context, p core.Place, ev core.ScheduledEvent, current []core.VoiceState) (core.EventChange, error)
	// MemberLeft records that a member left the server.
	MemberLeft(ctx context.Context, p core.Place, m core.Member, at time.Time) error
	// Suspend stops counting the server's sessions at at, when the
	// gateway is lost; Resume takes them up once it is back.
	Suspend(ctx context.Context, p core.Place, at time.Time) error
}

// Bounds of the handling of voice events.
const (
	// voiceBacklog voice events wait at most, over all servers (a few MB):
	// a call of thousands coming and going queues rather than piling up
	// goroutines.
	voiceBacklog = 50_000
	// voiceFullWait is how long the gateway reader waits for room in a
	// full backlog before the event is dropped (logged and counted): a
	// short stall of the reader rather than a loss, never a long one.
	voiceFullWait = time.Second
	// voiceTimeout bounds the handling of one voice event.
	voiceTimeout = 30 * time.Second
)

// voiceJob is one voice event to hand to the sink.
type voiceJob struct {
	kind string // for the logs
	run  func(ctx context.Context) error
	// control marks a job that changes what is counted rather than a
	// member's voice state (the gateway lost or back, a server's
	// GUILD_CREATE, a scheduled event's change): never dropped for a full
	// backlog, since losing one would credit an outage, leave sessions
	// uncounted or never opened; it takes no slot (they are few: one per
	// server and connection, or per event change).
	control bool
}

// voiceQueue hands the voice events of each server to the sink one after
// the other, in the order the gateway sent them, on one worker per server
// that has events waiting (workers end when their server's queue is
// empty). The gateway reader queues them (the session runs its handlers
// in order, SyncEvents) and waits for the sink only when voiceBacklog
// events already wait, at most voiceFullWait.
type voiceQueue struct {
	log   *slog.Logger
	slots chan struct{} // one per event waiting or being handled
	// fullWait is voiceFullWait; tests change it.
	fullWait time.Duration

	mu      sync.Mutex
	ctx     context.Context
	stopped bool
	queues  map[string][]voiceJob // present while the server's worker runs
	workers sync.WaitGroup

	dropped atomic.Int64 // events dropped: backlog full or closing
	// obs, when set, counts the drops (Options.Observer).
	obs Observer
	// overflowing is set when an event was dropped for a full backlog:
	// the next ones are dropped at once, without stalling the reader
	// again, until there is room.
	overflowing atomic.Bool
}

func newVoiceQueue(log *slog.Logger) *voiceQueue {
	return &voiceQueue{log: log, fullWait: voiceFullWait, slots: make(chan struct{}, voiceBacklog), queues: map[string][]voiceJob{}, ctx: context.Background()}
}

// start gives the jobs handled from now on ctx's values (not its end).
func (q *voiceQueue) start(ctx context.Context) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ctx = context.WithoutCancel(ctx)
}

// add queues a job of the guild, once it has its slot in the backlog
// (take; a control job needs none).
func (q *voiceQueue) add(guild string, j voiceJob) {
	if !j.control && !q.take(guild, j) {
		return
	}
	q.mu.Lock()
	if q.stopped {
		q.mu.Unlock()
		q.release(j)
		n := q.drop(dropClosing, 1)
		q.log.Info("voice event while closing, not recorded", "guild", guild, "event", j.kind, "dropped", n)
		return
	}
	waiting, busy := q.queues[guild]
	q.queues[guild] = append(waiting, j)
	if !busy {
		q.workers.Add(1)
		go q.work(guild)
	}
	q.mu.Unlock()
}

// Reasons of Observer.CountDiscordVoiceDropped.
const (
	dropFull    = "full"
	dropClosing = "closing"
)

// drop counts n jobs dropped for reason and returns the total so far.
func (q *voiceQueue) drop(reason string, n int) int64 {
	if q.obs != nil {
		q.obs.CountDiscordVoiceDropped(reason, n)
	}
	return q.dropped.Add(int64(n))
}

// take takes a slot in the backlog for the job. When the backlog is full
// it waits up to fullWait for room, then drops the job, logged and
// counted, and reports false; while it stays full, the next jobs are
// dropped without waiting.
func (q *voiceQueue) take(guild string, j voiceJob) bool {
	select {
	case q.slots <- struct{}{}:
		q.overflowing.Store(false)
		return true
	default:
	}
	if !q.overflowing.Load() && q.waitSlot() {
		return true
	}
	q.overflowing.Store(true)
	n := q.drop(dropFull, 1)
	q.log.Error("too many voice events waiting; one dropped, attendance may miss it", "guild", guild, "event", j.kind, "dropped", n)
	return false
}

// release gives back the job's slot, if it took one.
func (q *voiceQueue) release(j voiceJob) {
	if !j.control {
		<-q.slots
	}
}

// waitSlot waits up to fullWait for room in the backlog and reports
// whether it took a slot.
func (q *voiceQueue) waitSlot() bool {
	t := time.NewTimer(q.fullWait)
	defer t.Stop()
	select {
	case q.slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	}
}

// work handles the guild's jobs in order until none is left.
func (q *voiceQueue) work(guild string) {
	defer q.workers.Done()
	for {
		q.mu.Lock()
		jobs := q.queues[guild]
		if len(jobs) == 0 || q.stopped {
			delete(q.queues, guild)
			q.mu.Unlock()
			return
		}
		j := jobs[0]
		jobs[0] = voiceJob{}
		q.queues[guild] = jobs[1:]
		ctx := q.ctx
		q.mu.Unlock()
		q.handle(ctx, guild, j)
		q.release(j)
	}
}

// handle runs one job within voiceTimeout; an error or a panic is logged.
func (q *voiceQueue) handle(ctx context.Context, guild string, j voiceJob) {
	ctx, cancel := context.WithTimeout(ctx, voiceTimeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			q.log.Error("a voice event panicked", "guild", guild, "event", j.kind, "panic", p, "stack", string(debug.Stack()))
		}
	}()
	if err := j.run(ctx); err != nil {
		q.log.Warn("recording a voice event", "guild", guild, "event", j.kind, "err", err)
	}
}

// stop refuses new jobs, waits for the workers to finish the job they
// handle and logs the jobs left waiting. It may be called more than once.
func (q *voiceQueue) stop() {
	q.mu.Lock()
	q.stopped = true
	q.mu.Unlock()
	q.workers.Wait()
	q.mu.Lock()
	left := 0
	for g, jobs := range q.queues {
		left += len(jobs)
		for _, j := range jobs {
			q.release(j)
		}
		delete(q.queues, g)
	}
	q.mu.Unlock()
	if left > 0 {
		n := q.drop(dropClosing, left)
		q.log.Warn("voice events not recorded at shutdown; the next start resumes from the gateway", "events", left, "dropped", n)
	}
}

// voice follows the servers' voice states for Options.Voice: it keeps
// who is in voice in each server (for scheduled events, whose channel's
// members are passed along) and queues each event for the sink. Its
// handlers run in the gateway reader, in order (SyncEvents), and never
// wait for the sink.
type voice struct {
	sink      VoiceSink
	summaries func(context.Context, []core.AttendanceSummary)
	now       func() time.Time
	log       *slog.Logger
	queue     *voiceQueue
	onShard   func(guild string) bool

	mu     sync.Mutex
	guilds map[string]*voiceGuild
	// blind is set while the gateway is lost (from a disconnection to the
	// next READY or RESUMED): the voice states of that time are unknown.
	blind bool
	// closing is set when the adapter closes the gateway itself: no
	// outage.
	closing bool
}

// voiceGuild is one server as the voice events left it.
type voiceGuild struct {
	name   string
	states map[string]core.VoiceState // by user id; in a channel only
}

func newVoice(sink VoiceSink, summaries func(context.Context, []core.AttendanceSummary), now func() time.Time, log *slog.Logger, onShard func(string) bool) *voice {
	return &voice{
		sink: sink, summaries: summaries, now: now, log: log, queue: newVoiceQueue(log), onShard: onShard,
		guilds: map[string]*voiceGuild{},
	}
}

// register adds the handlers of the voice events to the session.
func (v *voice) register(s *discordgo.Session) {
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.GuildCreate) { v.guildCreate(e) })
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.GuildDelete) { v.guildDelete(e) })
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.VoiceStateUpdate) { v.voiceState(e) })
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.GuildScheduledEventUpdate) {
		if e.GuildScheduledEvent != nil {
			v.scheduledEvent(e.GuildScheduledEvent, core.ScheduledEventStatus(e.Status))
		}
	})
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.GuildScheduledEventDelete) {
		if e.GuildScheduledEvent != nil {
			v.scheduledEvent(e.GuildScheduledEvent, core.EventCanceled)
		}
	})
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.GuildMemberRemove) { v.memberRemove(e) })
	s.AddHandler(func(_ *discordgo.Session, _ *discordgo.Disconnect) { v.disconnected() })
	s.AddHandler(func(_ *discordgo.Session, _ *discordgo.Ready) { v.identified() })
	s.AddHandler(func(_ *discordgo.Session, _ *discordgo.Resumed) { v.resumed() })
}

// disconnected handles the loss of the gateway (discordgo reconnects by
// itself): from now until it is back, who comes and goes is unknown, so
// each server of this shard has its sessions suspended now (Suspend: the
// time until Resume is downtime, credited to nobody and told in the
// summary). On reconnecting, Resume counts those still there from then
// (GUILD_CREATE after a new session, RESUMED after a resumed one). The
// adapter's own closing (close) is no outage; a second disconnection
// before the gateway is back does nothing more.
func (v *voice) disconnected() {
	at := v.now()
	type suspend struct {
		guild string
		p     core.Place
	}
	var out []suspend
	v.mu.Lock()
	if v.blind || v.closing {
		v.mu.Unlock()
		return
	}
	v.blind = true
	for _, id := range slices.Sorted(maps.Keys(v.guilds)) {
		out = append(out, suspend{guild: id, p: v.placeLocked(id)})
	}
	v.mu.Unlock()
	v.log.Warn("gateway lost: attendance is suspended until it is back", "servers", len(out))
	for _, sp := range out {
		v.queue.add(sp.guild, voiceJob{kind: "DISCONNECT", control: true, run: func(ctx context.Context) error {
			return v.sink.Suspend(ctx, sp.p, at)
		}})
	}
}

// close tells that the adapter closes the gateway: the disconnection that
// follows is no outage.
func (v *voice) close() {
	v.mu.Lock()
	v.closing = true
	v.mu.Unlock()
}

// identified handles a new gateway session (READY): each server's
// GUILD_CREATE follows and resumes its sessions.
func (v *voice) identified() {
	v.mu.Lock()
	v.blind = false
	v.mu.Unlock()
}

// resumed handles a resumed gateway session (RESUMED, after the events
// missed meanwhile were replayed): no GUILD_CREATE follows, so each
// server's sessions resume with the voice states as the replay left them.
func (v *voice) resumed() {
	type resume struct {
		guild   string
		p       core.Place
		current []core.VoiceState
	}
	at := v.now()
	var out []resume
	v.mu.Lock()
	v.blind = false
	for _, id := range slices.Sorted(maps.Keys(v.guilds)) {
		current := sortedStates(v.guilds[id].states)
		for i := range current {
			current[i].At = at
		}
		out = append(out, resume{guild: id, p: v.placeLocked(id), current: current})
	}
	v.mu.Unlock()
	for _, r := range out {
		v.queue.add(r.guild, voiceJob{kind: "RESUMED", control: true, run: func(ctx context.Context) error {
			sums, err := v.sink.Resume(ctx, r.p, r.current)
			v.post(ctx, sums)
			return err
		}})
	}
}

// sortedStates returns the voice states by user id.
func sortedStates(states map[string]core.VoiceState) []core.VoiceState {
	out := make([]core.VoiceState, 0, len(states))
	for _, id := range slices.Sorted(maps.Keys(states)) {
		out = append(out, states[id])
	}
	return out
}

// guildLocked returns the guild's record, created on first use; v.mu
// must be held.
func (v *voice) guildLocked(id string) *voiceGuild {
	g := v.guilds[id]
	if g == nil {
		g = &voiceGuild{states: map[string]core.VoiceState{}}
		v.guilds[id] = g
	}
	return g
}

// place is the server as a core place; v.mu must be held.
func (v *voice) placeLocked(guild string) core.Place {
	p := core.Place{Platform: core.Discord, ExternalID: guild}
	if g := v.guilds[guild]; g != nil {
		p.Name = g.name
	}
	return p
}

// guildCreate replaces the server's voice states with GUILD_CREATE's (on
// connecting, after an outage, on a new session) and queues Resume.
func (v *voice) guildCreate(e *discordgo.GuildCreate) {
	if e.Guild == nil || e.ID == "" || e.Unavailable || !v.onShard(e.ID) {
		return
	}
	members := make(map[string]*discordgo.Member, len(e.Members))
	for _, m := range e.Members {
		if m != nil && m.User != nil {
			members[m.User.ID] = m
		}
	}
	at := v.now()
	current := make([]core.VoiceState, 0, len(e.VoiceStates))
	v.mu.Lock()
	g := v.guildLocked(e.ID)
	g.name = e.Name
	clear(g.states)
	for _, st := range e.VoiceStates {
		if st == nil || st.UserID == "" || st.ChannelID == "" {
			continue
		}
		m := st.Member
		if m == nil || m.User == nil {
			m = members[st.UserID]
		}
		vs := voiceState(st, m, at)
		g.states[st.UserID] = vs
		current = append(current, vs)
	}
	p := v.placeLocked(e.ID)
	v.mu.Unlock()
	v.queue.add(e.ID, voiceJob{kind: "GUILD_CREATE", control: true, run: func(ctx context.Context) error {
		sums, err := v.sink.Resume(ctx, p, current)
		v.post(ctx, sums)
		return err
	}})
}

// guildDelete forgets a server that became unavailable (an outage of
// Discord's) or that the bot left, and suspends its sessions then: who
// comes and goes there is unknown from now (see disconnected); the next
// GUILD_CREATE resumes them.
func (v *voice) guildDelete(e *discordgo.GuildDelete) {
	if e.Guild == nil || !v.onShard(e.ID) {
		return
	}
	at := v.now()
	v.mu.Lock()
	p := v.placeLocked(e.ID)
	delete(v.guilds, e.ID)
	v.mu.Unlock()
	v.queue.add(e.ID, voiceJob{kind: "GUILD_DELETE", control: true, run: func(ctx context.Context) error {
		return v.sink.Suspend(ctx, p, at)
	}})
}

// voiceState records a VOICE_STATE_UPDATE and queues Observe.
func (v *voice) voiceState(e *discordgo.VoiceStateUpdate) {
	st := e.VoiceState
	if st == nil || st.GuildID == "" || st.UserID == "" || !v.onShard(st.GuildID) {
		return
	}
	vs := voiceState(st, st.Member, v.now())
	v.mu.Lock()
	g := v.guildLocked(st.GuildID)
	if vs.ChannelID == "" {
		delete(g.states, st.UserID)
	} else {
		g.states[st.UserID] = vs
	}
	p := v.placeLocked(st.GuildID)
	v.mu.Unlock()
	v.queue.add(st.GuildID, voiceJob{kind: "VOICE_STATE_UPDATE", run: func(ctx context.Context) error {
		return v.sink.Observe(ctx, p, vs)
	}})
}

// scheduledEvent queues EventChanged with the voice states of the event's
// channel as they are now.
func (v *voice) scheduledEvent(e *discordgo.GuildScheduledEvent, status core.ScheduledEventStatus) {
	if e.GuildID == "" || e.ID == "" || !v.onShard(e.GuildID) {
		return
	}
	ev := core.ScheduledEvent{ID: e.ID, ChannelID: e.ChannelID, Status: status}
	v.mu.Lock()
	current := v.inChannelLocked(e.GuildID, e.ChannelID)
	p := v.placeLocked(e.GuildID)
	v.mu.Unlock()
	v.queue.add(e.GuildID, voiceJob{kind: "GUILD_SCHEDULED_EVENT", control: true, run: func(ctx context.Context) error {
		change, err := v.sink.EventChanged(ctx, p, ev, current)
		if change.Stopped != nil {
			v.post(ctx, []core.AttendanceSummary{*change.Stopped})
		}
		return err
	}})
}

// memberRemove queues MemberLeft for a member who left the server.
func (v *voice) memberRemove(e *discordgo.GuildMemberRemove) {
	if e.Member == nil || e.User == nil || e.GuildID == "" || !v.onShard(e.GuildID) {
		return
	}
	m := core.Member{Platform: core.Discord, ExternalID: e.User.ID, Name: e.DisplayName()}
	at := v.now()
	v.mu.Lock()
	if g := v.guilds[e.GuildID]; g != nil {
		delete(g.states, e.User.ID)
	}
	p := v.placeLocked(e.GuildID)
	v.mu.Unlock()
	v.queue.add(e.GuildID, voiceJob{kind: "GUILD_MEMBER_REMOVE", run: func(ctx context.Context) error {
		return v.sink.MemberLeft(ctx, p, m, at)
	}})
}

// channel returns the guild's bot.Request.VoiceChannel: a voice or stage
// channel of the guild, its name and the voice states in it as the
// gateway told them, at the time asked. The channel's kind and server are
// read from the gateway's state, else from Discord, never taken from the
// interaction: a text channel, another server's or an unknown id is a
// *bot.NotVoiceChannelError. res (may be nil) names the channel when the
// state does not.
func (v *voice) channel(s *discordgo.Session, guild string, res *discordgo.ApplicationCommandInteractionDataResolved) func(context.Context, string) (string, []core.VoiceState, error) {
	return func(ctx context.Context, id string) (string, []core.VoiceState, error) {
		c, err := guildChannel(ctx, s, guild, id)
		if err != nil {
			return "", nil, err
		}
		if c.Type != discordgo.ChannelTypeGuildVoice && c.Type != discordgo.ChannelTypeGuildStageVoice {
			return "", nil, &bot.NotVoiceChannelError{ChannelID: id}
		}
		name := c.Name
		if res != nil && name == "" {
			if rc := res.Channels[id]; rc != nil {
				name = rc.Name
			}
		}
		v.mu.Lock()
		defer v.mu.Unlock()
		return name, v.inChannelLocked(guild, id), nil
	}
}

// guildChannel returns the guild's channel with that id, from the
// session's state, else read from Discord; an id that is not one, an
// unknown channel or another server's is a *bot.NotVoiceChannelError.
func guildChannel(ctx context.Context, s *discordgo.Session, guild, id string) (*discordgo.Channel, error) {
	if !snowflake.MatchString(id) {
		return nil, &bot.NotVoiceChannelError{}
	}
	if c := stateChannel(s, guild, id); c != nil {
		return c, nil
	}
	c, err := s.Channel(id, discordgo.WithContext(ctx))
	switch {
	case restCode(err) == discordgo.ErrCodeUnknownChannel || restStatus(err) == http.StatusNotFound ||
		restStatus(err) == http.StatusForbidden:
		return nil, &bot.NotVoiceChannelError{ChannelID: id}
	case err != nil:
		return nil, fmt.Errorf("discord: channel %s: %w", id, err)
	case c == nil || c.GuildID != guild:
		return nil, &bot.NotVoiceChannelError{ChannelID: id}
	}
	return c, nil
}

// stateChannel returns a copy of the guild's channel as the gateway told
// it (GUILD_CREATE, CHANNEL_* events), nil when the state has none. The
// guild's own list is searched: GUILD_CREATE's channels carry no guild_id.
func stateChannel(s *discordgo.Session, guild, id string) *discordgo.Channel {
	if s.State == nil {
		return nil
	}
	g, err := s.State.Guild(guild)
	if err != nil || g == nil {
		return nil
	}
	s.State.RLock()
	defer s.State.RUnlock()
	for _, c := range g.Channels {
		if c != nil && c.ID == id {
			out := *c
			return &out
		}
	}
	return nil
}

// inChannelLocked returns the voice states in the guild's channel as the
// gateway told them; v.mu is held.
func (v *voice) inChannelLocked(guild, channel string) []core.VoiceState {
	g := v.guilds[guild]
	if g == nil || channel == "" {
		return nil
	}
	var current []core.VoiceState
	for _, vs := range g.states {
		if vs.ChannelID == channel {
			current = append(current, vs)
		}
	}
	return current
}

// post hands summaries to Options.Summaries, when set.
func (v *voice) post(ctx context.Context, sums []core.AttendanceSummary) {
	if len(sums) > 0 && v.summaries != nil {
		v.summaries(ctx, sums)
	}
}

// voiceState is a Discord voice state as core's, at at; m is the member,
// nil when unknown.
func voiceState(st *discordgo.VoiceState, m *discordgo.Member, at time.Time) core.VoiceState {
	vs := core.VoiceState{
		Member:    core.Member{Platform: core.Discord, ExternalID: st.UserID},
		ChannelID: st.ChannelID,
		Deafened:  st.Deaf || st.SelfDeaf,
		At:        at,
	}
	if m != nil && m.User != nil {
		vs.Member.Name = m.DisplayName()
		vs.Bot = m.User.Bot
	}
	return vs
}

// eventLink is a link to a scheduled event (Copy Event Link):
// https://discord.com/events/<guild>/<event>.
var eventLink = regexp.MustCompile(`^https?://(?:[a-z]+\.)?discord(?:app)?\.com/events/([0-9]{1,20})/([0-9]{1,20})/?(?:\?.*)?$`)

// snowflake is the form of a Discord id.
var snowflake = regexp.MustCompile(`^[0-9]{15,20}$`)

// scheduledEvents returns the guild's bot.Request.ScheduledEvent: the
// scheduled event whose id (or link) or name (exact but for case, among
// those not over) ref gives, read from Discord.
func scheduledEvents(s *discordgo.Session, guild string) func(context.Context, string) (bot.ScheduledEvent, error) {
	return func(ctx context.Context, ref string) (bot.ScheduledEvent, error) {
		ref = strings.TrimSpace(ref)
		id := ref
		if m := eventLink.FindStringSubmatch(ref); m != nil {
			if m[1] != guild {
				return bot.ScheduledEvent{}, bot.ErrNoScheduledEvent
			}
			id = m[2]
		}
		if snowflake.MatchString(id) {
			e, err := s.GuildScheduledEvent(guild, id, false, discordgo.WithContext(ctx))
			switch {
			case err == nil && e != nil:
				return scheduledEventOf(ctx, s, e), nil
			case restCode(err) != discordgo.ErrCodeUnknownGuildScheduledEvent && restStatus(err) != http.StatusNotFound:
				return bot.ScheduledEvent{}, fmt.Errorf("discord: scheduled event %s: %w", id, err)
			case id != ref:
				return bot.ScheduledEvent{}, bot.ErrNoScheduledEvent
			}
			// Not an id: perhaps a name made of digits.
		}
		all, err := s.GuildScheduledEvents(guild, false, discordgo.WithContext(ctx))
		if err != nil {
			return bot.ScheduledEvent{}, fmt.Errorf("discord: scheduled events: %w", err)
		}
		var found *discordgo.GuildScheduledEvent
		for _, e := range all {
			if e == nil || !strings.EqualFold(strings.TrimSpace(e.Name), ref) ||
				(e.Status != discordgo.GuildScheduledEventStatusScheduled && e.Status != discordgo.GuildScheduledEventStatusActive) {
				continue
			}
			if found != nil {
				return bot.ScheduledEvent{}, bot.ErrScheduledEventAmbiguous
			}
			found = e
		}
		if found == nil {
			return bot.ScheduledEvent{}, bot.ErrNoScheduledEvent
		}
		return scheduledEventOf(ctx, s, found), nil
	}
}

// scheduledEventOf is a Discord scheduled event as the bot's, with its
// channel's name (from the state, else read; "" when unknown). An
// external event (entity type 3) has no channel.
func scheduledEventOf(ctx context.Context, s *discordgo.Session, e *discordgo.GuildScheduledEvent) bot.ScheduledEvent {
	out := bot.ScheduledEvent{ID: e.ID, Name: e.Name, Status: core.ScheduledEventStatus(e.Status)}
	if e.EntityType != discordgo.GuildScheduledEventEntityTypeStageInstance && e.EntityType != discordgo.GuildScheduledEventEntityTypeVoice {
		return out
	}
	out.ChannelID = e.ChannelID
	if e.ChannelID == "" {
		return out
	}
	var c *discordgo.Channel
	if s.State != nil {
		c, _ = s.State.Channel(e.ChannelID)
	}
	if c == nil {
		c, _ = s.Channel(e.ChannelID, discordgo.WithContext(ctx))
	}
	if c != nil {
		out.ChannelName = c.Name
	}
	return out
}
