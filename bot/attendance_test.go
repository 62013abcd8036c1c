package bot

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/sandbox"
)

// attendanceLine runs a line as who in the console's place, with caps.
func (e *dropEnv) attendanceLine(t *testing.T, caps Capabilities, who, line string) Reply {
	t.Helper()
	req := &Request{
		Place: core.Place{Platform: core.Console, ExternalID: "guild", Name: "Guild"},
		Chat:  Chat{Channel: "general"},
		Caps:  caps, Caller: Caller{ExternalID: who, Name: who, ManagesDrops: who == "mod"},
	}
	reply, ok := e.b.HandleLine(context.Background(), req, line, "")
	if !ok {
		t.Fatalf("HandleLine(%q) says not a command", line)
	}
	return reply
}

// TestAttendance_Commands rehearses /attendance through the bot on each
// database: a minimum of zero and a second session in a channel are
// refused; a member present at the start is counted; the stop posts the
// summary as a claim message in the channel the session started in; the
// list and the export show the minutes; a member never in the call is
// refused the drop with their minutes; the stand-ins exist only on a
// rehearsal's console.
func TestAttendance_Commands(t *testing.T) {
	eachDBDropEnv(t, func(t *testing.T, e *dropEnv) {
		console := Capabilities{Rehearsal: true, Voice: true}
		run := func(who, line string) Reply { t.Helper(); return e.attendanceLine(t, console, who, line) }
		want := func(r Reply, line string, parts ...string) {
			t.Helper()
			for _, p := range parts {
				if !strings.Contains(PlainText(r.Text), p) {
					t.Errorf("%s = %q, want %q in it", line, PlainText(r.Text), p)
				}
			}
		}
		drop := sandbox.DemoLinksDropID
		run("mod", fmt.Sprintf("/drop add %d %s delivery:link", drop, sandbox.DemoEditCode))

		line := fmt.Sprintf("/attendance start voice %d 0m", drop)
		want(run("mod", line), line, "minimum of zero")
		line = fmt.Sprintf("/attendance start %s %d 30m", strings.Repeat("v", core.MaxAttendanceID+1), drop)
		want(run("mod", line), "a channel too long", "not a channel I can count")
		line = fmt.Sprintf("/attendance start voice %d 30m", drop)
		want(run("ada", line), line, "Only moderators")
		want(run("mod", "/attendance join ada"), "join", "ada is in voice channel voice")
		want(run("mod", line), line, "Counting who attends", "30 minutes")
		want(run("mod", line), line, "already being counted in that channel")
		want(run("mod", "/attendance join bob voice true"), "join deaf", "deafened")
		want(run("mod", "/attendance list"), "list open", "ada: 0 minutes")

		e.clock.Add(31 * time.Minute)
		stop := run("mod", "/attendance stop")
		want(stop, "stop", "1 member attended, 1 met the minimum of 30 minutes")
		if stop.Post == nil || stop.Post.Channel != "general" || len(stop.Post.Buttons) != 1 || stop.Post.Buttons[0].Command != fmt.Sprintf("/claim %d", drop) {
			t.Fatalf("stop's post = %+v, want the summary with a Claim button in general", stop.Post)
		}
		want(Reply{Text: stop.Post.Text}, "stop's post", "Attendance of voice", "1 met the minimum", "links left")
		want(run("mod", "/attendance list"), "list", "ada: 31 minutes ✓", "1 member.")
		export := run("mod", "/attendance export")
		if export.File == nil || !strings.HasPrefix(string(export.File.Data), "member,minutes,seconds,eligible,left_server\n") ||
			!strings.Contains(string(export.File.Data), ",31,1860,true,false") || strings.Contains(string(export.File.Data), "ada") {
			t.Errorf("export = %+v, want the CSV with pseudonymous ids", export.File)
		}
		want(run("bob", fmt.Sprintf("/claim %d", drop)), "bob's claim", "You were not counted in the attendance of voice: 0 of 30 minutes")
		want(run("cy", fmt.Sprintf("/claim %d", drop)), "cy's claim", "You were not counted in the attendance of voice: 0 of 30 minutes")
		if r := run("ada", fmt.Sprintf("/claim %d", drop)); !strings.Contains(r.Text, "https://poap.test/") {
			t.Errorf("ada's claim = %q, want her mint link", r.Text)
		}

		// A large call's list comes in pages.
		big := run("mod", fmt.Sprintf("/attendance start big %d 1m", drop))
		want(big, "start big", "Counting who attends")
		// The session's number: PostgreSQL's sequence skipped the one the
		// refused second start took.
		sess := regexp.MustCompile(`\(session (\d+)\)`).FindStringSubmatch(big.Text)
		if sess == nil {
			t.Fatalf("start big = %q, want its session number", big.Text)
		}
		for i := range attendancePageSize + 1 {
			run("mod", fmt.Sprintf("/attendance join m%02d big", i))
		}
		first := run("mod", "/attendance list")
		want(first, "list big", "Session "+sess[1], "21 members.", "m00: 0 minutes")
		if len(first.Buttons) != 1 || first.Buttons[0].Command != "/attendance list session:"+sess[1]+" page:2" {
			t.Fatalf("list's buttons = %+v, want Next to page 2", first.Buttons)
		}
		second := run("mod", first.Buttons[0].Command)
		if n := strings.Count(second.Text, "\n- "); n != 1 || len(second.Buttons) != 1 || second.Buttons[0].Label != "Previous" {
			t.Errorf("page 2 = %q with %+v, want one member and Previous", second.Text, second.Buttons)
		}
		want(run("mod", "/attendance stop channel:voice"), "stop with no session there", "No attendance is being counted here in voice.")

		// The stand-ins are the console's; elsewhere they are unknown.
		discord := Capabilities{Voice: true}
		want(e.attendanceLine(t, discord, "mod", "/attendance join ada"), "join on Discord", "I don't know the command")
		// Telegram tells bots nothing of a video chat.
		for _, l := range []string{"/attendance", line, "/attendance stop"} {
			req := &Request{
				Place: core.Place{Platform: core.Telegram, ExternalID: "-100", Name: "Group"}, Chat: Chat{Channel: "-100"},
				Caps: Capabilities{GroupGates: true, PrivateReplies: true}, Caller: Caller{ExternalID: "7", Name: "Mod", ManagesDrops: true},
			}
			r, _ := e.b.HandleLine(context.Background(), req, l, "")
			want(r, l+" on Telegram", "Telegram does not tell bots who is in a video chat", "/drop deliver", "codeword")
		}
	})
}

