package core_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

// TestAttendance_Counting: join, deafen, undeafen, move, leave and rejoin,
// a reconnect, a bot, a member who joins deafened, one present at the
// start and one who leaves the server, counted against a 30-minute
// minimum over an hour.
func TestAttendance_Counting(t *testing.T) {
	t.Parallel()
	eachAttendanceDB(t, 0, func(t *testing.T, r *attendanceRig) {
		present := core.VoiceState{Member: member("frank"), ChannelID: "stage"}
		elsewhere := core.VoiceState{Member: member("gina"), ChannelID: "other"}
		sess := r.start("stage", "30m", present, elsewhere)
		r.voice("alice", "stage", false)
		r.voice("dave", "stage", false)
		r.voice("erin", "stage", false)
		r.voice("carol", "stage", true) // joins deafened
		if err := r.svc.Observe(r.ctx, r.place, core.VoiceState{Member: member("bot"), ChannelID: "stage", Bot: true}); err != nil {
			t.Fatal(err)
		}
		r.at(5)
		r.voice("dave", "stage", false) // a reconnect: nothing new
		r.at(10)
		r.voice("alice", "stage", true) // deafens
		r.at(15)
		r.voice("alice", "stage", false)
		r.at(25)
		r.voice("alice", "other", false) // moves out
		r.at(30)
		r.voice("alice", "stage", false) // and back
		r.at(35)
		r.voice("dave", "", false)
		r.at(40)
		r.voice("alice", "", false)
		r.at(45)
		r.voice("carol", "stage", false) // undeafens
		r.at(50)
		r.voice("alice", "stage", false) // rejoins
		if err := r.svc.MemberLeft(r.ctx, r.place, member("erin"), time.Time{}); err != nil {
			t.Fatal(err)
		}
		if err := r.svc.MemberLeft(r.ctx, r.place, member("stranger"), time.Time{}); err != nil {
			t.Errorf("MemberLeft(never seen) = %v, want nil", err)
		}
		r.at(60)
		sum := r.stop("")

		want := map[string]string{
			"alice": "40m0s!", "carol": "15m0s", "dave": "35m0s!", "erin": "50m0s-", "frank": "1h0m0s!",
		}
		if diff := cmp.Diff(want, r.minutesOf(sess.ID)); diff != "" {
			t.Errorf("minutes at the stop (-want +got):\n%s", diff)
		}
		if sum.Attended != 5 || sum.Eligible != 3 || sum.Length != time.Hour || sum.Counted != time.Hour ||
			sum.Session.Downtime != 0 || sum.Session.DropID != r.drop.ID || sum.Session.StopReason != core.StopByModerator {
			t.Errorf("summary = %+v, want 5 attended, 3 eligible, an hour, no downtime, the drop", sum)
		}
		if st := r.standing("alice"); st.Kind != core.AttendanceCounted || st.Seconds != 2400 {
			t.Errorf("Attended(alice) = %+v, want counted with 40 min", st)
		}
		if st := r.standing("carol"); st.Kind != core.AttendanceNotCounted || st.Seconds != 900 || st.Required != 30*time.Minute {
			t.Errorf("Attended(carol) = %+v, want not counted, 15 of 30 min", st)
		}
		if st := r.standing("erin"); st.Kind != core.AttendanceNotCounted || !st.LeftServer {
			t.Errorf("Attended(erin) = %+v, want not counted, left the server", st)
		}
		if st := r.standing("nobody"); st.Kind != core.AttendanceNotCounted || st.Seconds != 0 || st.Required != 30*time.Minute {
			t.Errorf("Attended(never joined) = %+v, want not counted, 0 of 30 min", st)
		}
		_, rows, err := r.svc.Export(r.ctx, r.mod, r.place, sess.ID)
		if err != nil || len(rows) != 5 || rows[0].Seconds != 3600 || rows[0].Member == "" || rows[0].Member == "frank" {
			t.Errorf("Export = %+v, %v; want 5 rows, frank's first under a pseudonymous id", rows, err)
		}
	})
}

