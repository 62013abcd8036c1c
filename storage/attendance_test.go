package storage

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/poapbot/poapbot/core"
)

// newSession returns an open session of the drop in channel, started at
// t0 with a minimum of 30 minutes and a maximum of 12 hours.
func newSession(d core.Drop, channel string) core.AttendanceSession {
	at := t0
	return core.AttendanceSession{
		PlaceID: d.PlaceID, DropID: d.ID, EventID: d.EventID, ChannelID: channel, ChannelName: "Stage",
		SummaryChannelID: "general", Minimum: core.AttendanceMinimum{Kind: core.MinimumMinutes, Value: 30},
		MaxLength: 12 * time.Hour, State: core.AttendanceOpen, StartedAt: &at, LastSeenAt: &at, CreatedAt: t0,
	}
}

// mustSession stores s or fails the test.
func mustSession(t *testing.T, db *DB, s core.AttendanceSession) core.AttendanceSession {
	t.Helper()
	got, err := db.CreateAttendanceSession(t.Context(), s)
	if err != nil {
		t.Fatalf("CreateAttendanceSession(%s) = %v", s.ChannelID, err)
	}
	return got
}

// mustVoice records a voice state or fails the test.
func mustVoice(t *testing.T, db *DB, tenantID, userID int64, channel string, counting bool, at time.Time) {
	t.Helper()
	if err := db.RecordVoice(t.Context(), tenantID, userID, channel, counting, at); err != nil {
		t.Fatalf("RecordVoice(user %d, %q, %v) = %v", userID, channel, counting, err)
	}
}

// stretch is an interval as tests write it: minutes after t0, -1 for open.
type stretch struct {
	User     int64
	From, To int
}

// stretches reads the session's intervals as stretches.
func stretches(t *testing.T, db *DB, sessionID int64) []stretch {
	t.Helper()
	ivs, err := db.AttendanceIntervals(t.Context(), sessionID)
	if err != nil {
		t.Fatalf("AttendanceIntervals = %v", err)
	}
	out := []stretch{}
	for _, iv := range ivs {
		s := stretch{User: iv.UserID, From: int(iv.JoinedAt.Sub(t0) / time.Minute), To: -1}
		if iv.LeftAt != nil {
			s.To = int(iv.LeftAt.Sub(t0) / time.Minute)
		}
		out = append(out, s)
	}
	return out
}

// byStretch orders stretches for comparing: user ids depend on the order
// users were created in.
var byStretch = cmpopts.SortSlices(func(x, y stretch) bool {
	return x.User < y.User || x.User == y.User && x.From < y.From
})

func minute(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }

func TestDB_AttendanceSessions(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "attendance-sessions")
		d := mustAddDrop(t, db, tn.ID, 7001, importedLinks(7001, 1))
		first := mustSession(t, db, newSession(d, "voice-1"))
		if first.ID == 0 || first.State != core.AttendanceOpen || !first.StartedAt.Equal(t0) || first.MaxLength != 12*time.Hour {
			t.Errorf("CreateAttendanceSession = %+v, want an open session with an id", first)
		}
		if _, err := db.CreateAttendanceSession(t.Context(), newSession(d, "voice-1")); !errors.Is(err, core.ErrConflict) {
			t.Errorf("a second open session in the channel = %v, want ErrConflict", err)
		}
		other := mustSession(t, db, newSession(d, "voice-2"))

		waiting := newSession(d, "voice-1")
		waiting.State, waiting.StartedAt, waiting.LastSeenAt, waiting.ScheduledEventID = core.AttendanceWaiting, nil, nil, "ev-1"
		w := mustSession(t, db, waiting)
		if _, err := db.CreateAttendanceSession(t.Context(), waiting); !errors.Is(err, core.ErrConflict) {
			t.Errorf("a second session on the scheduled event = %v, want ErrConflict", err)
		}
		if _, err := db.OpenWaitingSession(t.Context(), w.ID, minute(5)); !errors.Is(err, core.ErrConflict) {
			t.Errorf("OpenWaitingSession while voice-1 is open = %v, want ErrConflict", err)
		}
		live, err := db.LiveAttendanceSessions(t.Context(), tn.ID)
		if err != nil || len(live) != 3 {
			t.Fatalf("LiveAttendanceSessions = %d, %v; want 3", len(live), err)
		}

		closed, results, err := db.CloseAttendanceSession(t.Context(), first.ID, minute(60), core.StopByModerator,
			func(core.AttendanceSession) time.Duration { return 30 * time.Minute },
			func(core.AttendanceSession, []core.AttendanceInterval, map[int64]bool) []core.AttendanceResult {
				return nil
			})
		if err != nil || closed.State != core.AttendanceClosed || !closed.StoppedAt.Equal(minute(60)) || closed.Required != 30*time.Minute ||
			closed.StopReason != core.StopByModerator || len(results) != 0 {
			t.Fatalf("CloseAttendanceSession = %+v, %v, %v; want closed at 60 min, 30 min required", closed, results, err)
		}
		if _, _, err := db.CloseAttendanceSession(t.Context(), first.ID, minute(61), core.StopByModerator, nil, nil); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("closing it again = %v, want ErrNotFound", err)
		}
		opened, err := db.OpenWaitingSession(t.Context(), w.ID, minute(70))
		if err != nil || opened.State != core.AttendanceOpen || !opened.StartedAt.Equal(minute(70)) || !opened.LastSeenAt.Equal(minute(70)) {
			t.Fatalf("OpenWaitingSession = %+v, %v; want open at 70 min", opened, err)
		}
		if _, err := db.OpenWaitingSession(t.Context(), w.ID, minute(71)); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("opening it again = %v, want ErrNotFound", err)
		}
		recent, err := db.AttendanceSessions(t.Context(), tn.ID, 2)
		if err != nil || len(recent) != 2 || recent[0].ID != w.ID || recent[1].ID != other.ID {
			t.Errorf("AttendanceSessions(2) = %+v, %v; want the waiting one then voice-2", recent, err)
		}
		if got, err := db.AttendanceSession(t.Context(), first.ID); err != nil || got.State != core.AttendanceClosed {
			t.Errorf("AttendanceSession = %+v, %v", got, err)
		}
		if _, err := db.AttendanceSession(t.Context(), 999999); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("AttendanceSession(unknown) = %v, want ErrNotFound", err)
		}
	})
}

func TestDB_AttendanceVoice(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "attendance-voice")
		d := mustAddDrop(t, db, tn.ID, 7002, importedLinks(7002, 1))
		s1, s2 := mustSession(t, db, newSession(d, "voice-1")), mustSession(t, db, newSession(d, "voice-2"))
		users := mustUsers(t, db, "voice", 3)
		a, b, c := users[0].ID, users[1].ID, users[2].ID

		mustVoice(t, db, tn.ID, a, "voice-1", true, minute(1))
		mustVoice(t, db, tn.ID, a, "voice-1", true, minute(2)) // a mute: still in, no new stretch
		mustVoice(t, db, tn.ID, a, "voice-2", true, minute(10))
		mustVoice(t, db, tn.ID, a, "voice-2", false, minute(15)) // deafened
		mustVoice(t, db, tn.ID, b, "voice-1", true, minute(3))
		mustVoice(t, db, tn.ID, b, "afk", true, minute(4)) // a channel without a session
		mustVoice(t, db, tn.ID, c, "voice-1", true, minute(5))
		mustVoice(t, db, tn.ID, b, "", false, minute(2)) // late: closes nothing before its start
		if diff := cmp.Diff([]stretch{{a, 1, 10}, {b, 3, 4}, {c, 5, -1}}, stretches(t, db, s1.ID), byStretch); diff != "" {
			t.Errorf("voice-1 stretches (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]stretch{{a, 10, 15}}, stretches(t, db, s2.ID), byStretch); diff != "" {
			t.Errorf("voice-2 stretches (-want +got):\n%s", diff)
		}

		// c leaves the server: the stretch closes, and c is departed in
		// voice-1 (attended) but not in voice-2.
		if err := db.RecordDeparture(t.Context(), tn.ID, c, minute(20)); err != nil {
			t.Fatal(err)
		}
		var gotDeparted map[int64]bool
		tally := func(s core.AttendanceSession, ivs []core.AttendanceInterval, departed map[int64]bool) []core.AttendanceResult {
			gotDeparted = departed
			return []core.AttendanceResult{
				{UserID: a, Seconds: 540, Eligible: false},
				{UserID: b, Seconds: 60, Eligible: false},
				{UserID: c, Seconds: 900, LeftServer: true},
			}
		}
		_, results, err := db.CloseAttendanceSession(t.Context(), s1.ID, minute(30), core.StopByModerator,
			func(core.AttendanceSession) time.Duration { return 5 * time.Minute }, tally)
		if err != nil || len(results) != 3 {
			t.Fatalf("CloseAttendanceSession = %v, %v", results, err)
		}
		if !cmp.Equal(gotDeparted, map[int64]bool{c: true}) {
			t.Errorf("tally's departed = %v, want c alone", gotDeparted)
		}
		page, total, err := db.AttendanceResults(t.Context(), s1.ID, 1, 1)
		if err != nil || total != 3 || len(page) != 1 || page[0].UserID != a || page[0].Name != "" && page[0].Name != users[0].Name {
			t.Errorf("AttendanceResults(offset 1, limit 1) = %+v, %d, %v; want a, of 3", page, total, err)
		}
		rec, err := db.DropAttendance(t.Context(), d.ID, c)
		if err != nil || len(rec) != 2 || rec[0].Result == nil || !rec[0].Result.LeftServer || rec[1].Result != nil {
			t.Errorf("DropAttendance(c) = %+v, %v; want c's result in voice-1, none in voice-2", rec, err)
		}
		rows, err := db.ExportAttendance(t.Context(), s1.ID)
		want := []core.AttendanceExportRow{
			{Member: db.memberID(c), Seconds: 900, LeftServer: true},
			{Member: db.memberID(a), Seconds: 540}, {Member: db.memberID(b), Seconds: 60},
		}
		if diff := cmp.Diff(want, rows); err != nil || diff != "" {
			t.Errorf("ExportAttendance = %v (-want +got):\n%s", err, diff)
		}
		if _, err := withKey(db, Key{}).ExportAttendance(t.Context(), s1.ID); err != nil {
			t.Errorf("ExportAttendance with another key = %v", err)
		}
	})
}

