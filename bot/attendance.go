package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/poapbot/poapbot/core"
)

// ConsoleVoiceChannel is the voice channel of the console's rehearsal when
// /attendance join names none.
const ConsoleVoiceChannel = "voice"

// DefaultAttendanceMinimum is the minimum of /attendance start when it
// gives none.
const DefaultAttendanceMinimum = "10m"

// AttendanceStopTimeout bounds the stop of a session, /attendance stop's
// or one that stopped by itself, which mints to the eligible members of a
// delivery:mint drop; those not minted in time claim with the button.
const AttendanceStopTimeout = 5 * time.Minute

// attendancePageSize is how many members a page of /attendance list shows.
const attendancePageSize = 20

// maxConsoleMember is the longest member name the console's stand-ins
// take, as /as does.
const maxConsoleMember = 64

// maxScheduledEventRef is the longest event option of /attendance start:
// Discord's scheduled event names are up to 100 characters.
const maxScheduledEventRef = 100

// ScheduledEvent is one of a place's scheduled events (Discord's), as
// /attendance start event: reads it.
type ScheduledEvent struct {
	ID   string
	Name string
	// ChannelID and ChannelName are its voice or stage channel; ""
	// for an event elsewhere (Discord's external events).
	ChannelID   string
	ChannelName string
	Status      core.ScheduledEventStatus
}

// Errors of Request.ScheduledEvent.
var (
	ErrNoScheduledEvent        = errors.New("no such scheduled event")
	ErrScheduledEventAmbiguous = errors.New("several scheduled events have that name")
)

// Refusals of /attendance start event: that are the bot's own.
var (
	errEventWithChannel  = errors.New("both channel and event")
	errNoChannelOrEvent  = errors.New("neither channel nor event")
	errNoScheduledEvents = errors.New("the platform has no scheduled events")
	errExternalEvent     = errors.New("the scheduled event is not in a voice or stage channel")
	errEventOver         = errors.New("the scheduled event is over")
)

// ErrNoVoice means /attendance ran where the platform tells bots nothing
// of who is in a call (Capabilities.Voice is false: Telegram).
var ErrNoVoice = errors.New("the platform does not tell bots who is in a call")

// attendanceCommands are /attendance start, stop, list and export (the
// moderators', where the platform tells who is in a call), and the
// console's stand-ins for voice events, join and leave.
func (b *Bot) attendanceCommands() []*Command {
	session := Option{Name: "session", Type: IntegerOption, Description: "the session's number (default: the latest here)"}
	return []*Command{
		{Name: "attendance start", Description: "Count who attends a voice or stage channel: those who stay the minimum may claim the drop",
			Access: ManageEvents, AnswerInGroup: true, Handler: b.attendanceStart,
			// channel or event, exactly one (the handler checks): Discord
			// lists drop, the required one, first; the console binds
			// words in this order (/attendance start voice 197001 30m).
			Options: []Option{
				{Name: "channel", Type: ChannelOption, ChannelTypes: voiceChannelTypes, Description: "the voice or stage channel to count (or give event)"},
				{Name: "drop", Type: IntegerOption, Required: true, Description: "the drop's id"},
				{Name: "min", Type: TextOption, MaxLen: 16, Description: "the minimum: N minutes (30m) or N percent of the session (50%); default " + DefaultAttendanceMinimum},
				{Name: "event", Type: TextOption, MaxLen: maxScheduledEventRef, Description: "or a scheduled event (its id or name): counts while it is active"},
			}},
		{Name: "attendance stop", Description: "Stop counting and post the summary with a Claim button", Access: ManageEvents, AnswerInGroup: true,
			// With delivery:mint the stop mints to every eligible member
			// with a verified wallet, one after another.
			Timeout: AttendanceStopTimeout, Handler: b.attendanceStop,
			Options: []Option{{Name: "channel", Type: ChannelOption, ChannelTypes: voiceChannelTypes, Description: "the channel counted (needed when several are)"}}},
		{Name: "attendance list", Description: "A session's members and their minutes", Access: ManageEvents, Handler: b.attendanceList,
			Options: []Option{session, {Name: "page", Type: IntegerOption, Hidden: true, Description: "page number"}}},
		{Name: "attendance export", Description: "CSV of a stopped session: member (pseudonymous), minutes, eligible", Access: ManageEvents,
			Handler: b.attendanceExport, Options: []Option{session}},
		{Name: "attendance join", Description: "Rehearsal: a member joins a voice channel", Access: ManageEvents, Console: true,
			Handler: b.attendanceJoin,
			Options: []Option{
				{Name: "member", Type: TextOption, Required: true, MaxLen: maxConsoleMember, Description: "the member's name"},
				{Name: "channel", Type: TextOption, MaxLen: MaxIDLen, Description: "the voice channel (default " + ConsoleVoiceChannel + ")"},
				{Name: "deaf", Type: BooleanOption, Description: "true: the member is deafened (does not count)"},
			}},
		{Name: "attendance leave", Description: "Rehearsal: a member leaves voice", Access: ManageEvents, Console: true,
			Handler: b.attendanceLeave,
			Options: []Option{{Name: "member", Type: TextOption, Required: true, MaxLen: maxConsoleMember, Description: "the member's name"}}},
	}
}

