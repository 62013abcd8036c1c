package core_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/storage"
)

// countingDB counts the calls of the attendance service that a voice
// event of a member seen before should not make.
type countingDB struct {
	*storage.DB
	upserts, lives atomic.Int64
}

func (c *countingDB) UpsertUser(ctx context.Context, u core.User) (core.User, error) {
	c.upserts.Add(1)
	return c.DB.UpsertUser(ctx, u)
}

func (c *countingDB) LiveAttendanceSessions(ctx context.Context, placeID int64) ([]core.AttendanceSession, error) {
	c.lives.Add(1)
	return c.DB.LiveAttendanceSessions(ctx, placeID)
}

// TestAttendance_ObserveWritesTheStretchOnly: during a session opened by
// this process, a member's voice events upsert them once and never read
// the sessions outside the store's transaction.
func TestAttendance_ObserveWritesTheStretchOnly(t *testing.T) {
	t.Parallel()
	eachAttendanceDB(t, 0, func(t *testing.T, r *attendanceRig) {
		c := &countingDB{DB: r.db}
		svc, err := core.NewAttendanceService(core.AttendanceServiceDeps{Members: c, Drops: c, Store: c, Audit: c, Clock: r.clock})
		if err != nil {
			t.Fatal(err)
		}
		r.svc = svc
		r.start("stage", "10m")
		upserts, lives := c.upserts.Load(), c.lives.Load()
		for i := range 3 {
			r.at(i * 5)
			r.voice("alice", "stage", false)
			r.voice("bob", "stage", i == 1)
			r.voice("alice", "other", false)
		}
		if got := c.upserts.Load() - upserts; got != 2 {
			t.Errorf("9 voice events of 2 members upserted %d times, want 2", got)
		}
		if got := c.lives.Load() - lives; got != 0 {
			t.Errorf("9 voice events read the live sessions %d times, want 0", got)
		}
		r.at(20)
		if got, want := r.minutesOf(r.stop("").Session.ID), map[string]string{"alice": "0s", "bob": "15m0s!"}; !cmp.Equal(got, want) {
			t.Errorf("minutes = %v, want %v", got, want)
		}
	})
}

// TestAttendance_OtherReplica: a session started and stopped by another
// process (a replica on the same database) is counted by this one's
// voice events, however often that happens.
func TestAttendance_OtherReplica(t *testing.T) {
	t.Parallel()
	eachAttendanceDB(t, 0, func(t *testing.T, r *attendanceRig) {
		here := r.svc
		observe := func(id, channel string) {
			t.Helper()
			if err := here.Observe(r.ctx, r.place, core.VoiceState{Member: member(id), ChannelID: channel}); err != nil {
				t.Fatalf("Observe(%s in %q) = %v", id, channel, err)
			}
		}
		observe("alice", "stage") // no session yet: nothing
		r.svc = r.service(0)      // the other replica starts and stops
		first := r.start("stage", "10m")
		observe("alice", "stage")
		r.at(10)
		observe("bob", "stage")
		r.at(20)
		r.stop("")
		observe("carol", "stage") // after its stop: nothing
		r.at(30)
		second := r.start("stage", "10m")
		observe("dave", "stage")
		r.at(45)
		r.stop("")
		if got, want := r.minutesOf(first.ID), map[string]string{"alice": "20m0s!", "bob": "10m0s!"}; !cmp.Equal(got, want) {
			t.Errorf("first session: minutes = %v, want %v", got, want)
		}
		if got, want := r.minutesOf(second.ID), map[string]string{"dave": "15m0s!"}; !cmp.Equal(got, want) {
			t.Errorf("second session: minutes = %v, want %v", got, want)
		}
	})
}