func TestDB_AttendanceResume(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn, other := mustTenant(t, db, "attendance-resume"), mustTenant(t, db, "attendance-other")
		d := mustAddDrop(t, db, tn.ID, 7003, importedLinks(7003, 1))
		od := mustAddDrop(t, db, other.ID, 7003, importedLinks(7004, 1))
		s := mustSession(t, db, newSession(d, "voice-1"))
		os := mustSession(t, db, newSession(od, "voice-1"))
		users := mustUsers(t, db, "resume", 3)
		a, b, c := users[0].ID, users[1].ID, users[2].ID
		mustVoice(t, db, tn.ID, a, "voice-1", true, minute(1))
		mustVoice(t, db, tn.ID, b, "voice-1", true, minute(2))
		if err := db.TouchAttendance(t.Context(), []int64{s.ID, os.ID + 1000}, minute(10)); err != nil {
			t.Fatal(err)
		}
		mustVoice(t, db, tn.ID, c, "voice-1", true, minute(12)) // after the last heartbeat, then the crash
		if err := db.TouchAttendance(t.Context(), []int64{s.ID}, minute(5)); err != nil {
			t.Fatal(err) // never moves back
		}
		// The bot is down from 10 to 25; a and c are there when it is back.
		got, err := db.ResumeAttendance(t.Context(), s.ID, minute(25), []int64{a, c})
		if err != nil || got.Downtime != 15*time.Minute || !got.LastSeenAt.Equal(minute(25)) {
			t.Fatalf("ResumeAttendance = %+v, %v; want 15 min of downtime, seen at 25", got, err)
		}
		if diff := cmp.Diff([]stretch{{a, 1, 10}, {a, 25, -1}, {b, 2, 10}, {c, 12, 12}, {c, 25, -1}}, stretches(t, db, s.ID), byStretch); diff != "" {
			t.Errorf("stretches after the resume (-want +got):\n%s", diff)
		}
		if o, err := db.AttendanceSession(t.Context(), os.ID); err != nil || !o.LastSeenAt.Equal(t0) {
			t.Errorf("the other tenant's session = %+v, %v; want untouched", o, err)
		}
		if _, _, err := db.CloseAttendanceSession(t.Context(), s.ID, minute(30), core.StopByModerator,
			func(core.AttendanceSession) time.Duration { return 0 },
			func(core.AttendanceSession, []core.AttendanceInterval, map[int64]bool) []core.AttendanceResult {
				return nil
			}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ResumeAttendance(t.Context(), s.ID, minute(40), nil); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("ResumeAttendance(closed) = %v, want ErrNotFound", err)
		}
		if diff := cmp.Diff([]stretch{{a, 1, 10}, {a, 25, 30}, {b, 2, 10}, {c, 12, 12}, {c, 25, 30}}, stretches(t, db, s.ID), byStretch); diff != "" {
			t.Errorf("stretches after the stop (-want +got):\n%s", diff)
		}
	})
}