// voiceChannelTypes are the channels attendance counts in.
var voiceChannelTypes = []ChannelType{VoiceChannelType, StageChannelType}

// rehearsalVoice is who is in which voice channel on the console, as its
// stand-ins said: the channel's members when a session starts there.
type rehearsalVoice struct {
	mu sync.Mutex
	// in maps a place's id to its members' voice states, by member.
	in map[string]map[string]core.VoiceState
}

// set records a member's voice state; a state outside any channel
// removes them.
func (r *rehearsalVoice) set(place string, v core.VoiceState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.in == nil {
		r.in = map[string]map[string]core.VoiceState{}
	}
	if r.in[place] == nil {
		r.in[place] = map[string]core.VoiceState{}
	}
	if v.ChannelID == "" {
		delete(r.in[place], v.Member.ExternalID)
		return
	}
	r.in[place][v.Member.ExternalID] = v
}

// current returns the place's voice states.
func (r *rehearsalVoice) current(place string) []core.VoiceState {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]core.VoiceState, 0, len(r.in[place]))
	for _, v := range r.in[place] {
		out = append(out, v)
	}
	return out
}

// attendanceStart opens a session in the channel for the drop.
func (b *Bot) attendanceStart(ctx context.Context, req *Request) (Reply, error) {
	if !req.Caps.Voice {
		return Reply{}, ErrNoVoice
	}
	id, err := requiredID(req, "drop")
	if err != nil {
		return Reply{}, err
	}
	channel := channelID(req.Text("channel"))
	ref := strings.TrimSpace(req.Text("event"))
	switch {
	case channel != "" && ref != "":
		return Reply{}, errEventWithChannel
	case channel == "" && ref == "":
		return Reply{}, errNoChannelOrEvent
	}
	text := strings.TrimSpace(req.Text("min"))
	if text == "" {
		text = DefaultAttendanceMinimum
	}
	minimum, err := core.ParseMinimum(text)
	if err != nil {
		return Reply{}, err
	}
	start := core.AttendanceStart{Moderator: member(req), Place: req.Place, EventID: id, ChannelID: channel,
		SummaryChannelID: req.Chat.Channel, Minimum: minimum}
	var current []core.VoiceState
	var ev ScheduledEvent
	switch {
	case ref != "":
		if ev, err = scheduledEvent(ctx, req, ref); err != nil {
			return Reply{}, err
		}
		start.ChannelID, start.ChannelName = ev.ChannelID, ev.ChannelName
		start.ScheduledEventID, start.EventActive = ev.ID, ev.Status == core.EventActive
		if req.VoiceChannel != nil {
			if _, current, err = req.VoiceChannel(ctx, ev.ChannelID); err != nil {
				return Reply{}, err
			}
		}
	case req.Caps.Rehearsal:
		// The console's channels are named by their id.
		start.ChannelName = channel
		current = b.voice.current(req.Place.ExternalID)
	case req.VoiceChannel != nil:
		if start.ChannelName, current, err = req.VoiceChannel(ctx, channel); err != nil {
			return Reply{}, err
		}
	}
	sess, err := b.attendance.Start(ctx, start, current)
	if err != nil {
		return Reply{}, err
	}
	if ref != "" {
		// The event may have started or ended between the look-up and
		// the start, its gateway event handled before the session
		// existed: read it again.
		var stopped *core.AttendanceSummary
		if sess, stopped = b.recheckEvent(ctx, req, sess); stopped != nil {
			post, minted, err := b.stopSummary(ctx, *stopped)
			if err != nil {
				return Reply{}, err
			}
			return Reply{Personal: true, Text: "The scheduled event " + Escape(ev.Name) + " ended as the session started. " +
				SummaryText(*stopped) + minted, Post: post}, nil
		}
	}
	if ref != "" {
		when := "It starts counting when the event starts"
		if sess.State == core.AttendanceOpen {
			when = "The event is under way: counting starts now"
		}
		return Reply{Personal: true, Text: fmt.Sprintf("Attendance of the scheduled event %s in %s for drop %s (session %d). %s, "+
			"and stops when it ends or is cancelled (or with %s); members who stay %s (not deafened) may then claim it. "+
			"A session stops by itself after %s.",
			Escape(ev.Name), voiceChannelText(req, sess.ChannelID), codeSpan(strconv.FormatInt(sess.EventID, 10)), sess.ID, when,
			codeSpan("/attendance stop"), minimumText(sess.Minimum), lengthText(sess.MaxLength))}, nil
	}
	return Reply{Personal: true, Text: fmt.Sprintf("Counting who attends %s for drop %s (session %d): members who stay %s "+
		"(not deafened) may claim it once you stop it with %s. A session stops by itself after %s.",
		voiceChannelText(req, sess.ChannelID), codeSpan(strconv.FormatInt(sess.EventID, 10)), sess.ID, minimumText(sess.Minimum),
		codeSpan("/attendance stop"), lengthText(sess.MaxLength))}, nil
}