// TestAttendance_StartEvent checks /attendance start event: on each
// database, with a platform that has scheduled events (the adapter's
// lookup stands in for Discord): channel and event together, or neither,
// are refused; an unknown, an ambiguous, an external and a finished event
// are refused with what to do; an event still scheduled gives a session
// that waits on it; an active one counts the members in its channel from
// now; the console, which has no scheduled events, refuses event:.
func TestAttendance_StartEvent(t *testing.T) {
	eachDBDropEnv(t, func(t *testing.T, e *dropEnv) {
		drop := sandbox.DemoLinksDropID
		e.attendanceLine(t, Capabilities{Rehearsal: true, Voice: true}, "mod", fmt.Sprintf("/drop add %d %s delivery:link", drop, sandbox.DemoEditCode))

		events := map[string]ScheduledEvent{
			"701": {ID: "701", Name: "Community call", ChannelID: "c1", ChannelName: "Call", Status: core.EventScheduled},
			"702": {ID: "702", Name: "Meetup", Status: core.EventScheduled}, // external: no channel
			"703": {ID: "703", Name: "Old call", ChannelID: "c1", ChannelName: "Call", Status: core.EventCompleted},
			"704": {ID: "704", Name: "Stage talk", ChannelID: "c2", ChannelName: "Stage", Status: core.EventActive},
		}
		lookups := 0
		seen := map[string]int{}
		run := func(line string) Reply {
			t.Helper()
			req := &Request{
				Place: core.Place{Platform: core.Console, ExternalID: "guild", Name: "Guild"},
				Chat:  Chat{Channel: "general"}, Caps: Capabilities{Voice: true},
				Caller: Caller{ExternalID: "mod", Name: "mod", ManagesDrops: true},
				ScheduledEvent: func(_ context.Context, ref string) (ScheduledEvent, error) {
					lookups++
					if ref == "dup" {
						return ScheduledEvent{}, ErrScheduledEventAmbiguous
					}
					seen[ref]++
					switch {
					case ref == "705" && seen[ref] > 1:
						// It started just as the session did.
						return ScheduledEvent{ID: "705", Name: "Quick call", ChannelID: "c3", Status: core.EventActive}, nil
					case ref == "705":
						return ScheduledEvent{ID: "705", Name: "Quick call", ChannelID: "c3", Status: core.EventScheduled}, nil
					case ref == "706" && seen[ref] > 1:
						return ScheduledEvent{}, ErrNoScheduledEvent // deleted just as the session started
					case ref == "707" && seen[ref] > 1:
						// It ended just as the session started.
						return ScheduledEvent{ID: "707", Name: "Short call", ChannelID: "c5", Status: core.EventCompleted}, nil
					case ref == "707":
						return ScheduledEvent{ID: "707", Name: "Short call", ChannelID: "c5", Status: core.EventActive}, nil
					case ref == "706":
						return ScheduledEvent{ID: "706", Name: "Gone call", ChannelID: "c4", Status: core.EventScheduled}, nil
					}
					if ev, ok := events[ref]; ok {
						return ev, nil
					}
					return ScheduledEvent{}, ErrNoScheduledEvent
				},
				VoiceChannel: func(_ context.Context, id string) (string, []core.VoiceState, error) {
					who := map[string]string{"c2": "ada", "c3": "bob"}[id]
					if who == "" {
						return "", nil, nil
					}
					return "", []core.VoiceState{{Member: core.Member{Platform: core.Console, ExternalID: who, Name: who}, ChannelID: id}}, nil
				},
			}
			reply, ok := e.b.HandleLine(context.Background(), req, line, "")
			if !ok {
				t.Fatalf("HandleLine(%q) says not a command", line)
			}
			return reply
		}
		want := func(line string, parts ...string) Reply {
			t.Helper()
			r := run(line)
			for _, p := range parts {
				if !strings.Contains(PlainText(r.Text), p) {
					t.Errorf("%s = %q, want %q in it", line, PlainText(r.Text), p)
				}
			}
			return r
		}

		want(fmt.Sprintf("/attendance start channel:c1 event:701 drop:%d", drop), "not both")
		want(fmt.Sprintf("/attendance start drop:%d min:30m", drop), "Name what to count", "event:<scheduled event>")
		want(fmt.Sprintf("/attendance start event:nope drop:%d", drop), "There is no scheduled event nope")
		want(fmt.Sprintf("/attendance start event:dup drop:%d", drop), "Several scheduled events are named dup", "id")
		want(fmt.Sprintf("/attendance start event:702 drop:%d", drop), "not in a voice or stage channel")
		want(fmt.Sprintf("/attendance start event:703 drop:%d", drop), "is over")
		if lookups != 4 {
			t.Errorf("%d lookups, want 4 (none for the refusals of the options)", lookups)
		}
		sessions, err := e.b.attendance.Sessions(t.Context(), core.Place{Platform: core.Console, ExternalID: "guild"}, 10)
		if err != nil || len(sessions) != 0 {
			t.Fatalf("sessions after the refusals = %+v, %v; want none", sessions, err)
		}

		want(fmt.Sprintf("/attendance start event:701 drop:%d min:30m", drop), "scheduled event Community call", "starts counting when the event starts", "30 minutes")
		want(fmt.Sprintf("/attendance start event:701 drop:%d min:30m", drop), "already follows that scheduled event")
		want(fmt.Sprintf("/attendance start event:704 drop:%d min:30m", drop), "scheduled event Stage talk", "counting starts now")
		// The event's change between the look-up and the start is not
		// missed: read again, it opens the session, or stops it.
		want(fmt.Sprintf("/attendance start event:705 drop:%d min:30m", drop), "scheduled event Quick call", "counting starts now")
		gone := want(fmt.Sprintf("/attendance start event:706 drop:%d min:30m", drop), "ended as the session started", "0 members attended")
		if gone.Post == nil || gone.Post.Channel != "general" {
			t.Errorf("the stopped session's post = %+v, want its summary in general", gone.Post)
		}
		want(fmt.Sprintf("/attendance start event:707 drop:%d min:30m", drop), "Short call ended as the session started")
		sessions, err = e.b.attendance.Sessions(t.Context(), core.Place{Platform: core.Console, ExternalID: "guild"}, 10)
		if err != nil || len(sessions) != 5 {
			t.Fatalf("sessions = %+v, %v; want 5", sessions, err)
		}
		byEvent := map[string]core.AttendanceSession{}
		for _, s := range sessions {
			byEvent[s.ScheduledEventID] = s
		}
		if s := byEvent["701"]; s.State != core.AttendanceWaiting || s.ChannelID != "c1" || s.ChannelName != "Call" || s.SummaryChannelID != "general" {
			t.Errorf("the scheduled event's session = %+v, want waiting on c1 (Call), its summary for general", s)
		}
		if s := byEvent["704"]; s.State != core.AttendanceOpen || s.ChannelID != "c2" || s.ChannelName != "Stage" {
			t.Errorf("the active event's session = %+v, want open on c2 (Stage)", s)
		}
		if s := byEvent["705"]; s.State != core.AttendanceOpen || s.ChannelID != "c3" {
			t.Errorf("the session of the event that started meanwhile = %+v, want open on c3", s)
		}
		if s := byEvent["706"]; s.State != core.AttendanceClosed || s.StopReason != core.StopEventCanceled {
			t.Errorf("the session of the event deleted meanwhile = %+v, want closed, cancelled", s)
		}
		if s := byEvent["707"]; s.State != core.AttendanceClosed || s.StopReason != core.StopEventCompleted {
			t.Errorf("the session of the event completed meanwhile = %+v, want closed, completed", s)
		}
		e.clock.Add(31 * time.Minute)
		want("/attendance list session:"+strconv.FormatInt(byEvent["704"].ID, 10), "ada: 31 minutes ✓")
		want("/attendance list session:"+strconv.FormatInt(byEvent["705"].ID, 10), "bob: 31 minutes ✓")

		// The console has no scheduled events.
		r := e.attendanceLine(t, Capabilities{Rehearsal: true, Voice: true}, "mod", fmt.Sprintf("/attendance start event:701 drop:%d", drop))
		if !strings.Contains(PlainText(r.Text), "Console has no scheduled events") {
			t.Errorf("event: on the console = %q, want it refused", PlainText(r.Text))
		}
	})
}
