package core_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

// TestAttendance_OwedSummaries: the summary of a session that stopped by
// itself stays owed until told, rebuilt from the store as the stop gave
// it, a minute after the stop at the earliest; one process at a time
// claims it, a release hands it back, and a moderator's stop owes none.
func TestAttendance_OwedSummaries(t *testing.T) {
	eachAttendanceDB(t, time.Hour, func(t *testing.T, r *attendanceRig) {
		owed := func() []core.AttendanceSummary {
			t.Helper()
			sums, err := r.svc.OwedSummaries(r.ctx)
			if err != nil {
				t.Fatalf("OwedSummaries = %v", err)
			}
			return sums
		}
		claim := func(id int64) bool {
			t.Helper()
			ok, err := r.svc.ClaimSummary(r.ctx, id)
			if err != nil {
				t.Fatalf("ClaimSummary = %v", err)
			}
			return ok
		}
		r.start("voice", "10m")
		r.voice("ada", "voice", false)
		r.at(50)
		r.voice("bob", "voice", false)
		r.at(60)
		stopped, err := r.svc.StopExpired(r.ctx)
		if err != nil || len(stopped) != 1 {
			t.Fatalf("StopExpired = %v, %v; want one summary", stopped, err)
		}
		want := stopped[0]
		if got := owed(); len(got) != 0 {
			t.Errorf("owed at the stop = %d summaries, want none (a minute's grace)", len(got))
		}
		r.at(61)
		got := owed()
		if len(got) != 1 {
			t.Fatalf("owed a minute after the stop = %d summaries, want 1", len(got))
		}
		if diff := cmp.Diff(want, got[0]); diff != "" {
			t.Errorf("the summary owed differs from the stop's (-stop +owed):\n%s", diff)
		}

		id := want.Session.ID
		if !claim(id) || claim(id) {
			t.Error("claims = not one taken, then one refused")
		}
		if n := len(owed()); n != 0 {
			t.Errorf("owed while claimed = %d, want none", n)
		}
		if err := r.svc.ReleaseSummary(r.ctx, id); err != nil {
			t.Fatal(err)
		}
		if n := len(owed()); n != 1 {
			t.Errorf("owed once released = %d, want 1", n)
		}
		r.at(61 + int(core.AttendanceSummaryLease/time.Minute))
		if !claim(id) {
			t.Error("a claim after a release was refused")
		}
		if err := r.svc.SummaryTold(r.ctx, id); err != nil {
			t.Fatal(err)
		}
		if claim(id) {
			t.Error("a summary told was claimed")
		}

		r.start("stage", "10m")
		r.stop("stage")
		r.at(200)
		if n := len(owed()); n != 0 {
			t.Errorf("owed after a moderator's stop and a summary told = %d, want none", n)
		}
	})
}