// scheduledEvent looks up the scheduled event of /attendance start
// event: and checks that it is in a voice or stage channel and not over.
func scheduledEvent(ctx context.Context, req *Request, ref string) (ScheduledEvent, error) {
	if req.ScheduledEvent == nil {
		return ScheduledEvent{}, errNoScheduledEvents
	}
	ev, err := req.ScheduledEvent(ctx, ref)
	switch {
	case err != nil:
		return ScheduledEvent{}, err
	case ev.ChannelID == "":
		return ScheduledEvent{}, errExternalEvent
	case ev.Status == core.EventCompleted || ev.Status == core.EventCanceled:
		return ScheduledEvent{}, errEventOver
	}
	return ev, nil
}

// recheckEvent reads again the scheduled event of a session just started
// on it, and hands a change the session missed (active, over) to the
// attendance service, as the gateway's would have been. It returns the
// session as it is then, and the summary when that stopped it.
func (b *Bot) recheckEvent(ctx context.Context, req *Request, sess core.AttendanceSession) (core.AttendanceSession, *core.AttendanceSummary) {
	ev, err := req.ScheduledEvent(ctx, sess.ScheduledEventID)
	switch {
	case errors.Is(err, ErrNoScheduledEvent):
		ev = ScheduledEvent{ID: sess.ScheduledEventID, Status: core.EventCanceled} // deleted meanwhile
	case err != nil || ev.ID != sess.ScheduledEventID:
		// The gateway will tell.
		b.log.Warn("attendance start: scheduled event not read again", "session", sess.ID, "err", err)
		return sess, nil
	case ev.Status == core.EventScheduled || (ev.Status == core.EventActive && sess.State == core.AttendanceOpen):
		return sess, nil
	}
	var current []core.VoiceState
	if req.VoiceChannel != nil {
		if _, current, err = req.VoiceChannel(ctx, sess.ChannelID); err != nil {
			b.log.Warn("attendance start: the scheduled event's channel not read", "session", sess.ID, "err", err)
			return sess, nil
		}
	}
	change, err := b.attendance.EventChanged(ctx, req.Place,
		core.ScheduledEvent{ID: ev.ID, ChannelID: sess.ChannelID, Status: ev.Status}, current)
	switch {
	case err != nil:
		// Created, not opened (another session counts the channel): the
		// session waits, as on the gateway's word.
		b.log.Warn("attendance start: the scheduled event's change not applied", "session", sess.ID, "err", err)
		return sess, nil
	case change.Opened != nil:
		return *change.Opened, nil
	}
	return sess, change.Stopped
}

