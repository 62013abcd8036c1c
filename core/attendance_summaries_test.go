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
// claims it, a release hands it back, a claim taken over after its lease
// is left to the new holder, and a moderator's stop owes none.
func TestAttendance_OwedSummaries(t *testing.T) {
	eachAttendanceDB(t, time.Hour, func(t *testing.T, r *attendanceRig) {
		owed := func() []core.AttendanceSummary {
			t.Helper()
			sums, err := r.svc.OwedSummaries(r.ctx, core.Discord)
			if err != nil {
				t.Fatalf("OwedSummaries = %v", err)
			}
			return sums
		}
		claimed := func(id int64) (core.SummaryClaim, bool) {
			t.Helper()
			c, ok, err := r.svc.ClaimSummary(r.ctx, id)
			if err != nil {
				t.Fatalf("ClaimSummary = %v", err)
			}
			return c, ok
		}
		claim := func(id int64) bool {
			t.Helper()
			_, ok := claimed(id)
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

		if sums, err := r.svc.OwedSummaries(r.ctx, core.Console); err != nil || len(sums) != 0 {
			t.Errorf("owed on the console = %d, %v; want none (the place is on Discord)", len(sums), err)
		}

		id := want.Session.ID
		first, ok := claimed(id)
		if !ok || claim(id) {
			t.Error("claims = not one taken, then one refused")
		}
		if n := len(owed()); n != 0 {
			t.Errorf("owed while claimed = %d, want none", n)
		}
		if err := r.svc.ReleaseSummary(r.ctx, first); err != nil {
			t.Fatal(err)
		}
		if n := len(owed()); n != 1 {
			t.Errorf("owed once released = %d, want 1", n)
		}
		second, ok := claimed(id)
		if !ok {
			t.Fatal("a claim right after a release was refused")
		}
		if second.Attempt != 1 {
			t.Errorf("the try after a release = %d, want 1 (a release uncounts its try)", second.Attempt)
		}

		// The second claim's holder outlives its lease: a third takes
		// over, and the second's release, or failure, leaves it held.
		r.at(61 + int(core.AttendanceSummaryLease/time.Minute))
		third, ok := claimed(id)
		if !ok {
			t.Fatal("a claim after the lease ran out was refused")
		}
		if err := r.svc.ReleaseSummary(r.ctx, second); err != nil {
			t.Fatal(err)
		}
		if _, err := r.svc.SummaryFailed(r.ctx, second); err != nil {
			t.Fatal(err)
		}
		if claim(id) {
			t.Error("a claim was taken while the claim that took over holds it (the one it took over from released it)")
		}
		if n := len(owed()); n != 0 {
			t.Errorf("owed while the claim that took over holds it = %d, want none", n)
		}
		if err := r.svc.ReleaseSummary(r.ctx, third); err != nil {
			t.Fatal(err)
		}
		if !claim(id) {
			t.Error("a claim after the holder's release was refused")
		}
		if err := r.svc.SummaryTold(r.ctx, id); err != nil {
			t.Fatal(err)
		}
		if claim(id) {
			t.Error("a summary told was claimed")
		}

		// A moderator's stop: the command claims its summary at once and
		// its reply's post marks it told; one whose post was not
		// published is owed once the claim's lease ends.
		r.start("stage", "10m")
		stage := r.stop("stage").Session.ID
		if _, ok := claimed(stage); !ok {
			t.Fatal("the summary of a moderator's stop was not claimed")
		}
		r.at(200)
		if got := owed(); len(got) != 1 || got[0].Session.ID != stage {
			t.Errorf("owed after a moderator's stop whose post was not published = %v, want session %d", got, stage)
		}
		if err := r.svc.SummaryTold(r.ctx, stage); err != nil {
			t.Fatal(err)
		}
		if n := len(owed()); n != 0 {
			t.Errorf("owed after a moderator's stop and its summary told = %d, want none", n)
		}
	})
}

// TestAttendance_SummaryFailed: a summary that cannot be told waits
// before each next try, the try's number squared in minutes, is not
// owed meanwhile, and is given up after core.AttendanceSummaryAttempts
// tries.
func TestAttendance_SummaryFailed(t *testing.T) {
	eachAttendanceDB(t, time.Hour, func(t *testing.T, r *attendanceRig) {
		owed := func() []int64 {
			t.Helper()
			sums, err := r.svc.OwedSummaries(r.ctx, core.Discord)
			if err != nil {
				t.Fatalf("OwedSummaries = %v", err)
			}
			ids := []int64{}
			for _, s := range sums {
				ids = append(ids, s.Session.ID)
			}
			return ids
		}
		r.start("voice", "10m")
		r.at(60)
		stopped, err := r.svc.StopExpired(r.ctx)
		if err != nil || len(stopped) != 1 {
			t.Fatalf("StopExpired = %v, %v; want one summary", stopped, err)
		}
		id := stopped[0].Session.ID
		r.at(61)
		minute := 61
		for try := 1; try <= core.AttendanceSummaryAttempts; try++ {
			if got := owed(); !cmp.Equal(got, []int64{id}) {
				t.Fatalf("owed before try %d = %v, want [%d]", try, got, id)
			}
			c, ok, err := r.svc.ClaimSummary(r.ctx, id)
			if err != nil || !ok || c.Attempt != try {
				t.Fatalf("ClaimSummary before try %d = %+v, %v, %v", try, c, ok, err)
			}
			gaveUp, err := r.svc.SummaryFailed(r.ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			if gaveUp != (try == core.AttendanceSummaryAttempts) {
				t.Errorf("try %d: given up = %v", try, gaveUp)
			}
			if try == core.AttendanceSummaryAttempts {
				break
			}
			r.at(minute + try*try - 1)
			if got := owed(); len(got) != 0 {
				t.Errorf("owed a minute before the back-off of try %d ends = %v, want none", try, got)
			}
			if _, ok, _ := r.svc.ClaimSummary(r.ctx, id); ok {
				t.Errorf("a claim within the back-off of try %d was taken", try)
			}
			minute += try * try
			r.at(minute)
		}
		r.at(minute + 24*60)
		if got := owed(); len(got) != 0 {
			t.Errorf("owed after %d tries = %v, want none (given up)", core.AttendanceSummaryAttempts, got)
		}
		if _, ok, _ := r.svc.ClaimSummary(r.ctx, id); ok {
			t.Error("a summary given up was claimed")
		}
	})
}