// TestAttendance_Refusals: the minimum's limits, one open session per
// channel, the drop, and a stop that names no channel among two.
func TestAttendance_Refusals(t *testing.T) {
	t.Parallel()
	eachAttendanceDB(t, 0, func(t *testing.T, r *attendanceRig) {
		for _, in := range []string{"0", "0m", "0%", "101%", "abc", "-5m", ""} {
			if _, err := core.ParseMinimum(in); !errors.Is(err, core.ErrAttendanceMinimum) {
				t.Errorf("ParseMinimum(%q) = %v, want ErrAttendanceMinimum", in, err)
			}
		}
		for in, want := range map[string]core.AttendanceMinimum{
			"30m": {Kind: core.MinimumMinutes, Value: 30}, " 45 ": {Kind: core.MinimumMinutes, Value: 45},
			"2h": {Kind: core.MinimumMinutes, Value: 120}, "50%": {Kind: core.MinimumPercent, Value: 50},
		} {
			if got, err := core.ParseMinimum(in); err != nil || got != want {
				t.Errorf("ParseMinimum(%q) = %v, %v; want %v", in, got, err, want)
			}
		}
		tooLong := r.request("stage", "30m")
		tooLong.Minimum = core.AttendanceMinimum{Kind: core.MinimumMinutes, Value: 13 * 60}
		zero := r.request("stage", "30m")
		zero.Minimum.Value = 0
		noDrop := r.request("stage", "30m")
		noDrop.EventID = 4242
		for name, req := range map[string]core.AttendanceStart{"longer than 12 h": tooLong, "zero": zero} {
			if _, err := r.svc.Start(r.ctx, req, nil); !errors.Is(err, core.ErrAttendanceMinimum) {
				t.Errorf("Start(minimum %s) = %v, want ErrAttendanceMinimum", name, err)
			}
		}
		if _, err := r.svc.Start(r.ctx, noDrop, nil); !errors.Is(err, core.ErrNoSuchDrop) {
			t.Errorf("Start(unknown drop) = %v, want ErrNoSuchDrop", err)
		}
		r.start("stage", "30m")
		if _, err := r.svc.Start(r.ctx, r.request("stage", "10m"), nil); !errors.Is(err, core.ErrAttendanceChannelBusy) {
			t.Errorf("a second session in the channel = %v, want ErrAttendanceChannelBusy", err)
		}
		r.start("voice", "10m")
		if _, err := r.svc.Stop(r.ctx, r.mod, r.place, ""); !errors.Is(err, core.ErrAttendanceAmbiguous) {
			t.Errorf("Stop(no channel, two open) = %v, want ErrAttendanceAmbiguous", err)
		}
		if _, err := r.svc.Stop(r.ctx, r.mod, r.place, "nowhere"); !errors.Is(err, core.ErrNoAttendanceSession) {
			t.Errorf("Stop(a channel without a session) = %v, want ErrNoAttendanceSession", err)
		}
		other := core.Place{Platform: core.Discord, ExternalID: "guild-2"}
		if _, err := r.svc.Members(r.ctx, other, 1, 0, 10); !errors.Is(err, core.ErrNoAttendanceSession) {
			t.Errorf("Members(another server's session) = %v, want ErrNoAttendanceSession", err)
		}
	})
}