// attendanceStop stops the session and posts its summary with a Claim
// button in the channel it was started in.
func (b *Bot) attendanceStop(ctx context.Context, req *Request) (Reply, error) {
	if !req.Caps.Voice {
		return Reply{}, ErrNoVoice
	}
	sum, err := b.attendance.Stop(ctx, member(req), req.Place, channelID(req.Text("channel")))
	if err != nil {
		return Reply{}, err
	}
	post, minted, err := b.stopSummary(ctx, sum)
	if err != nil {
		return Reply{}, err
	}
	return Reply{Personal: true, Text: "Stopped. " + SummaryText(sum) + minted, Post: post}, nil
}

// MintAttendees mints a stopped session's drop, when its claim method is
// mint, to each eligible member's verified wallet, and says what it did
// (" Minted to 3 members…"), or "" for a drop of another method. The
// others claim with the summary's button.
func (b *Bot) MintAttendees(ctx context.Context, sum core.AttendanceSummary) string {
	ids, err := b.attendance.Eligible(ctx, sum.Session.ID)
	if err != nil {
		b.log.Warn("attendance mints: eligible members not read", "session", sum.Session.ID, "err", err)
		return " Nothing was minted (the eligible members could not be read): they claim with the button."
	}
	m, err := b.drops.MintAttendees(ctx, sum, ids)
	if err != nil {
		b.log.Warn("attendance mints failed", "session", sum.Session.ID, "err", err)
	}
	if m == (core.AttendanceMints{}) {
		return ""
	}
	text := fmt.Sprintf(" Minted straight to the verified wallets of %s", plural(m.Minted, "member"))
	if m.Before > 0 {
		text += fmt.Sprintf(" (%d minted before)", m.Before)
	}
	text += "."
	if rest := m.NoWallet + m.Failed; rest > 0 {
		text += fmt.Sprintf(" Not minted to %d eligible without a verified wallet", m.NoWallet)
		if m.Failed > 0 {
			text += fmt.Sprintf(" and %d the issuing service did not mint now", m.Failed)
		}
		text += ": they claim with the button."
	}
	return text
}

// SummaryText words a stopped session: how many attended, how many met
// the minimum, how long it lasted, and the bot's downtime if any.
func SummaryText(sum core.AttendanceSummary) string {
	s := sum.Session
	channel := "the call"
	if s.ChannelName != "" {
		channel = Escape(s.ChannelName)
	}
	text := fmt.Sprintf("**Attendance of %s** (session %d): %s attended, %d met the minimum of %s. It lasted %s.",
		channel, s.ID, plural(sum.Attended, "member"), sum.Eligible, minimumText(s.Minimum), minutes(sum.Length))
	if s.Downtime > 0 {
		text += fmt.Sprintf(" The bot was down for %s of it, credited to nobody.", minutes(s.Downtime))
	}
	return text
}