// TestAttendance_ForgottenMemberRejoins: a member forgotten during a
// session (their stretches go with them) and back in voice is counted
// anew, not refused for the user id the service knew them by.
func TestAttendance_ForgottenMemberRejoins(t *testing.T) {
	t.Parallel()
	eachAttendanceDB(t, 0, func(t *testing.T, r *attendanceRig) {
		sess := r.start("stage", "10m")
		r.voice("alice", "stage", false)
		r.at(5)
		if _, err := r.db.ForgetUser(r.ctx, core.Discord, "alice"); err != nil {
			t.Fatal(err)
		}
		r.at(10)
		r.voice("alice", "stage", false)
		r.at(30)
		r.stop("")
		if got, want := r.minutesOf(sess.ID), map[string]string{"alice": "20m0s!"}; !cmp.Equal(got, want) {
			t.Errorf("minutes = %v, want %v", got, want)
		}
	})
}

// TestAttendance_ResumeForgottenMember: a member forgotten (/forget)
// while the bot could not see voice is still in the channel when it can
// again; Resume counts them anew (their stretches before went with them)
// instead of failing on the id it kept.
func TestAttendance_ResumeForgottenMember(t *testing.T) {
	t.Parallel()
	eachAttendanceDB(t, 0, func(t *testing.T, r *attendanceRig) {
		sess := r.start("stage", "10m")
		r.voice("alice", "stage", false)
		r.at(10)
		if err := r.svc.Heartbeat(r.ctx, r.clock.Now()); err != nil {
			t.Fatal(err)
		}
		if err := r.svc.Suspend(r.ctx, r.place, r.clock.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := r.db.ForgetUser(r.ctx, core.Discord, "alice"); err != nil {
			t.Fatal(err)
		}
		r.at(20)
		if _, err := r.svc.Resume(r.ctx, r.place, []core.VoiceState{{Member: member("alice"), ChannelID: "stage"}}); err != nil {
			t.Fatalf("Resume = %v", err)
		}
		r.at(35)
		sum := r.stop("")
		if got, want := r.minutesOf(sess.ID), map[string]string{"alice": "15m0s!"}; !cmp.Equal(got, want) {
			t.Errorf("minutes = %v, want %v", got, want)
		}
		if sum.Session.Downtime != 10*time.Minute {
			t.Errorf("downtime = %v, want 10m", sum.Session.Downtime)
		}
	})
}

// TestAttendance_SuspendLate: the gateway drops at minute 10 but the
// suspension is handled at minute 11, after a heartbeat stamped minute
// 11 (the adapter's queue was long); the view was lost at 10, so alice
// is credited up to 10 and the downtime runs from 10 to the resume at 25.
func TestAttendance_SuspendLate(t *testing.T) {
	t.Parallel()
	eachAttendanceDB(t, 0, func(t *testing.T, r *attendanceRig) {
		sess := r.start("stage", "10m")
		r.voice("alice", "stage", false)
		r.voice("bob", "stage", false)
		lost := attT0.Add(10 * time.Minute)
		r.at(11)
		if err := r.svc.Heartbeat(r.ctx, r.clock.Now()); err != nil {
			t.Fatal(err)
		}
		if err := r.svc.Suspend(r.ctx, r.place, lost); err != nil {
			t.Fatal(err)
		}
		r.at(20)
		if err := r.svc.Heartbeat(r.ctx, r.clock.Now()); err != nil { // suspended: stamps nothing
			t.Fatal(err)
		}
		r.at(25) // bob left meanwhile
		if _, err := r.svc.Resume(r.ctx, r.place, []core.VoiceState{{Member: member("alice"), ChannelID: "stage"}}); err != nil {
			t.Fatalf("Resume = %v", err)
		}
		r.at(45)
		sum := r.stop("")
		if got, want := r.minutesOf(sess.ID), map[string]string{"alice": "30m0s!", "bob": "10m0s!"}; !cmp.Equal(got, want) {
			t.Errorf("minutes = %v, want %v", got, want)
		}
		if sum.Session.Downtime != 15*time.Minute {
			t.Errorf("downtime = %v, want 15m", sum.Session.Downtime)
		}
	})
}