// TestAttendance_TwoChannels: two sessions in two channels count apart; a
// move from one to the other closes one stretch and opens the other.
func TestAttendance_TwoChannels(t *testing.T) {
	t.Parallel()
	eachAttendanceDB(t, 0, func(t *testing.T, r *attendanceRig) {
		a, b := r.start("stage", "10m"), r.start("voice", "10m")
		r.voice("alice", "stage", false)
		r.voice("bob", "voice", false)
		r.at(20)
		r.voice("alice", "voice", false)
		r.at(30)
		r.stop("stage")
		r.at(40)
		r.stop("voice")
		if diff := cmp.Diff(map[string]string{"alice": "20m0s!"}, r.minutesOf(a.ID)); diff != "" {
			t.Errorf("stage (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(map[string]string{"alice": "20m0s!", "bob": "40m0s!"}, r.minutesOf(b.ID)); diff != "" {
			t.Errorf("voice (-want +got):\n%s", diff)
		}
	})
}

// TestAttendance_Percent: a minimum of 50 % of an hour is 30 minutes.
func TestAttendance_Percent(t *testing.T) {
	t.Parallel()
	eachAttendanceDB(t, 0, func(t *testing.T, r *attendanceRig) {
		sess := r.start("stage", "50%")
		r.voice("alice", "stage", false)
		r.at(1)
		r.voice("bob", "stage", false)
		r.at(30)
		r.voice("alice", "", false)
		r.voice("bob", "", false)
		r.at(60)
		sum := r.stop("stage")
		if diff := cmp.Diff(map[string]string{"alice": "30m0s!", "bob": "29m0s"}, r.minutesOf(sess.ID)); diff != "" {
			t.Errorf("minutes (-want +got):\n%s", diff)
		}
		if sum.Session.Required != 30*time.Minute || sum.Eligible != 1 {
			t.Errorf("summary = %+v, want 30 min required, 1 eligible", sum)
		}
	})
}

// TestAttendance_Restart: the bot is down from minute 10 to 30; a new
// service resumes from the members present then. The downtime is credited
// to nobody, the summary says it, and a percentage counts the time
// counted.
func TestAttendance_Restart(t *testing.T) {
	t.Parallel()
	eachAttendanceDB(t, 0, func(t *testing.T, r *attendanceRig) {
		sess := r.start("stage", "50%")
		r.voice("alice", "stage", false)
		r.voice("bob", "stage", false)
		r.at(10)
		if err := r.svc.Heartbeat(r.ctx, r.clock.Now()); err != nil {
			t.Fatal(err)
		}
		r.at(12) // bob leaves while the bot is down: the event is lost

		r.svc = r.service(0)
		r.at(25)
		// The new process's heartbeat before its resume stamps nothing.
		if err := r.svc.Heartbeat(r.ctx, r.clock.Now()); err != nil {
			t.Fatal(err)
		}
		r.at(30)
		current := []core.VoiceState{{Member: member("alice"), ChannelID: "stage"}, {Member: member("carol"), ChannelID: "stage", Deafened: true}}
		if sums, err := r.svc.Resume(r.ctx, r.place, current); err != nil || len(sums) != 0 {
			t.Fatalf("Resume = %v, %v", sums, err)
		}
		r.at(60)
		sum := r.stop("stage")
		if diff := cmp.Diff(map[string]string{"alice": "40m0s!", "bob": "10m0s"}, r.minutesOf(sess.ID)); diff != "" {
			t.Errorf("minutes (-want +got):\n%s", diff)
		}
		if sum.Session.Downtime != 20*time.Minute || sum.Length != time.Hour || sum.Counted != 40*time.Minute || sum.Session.Required != 20*time.Minute {
			t.Errorf("summary = %+v, want 20 min of downtime, 40 counted, 20 required", sum)
		}
	})
}

// heartbeatInResume is the store of a restarted process whose heartbeat
// ticks while Resume runs: just before each session's resume.
type heartbeatInResume struct {
	core.AttendanceStore
	svc   func() *core.AttendanceService
	clock *coretest.Clock
}

func (h heartbeatInResume) ResumeAttendance(ctx context.Context, id int64, at time.Time, present []int64) (core.AttendanceSession, error) {
	if err := h.svc().Heartbeat(ctx, h.clock.Now()); err != nil {
		return core.AttendanceSession{}, err
	}
	return h.AttendanceStore.ResumeAttendance(ctx, id, at, present)
}

// TestAttendance_HeartbeatDuringResume: the new process's heartbeat
// ticks between the start of Resume and the resume of its session (as it
// did under -race in CI); the session was not resumed yet, so it stamps
// nothing and the downtime is still told: the heartbeat follows a session
// once it is resumed, not once its place is.
func TestAttendance_HeartbeatDuringResume(t *testing.T) {
	t.Parallel()
	eachAttendanceDB(t, 0, func(t *testing.T, r *attendanceRig) {
		sess := r.start("stage", "20m")
		r.voice("alice", "stage", false)
		r.voice("bob", "stage", false)
		r.at(10)
		if err := r.svc.Heartbeat(r.ctx, r.clock.Now()); err != nil {
			t.Fatal(err)
		}

		var svc *core.AttendanceService
		var err error
		svc, err = core.NewAttendanceService(core.AttendanceServiceDeps{
			Members: r.db, Drops: r.db, Audit: r.db, Clock: r.clock,
			Store: heartbeatInResume{AttendanceStore: r.db, svc: func() *core.AttendanceService { return svc }, clock: r.clock},
		})
		if err != nil {
			t.Fatal(err)
		}
		r.svc = svc
		r.at(25) // bob left while the bot was down
		if sums, err := r.svc.Resume(r.ctx, r.place, []core.VoiceState{{Member: member("alice"), ChannelID: "stage"}}); err != nil || len(sums) != 0 {
			t.Fatalf("Resume = %v, %v", sums, err)
		}
		r.at(45)
		sum := r.stop("stage")
		if diff := cmp.Diff(map[string]string{"alice": "30m0s!", "bob": "10m0s"}, r.minutesOf(sess.ID)); diff != "" {
			t.Errorf("minutes (-want +got):\n%s", diff)
		}
		if sum.Session.Downtime != 15*time.Minute {
			t.Errorf("downtime = %v, want 15m", sum.Session.Downtime)
		}
	})
}

// TestAttendance_MaxLength: a session stops at its maximum length, and a
// member's minutes are capped at it.
func TestAttendance_MaxLength(t *testing.T) {
	t.Parallel()
	eachAttendanceDB(t, time.Hour, func(t *testing.T, r *attendanceRig) {
		if _, err := r.svc.Start(r.ctx, r.request("stage", "90m"), nil); !errors.Is(err, core.ErrAttendanceMinimum) {
			t.Errorf("Start(90 min of at most an hour) = %v, want ErrAttendanceMinimum", err)
		}
		sess := r.start("stage", "45m", core.VoiceState{Member: member("alice"), ChannelID: "stage"})
		r.at(59)
		if sums, err := r.svc.StopExpired(r.ctx); err != nil || len(sums) != 0 {
			t.Fatalf("StopExpired before the hour = %v, %v; want none", sums, err)
		}
		r.at(125)
		sums, err := r.svc.StopExpired(r.ctx)
		if err != nil || len(sums) != 1 || sums[0].Session.StopReason != core.StopAtMaxLength ||
			!sums[0].Session.StoppedAt.Equal(attT0.Add(time.Hour)) || sums[0].Length != time.Hour {
			t.Fatalf("StopExpired = %+v, %v; want the session stopped at its hour", sums, err)
		}
		if diff := cmp.Diff(map[string]string{"alice": "1h0m0s!"}, r.minutesOf(sess.ID)); diff != "" {
			t.Errorf("minutes (-want +got):\n%s", diff)
		}
	})
}

// TestAttendance_ExpiredFollowedElsewhere: a session that another
// process follows (another shard's) reaches its maximum; this process's
// StopExpired leaves it while that one's heartbeats are recent, so that
// it stops with no downtime at that one's turn.
func TestAttendance_ExpiredFollowedElsewhere(t *testing.T) {
	t.Parallel()
	eachAttendanceDB(t, time.Hour, func(t *testing.T, r *attendanceRig) {
		sess := r.start("stage", "45m", core.VoiceState{Member: member("alice"), ChannelID: "stage"})
		other := r.service(time.Hour)
		r.at(60)
		if err := r.svc.Heartbeat(r.ctx, r.clock.Now()); err != nil {
			t.Fatal(err)
		}
		r.clock.Add(10 * time.Second)
		if sums, err := other.StopExpired(r.ctx); err != nil || len(sums) != 0 {
			t.Fatalf("StopExpired of a process that does not follow it = %+v, %v; want none", sums, err)
		}
		sums, err := r.svc.StopExpired(r.ctx)
		if err != nil || len(sums) != 1 || sums[0].Session.Downtime != 0 {
			t.Fatalf("StopExpired of its process = %+v, %v; want it stopped with no downtime", sums, err)
		}
		if diff := cmp.Diff(map[string]string{"alice": "1h0m0s!"}, r.minutesOf(sess.ID)); diff != "" {
			t.Errorf("minutes (-want +got):\n%s", diff)
		}
	})
}

// TestAttendance_ExpiredWhileDown: the bot goes down and comes back after
// the session's maximum without following the place again (it left the
// server): the session stops at its maximum, and the time after the last
// heartbeat is downtime, credited to nobody.
func TestAttendance_ExpiredWhileDown(t *testing.T) {
	t.Parallel()
	eachAttendanceDB(t, time.Hour, func(t *testing.T, r *attendanceRig) {
		sess := r.start("stage", "50%", core.VoiceState{Member: member("alice"), ChannelID: "stage"})
		r.at(10)
		if err := r.svc.Heartbeat(r.ctx, r.clock.Now()); err != nil {
			t.Fatal(err)
		}
		r.svc = r.service(time.Hour)
		r.at(120)
		sums, err := r.svc.StopExpired(r.ctx)
		if err != nil || len(sums) != 1 || sums[0].Session.Downtime != 50*time.Minute || sums[0].Counted != 10*time.Minute {
			t.Fatalf("StopExpired = %+v, %v; want one summary, 50 min of downtime, 10 counted", sums, err)
		}
		if diff := cmp.Diff(map[string]string{"alice": "10m0s!"}, r.minutesOf(sess.ID)); diff != "" {
			t.Errorf("minutes (-want +got):\n%s", diff)
		}
		if _, rows, err := r.svc.Export(r.ctx, r.mod, r.place, sess.ID); err != nil || len(rows) != 1 ||
			!cmp.Equal(rows[0].Record()[1:], []string{"10", "600", "true", "false"}) {
			t.Errorf("Export = %+v, %v; want alice's 10 minutes", rows, err)
		}
	})
}

// TestAttendance_ScheduledEvent: a session waits on its scheduled event,
// opens when it becomes active with those present, stops when it
// completes; another's event is cancelled while it waits.
func TestAttendance_ScheduledEvent(t *testing.T) {
	t.Parallel()
	eachAttendanceDB(t, 0, func(t *testing.T, r *attendanceRig) {
		req := r.request("stage", "20m")
		req.ScheduledEventID = "ev-1"
		sess, err := r.svc.Start(r.ctx, req, nil)
		if err != nil || sess.State != core.AttendanceWaiting {
			t.Fatalf("Start(event) = %+v, %v; want waiting", sess, err)
		}
		r.voice("alice", "stage", false) // before the event: nothing
		r.at(10)
		ch, err := r.svc.EventChanged(r.ctx, r.place, core.ScheduledEvent{ID: "ev-1", ChannelID: "stage", Status: core.EventActive},
			[]core.VoiceState{{Member: member("alice"), ChannelID: "stage"}})
		if err != nil || ch.Opened == nil || !ch.Opened.StartedAt.Equal(r.clock.Now()) {
			t.Fatalf("EventChanged(active) = %+v, %v; want opened now", ch, err)
		}
		r.voice("bob", "stage", false)
		r.at(25)
		r.voice("bob", "", false)
		r.at(40)
		ch, err = r.svc.EventChanged(r.ctx, r.place, core.ScheduledEvent{ID: "ev-1", Status: core.EventCompleted}, nil)
		if err != nil || ch.Stopped == nil || ch.Stopped.Session.StopReason != core.StopEventCompleted || ch.Stopped.Length != 30*time.Minute {
			t.Fatalf("EventChanged(completed) = %+v, %v; want stopped after 30 min", ch, err)
		}
		if diff := cmp.Diff(map[string]string{"alice": "30m0s!", "bob": "15m0s"}, r.minutesOf(sess.ID)); diff != "" {
			t.Errorf("minutes (-want +got):\n%s", diff)
		}

		req.ScheduledEventID = "ev-2"
		if _, err := r.svc.Start(r.ctx, req, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := r.svc.Start(r.ctx, req, nil); !errors.Is(err, core.ErrAttendanceEventBusy) {
			t.Errorf("a second session on the event = %v, want ErrAttendanceEventBusy", err)
		}
		ch, err = r.svc.EventChanged(r.ctx, r.place, core.ScheduledEvent{ID: "ev-2", Status: core.EventCanceled}, nil)
		if err != nil || ch.Stopped == nil || ch.Stopped.Session.StopReason != core.StopEventCanceled || ch.Stopped.Attended != 0 {
			t.Fatalf("EventChanged(canceled) = %+v, %v; want stopped, nobody attended", ch, err)
		}
		if st := r.standing("alice"); st.Kind != core.AttendanceCounted {
			t.Errorf("Attended(alice) = %+v, want counted in the first session", st)
		}
	})
}

// TestAttendance_Pending: before any session of the drop stops, a member
// is pending; a drop without sessions does not restrict.
func TestAttendance_Pending(t *testing.T) {
	t.Parallel()
	eachAttendanceDB(t, 0, func(t *testing.T, r *attendanceRig) {
		if st := r.standing("alice"); st.Kind != core.AttendanceNoSession {
			t.Errorf("Attended(no session) = %+v, want AttendanceNoSession", st)
		}
		sess := r.start("stage", "10m")
		r.voice("alice", "stage", false)
		if st := r.standing("alice"); st.Kind != core.AttendancePending {
			t.Errorf("Attended(open session) = %+v, want AttendancePending", st)
		}
		r.at(12)
		page, err := r.svc.Members(r.ctx, r.place, sess.ID, 0, 10)
		if err != nil || page.Total != 1 || page.Results[0].Seconds != 720 || !page.Results[0].Eligible || page.Results[0].Name != "Alice" {
			t.Errorf("Members(open) = %+v, %v; want Alice with 12 min so far", page, err)
		}
		if _, _, err := r.svc.Export(r.ctx, r.mod, r.place, sess.ID); !errors.Is(err, core.ErrAttendanceOpen) {
			t.Errorf("Export(open) = %v, want ErrAttendanceOpen", err)
		}
	})
}