// attendanceList shows a page of a session's members and their minutes.
func (b *Bot) attendanceList(ctx context.Context, req *Request) (Reply, error) {
	if !req.Caps.Voice {
		return Reply{}, ErrNoVoice
	}
	id, err := b.sessionID(ctx, req)
	if err != nil {
		return Reply{}, err
	}
	pageNo, _, err := req.Int("page")
	if err != nil {
		return Reply{}, err
	}
	pageNo = max(pageNo, 1)
	page, err := b.attendance.Members(ctx, req.Place, id, int(pageNo-1)*attendancePageSize, attendancePageSize)
	if err != nil {
		return Reply{}, err
	}
	s := page.Session
	var out strings.Builder
	fmt.Fprintf(&out, "**Session %d** of drop %s, %s (%s), minimum %s: %s.", s.ID, codeSpan(strconv.FormatInt(s.EventID, 10)),
		voiceChannelText(req, s.ChannelID), s.State, minimumText(s.Minimum), plural(page.Total, "member"))
	if s.State == core.AttendanceOpen {
		out.WriteString(" Counted up to now; ✓ marks who would be eligible if it stopped now.")
	}
	for _, r := range page.Results {
		name := Escape(r.Name)
		if name == "" {
			name = fmt.Sprintf("member #%d", r.UserID)
		}
		fmt.Fprintf(&out, "\n- %s: %s", name, minutes(time.Duration(r.Seconds)*time.Second))
		if r.Eligible {
			out.WriteString(" ✓")
		}
		if r.LeftServer {
			out.WriteString(" (left the server)")
		}
	}
	reply := Reply{Personal: true, Text: out.String()}
	if pageNo > 1 {
		reply.Buttons = append(reply.Buttons, Button{Label: "Previous", Command: fmt.Sprintf("/attendance list session:%d page:%d", s.ID, pageNo-1)})
	}
	if int(pageNo)*attendancePageSize < page.Total {
		reply.Buttons = append(reply.Buttons, Button{Label: "Next", Command: fmt.Sprintf("/attendance list session:%d page:%d", s.ID, pageNo+1)})
	}
	return reply, nil
}

// attendanceExport sends the CSV of a stopped session's results.
func (b *Bot) attendanceExport(ctx context.Context, req *Request) (Reply, error) {
	if !req.Caps.Voice {
		return Reply{}, ErrNoVoice
	}
	id, err := b.sessionID(ctx, req)
	if err != nil {
		return Reply{}, err
	}
	sess, rows, err := b.attendance.Export(ctx, member(req), req.Place, id)
	if err != nil {
		return Reply{}, err
	}
	records := [][]string{slices.Clone(core.AttendanceCSVHeader)}
	for _, r := range rows {
		records = append(records, r.Record())
	}
	data, err := writeCSV(records)
	if err != nil {
		return Reply{}, fmt.Errorf("attendance %w", err)
	}
	file := &File{Name: fmt.Sprintf("attendance-%d.csv", sess.ID), ContentType: "text/csv", Data: data}
	return Reply{Personal: true, File: file, Text: fmt.Sprintf("Export of session %d (drop %s): %s. Members appear by a pseudonymous id, never their account.",
		sess.ID, codeSpan(strconv.FormatInt(sess.EventID, 10)), plural(len(rows), "member"))}, nil
}

// sessionID reads the session option, or the place's latest session.
func (b *Bot) sessionID(ctx context.Context, req *Request) (int64, error) {
	id, ok, err := req.Int("session")
	switch {
	case err != nil:
		return 0, err
	case ok && id <= 0:
		return 0, &OptionError{Option: "session", Reason: "must be a session number, above 0"}
	case ok:
		return id, nil
	}
	latest, err := b.attendance.Sessions(ctx, req.Place, 1)
	if err != nil {
		return 0, err
	}
	if len(latest) == 0 {
		return 0, core.ErrNoAttendanceSession
	}
	return latest[0].ID, nil
}

// attendanceJoin stands in for a member joining a voice channel, on the
// console.
func (b *Bot) attendanceJoin(ctx context.Context, req *Request) (Reply, error) {
	name, err := consoleMember(req)
	if err != nil {
		return Reply{}, err
	}
	channel := strings.TrimSpace(req.Text("channel"))
	if channel == "" {
		channel = ConsoleVoiceChannel
	}
	deaf := false
	if t := strings.TrimSpace(req.Text("deaf")); t != "" {
		if deaf, err = strconv.ParseBool(t); err != nil && !strings.EqualFold(t, "deaf") {
			return Reply{}, &OptionError{Option: "deaf", Reason: "must be true or false"}
		}
		deaf = deaf || strings.EqualFold(t, "deaf")
	}
	v := core.VoiceState{Member: core.Member{Platform: req.Place.Platform, ExternalID: name, Name: name}, ChannelID: channel, Deafened: deaf}
	if err := b.attendance.Observe(ctx, req.Place, v); err != nil {
		return Reply{}, err
	}
	b.voice.set(req.Place.ExternalID, v)
	state := ""
	if deaf {
		state = ", deafened"
	}
	return Reply{Text: fmt.Sprintf("%s is in voice channel %s%s.", Escape(name), codeSpan(channel), state)}, nil
}

// attendanceLeave stands in for a member leaving voice, on the console.
func (b *Bot) attendanceLeave(ctx context.Context, req *Request) (Reply, error) {
	name, err := consoleMember(req)
	if err != nil {
		return Reply{}, err
	}
	v := core.VoiceState{Member: core.Member{Platform: req.Place.Platform, ExternalID: name, Name: name}}
	if err := b.attendance.Observe(ctx, req.Place, v); err != nil {
		return Reply{}, err
	}
	b.voice.set(req.Place.ExternalID, v)
	return Reply{Text: fmt.Sprintf("%s left voice.", Escape(name))}, nil
}

// consoleMember reads the member option of the console's stand-ins: a
// name as /as takes it.
func consoleMember(req *Request) (string, error) {
	name := strings.TrimSpace(req.Text("member"))
	if name == "" || strings.ContainsAny(name, " \t\r\n") || len(name) > maxConsoleMember {
		return "", &OptionError{Option: "member", Reason: "must be a member's name, one word as /as takes it"}
	}
	return name, nil
}

// voiceChannelText names a voice channel: its mention where the platform
// has them, its name on the console.
func voiceChannelText(req *Request, id string) string {
	if req.Caps.Rehearsal {
		return codeSpan(id)
	}
	return ChannelMention(id)
}

// minimumText words a minimum: "30 minutes", "50% of the session".
func minimumText(m core.AttendanceMinimum) string {
	if m.Kind == core.MinimumPercent {
		return fmt.Sprintf("%d%% of the session", m.Value)
	}
	return plural(m.Value, "minute")
}

// lengthText words a session's maximum length: in hours when whole.
func lengthText(d time.Duration) string {
	if d >= time.Hour && d%time.Hour == 0 {
		return plural(int(d/time.Hour), "hour")
	}
	return minutes(d)
}

// minutes words a duration in whole minutes.
func minutes(d time.Duration) string { return plural(int(d/time.Minute), "minute") }

// attendanceErrText words the refusals of /attendance.
func attendanceErrText(req *Request, err error) (string, bool) {
	var me *core.MinimumError
	var nv *NotVoiceChannelError
	switch {
	case errors.Is(err, ErrNoVoice) || (errors.Is(err, ErrUnknownCommand) && req.Command == "attendance" && !req.Caps.Voice):
		return req.Place.Platform.Title() + " does not tell bots who is in a video chat, so I can't count attendance here. " +
			"Hand the drop to the members of this group with " + codeSpan("/drop deliver") + ", or share a codeword in the call " +
			"(" + codeSpan("/drop edit <drop> codeword:<word>") + ") and post a claim message with " + codeSpan("/distribute") + ".", true
	case errors.Is(err, ErrUnknownCommand) && req.Command == "attendance":
		return "Use " + codeSpan("/attendance start") + ", " + codeSpan("/attendance stop") + ", " + codeSpan("/attendance list") +
			" or " + codeSpan("/attendance export") + ". Type /help to see them.", true
	case errors.Is(err, core.ErrAttendanceChannel):
		return "That is not a channel I can count: name the voice or stage channel (up to " +
			strconv.Itoa(core.MaxAttendanceID) + " characters).", true
	case errors.As(err, &nv):
		which := "That channel"
		if nv.ChannelID != "" {
			which = ChannelMention(nv.ChannelID)
		}
		return which + " is not a voice or stage channel of this server, so there is no one to count there. " +
			"Pick a voice or stage channel in " + codeSpan("channel:") + ".", true
	case errors.As(err, &me) && me.Zero:
		return "A minimum of zero would count everyone who passed by, so it is refused. Give N minutes (" + codeSpan("min:30m") +
			") or a share of the session (" + codeSpan("min:50%") + ").", true
	case errors.As(err, &me):
		return "That minimum can't work (" + Escape(me.Reason) + "). Give N minutes (" + codeSpan("min:30m") +
			") or a share of the session (" + codeSpan("min:50%") + ").", true
	case errors.Is(err, errEventWithChannel):
		return "Give a channel or a scheduled event, not both: " + codeSpan("/attendance start channel:<channel> drop:<drop>") +
			" counts from now, " + codeSpan("/attendance start event:<scheduled event> drop:<drop>") + " while the event is active.", true
	case errors.Is(err, errNoChannelOrEvent):
		return "Name what to count: a voice or stage channel (" + codeSpan("/attendance start channel:<channel> drop:<drop>") +
			") or a scheduled event (" + codeSpan("/attendance start event:<scheduled event> drop:<drop>") + ").", true
	case errors.Is(err, errNoScheduledEvents):
		return req.Place.Platform.Title() + " has no scheduled events: give the channel to count, " +
			codeSpan("/attendance start channel:<channel> drop:<drop>") + ", and stop it with " + codeSpan("/attendance stop") + ".", true
	case errors.Is(err, ErrNoScheduledEvent):
		return "There is no scheduled event " + codeSpan(req.Text("event")) + " in this server. Give its id or its exact name " +
			"(the server's Events list shows them).", true
	case errors.Is(err, ErrScheduledEventAmbiguous):
		return "Several scheduled events are named " + codeSpan(req.Text("event")) + ": give the event's id instead " +
			"(Copy Event Link in the event's menu; the id is its last number).", true
	case errors.Is(err, errExternalEvent):
		return "That scheduled event takes place somewhere else, not in a voice or stage channel of this server, so I can't " +
			"see who attends it. Schedule it in a voice or stage channel, or give the channel with " + codeSpan("channel:") + ".", true
	case errors.Is(err, errEventOver):
		return "That scheduled event is over (completed or cancelled): there is nothing left to count.", true
	case errors.Is(err, core.ErrAttendanceEventBusy):
		return "Attendance already follows that scheduled event, or is being counted in its channel: one session at a time. " +
			"Stop it with " + codeSpan("/attendance stop") + " first.", true
	case errors.Is(err, core.ErrAttendanceChannelBusy):
		return "Attendance is already being counted in that channel: one session at a time. Stop it with " +
			codeSpan("/attendance stop") + " first.", true
	case errors.Is(err, core.ErrAttendanceAmbiguous):
		return "Several channels are being counted here: name the one to stop, " + codeSpan("/attendance stop channel:<channel>") + ".", true
	case errors.Is(err, core.ErrNoAttendanceSession) && req.Command == "attendance stop":
		return "No attendance is being counted here" + channelSuffix(req) + ". Start with " + codeSpan("/attendance start") + ".", true
	case errors.Is(err, core.ErrNoAttendanceSession):
		return "There is no such attendance session here. " + codeSpan("/attendance list") + " shows the latest.", true
	case errors.Is(err, core.ErrAttendanceOpen):
		return "That session is still counting: its export exists once it stops (" + codeSpan("/attendance stop") + "). " +
			codeSpan("/attendance list") + " shows the minutes so far.", true
	case strings.HasPrefix(req.Command, "attendance ") && errors.Is(err, core.ErrNoSuchDrop):
		return "There is no drop " + codeSpan(req.Text("drop")) + " here. Moderators see the drops of this place with " + codeSpan("/drop list") + ".", true
	case strings.HasPrefix(req.Command, "attendance ") && errors.Is(err, core.ErrDropRemoved):
		return "Drop " + codeSpan(req.Text("drop")) + " was stopped here: it hands out no more POAPs.", true
	}
	return "", false
}

// channelSuffix names the channel of a /attendance stop that named one.
func channelSuffix(req *Request) string {
	if c := channelID(req.Text("channel")); c != "" {
		return " in " + voiceChannelText(req, c)
	}
	return ""
}
