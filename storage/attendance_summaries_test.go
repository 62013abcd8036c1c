package storage

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

// closeSession closes the session at minute at for reason, with results.
func closeSession(t *testing.T, db *DB, id int64, at int, reason core.StopReason, results ...core.AttendanceResult) {
	t.Helper()
	_, _, err := db.CloseAttendanceSession(t.Context(), id, minute(at), reason,
		func(core.AttendanceSession) time.Duration { return 30 * time.Minute },
		func(core.AttendanceSession, []core.AttendanceInterval, map[int64]bool) []core.AttendanceResult {
			return results
		})
	if err != nil {
		t.Fatalf("CloseAttendanceSession(%d) = %v", id, err)
	}
}

// maxTries is the bound on the tries of a summary the tests pass.
const maxTries = 3

// owed lists the ids of the summaries owed on Discord.
func owed(t *testing.T, db *DB, from, to, now int) []int64 {
	t.Helper()
	return owedOf(t, db, from, to, now, core.Discord)
}

// owedOf lists the ids of the summaries owed on platform, stopped between
// minutes from and to, at minute now.
func owedOf(t *testing.T, db *DB, from, to, now int, platform core.Platform) []int64 {
	t.Helper()
	sessions, err := db.OwedAttendanceSummaries(t.Context(), minute(from), minute(to), minute(now), []core.Platform{platform}, maxTries, 10)
	if err != nil {
		t.Fatalf("OwedAttendanceSummaries = %v", err)
	}
	ids := []int64{}
	for _, s := range sessions {
		ids = append(ids, s.ID)
	}
	return ids
}

// owedOn lists the ids of the summaries owed on platform, at any time.
func owedOn(t *testing.T, db *DB, platform core.Platform) []int64 {
	t.Helper()
	return owedOf(t, db, 0, 1000, 1000, platform)
}

// tries returns the summary_attempts of the session.
func tries(t *testing.T, db *DB, id int64) int {
	t.Helper()
	var n int
	if err := db.sql.QueryRowContext(t.Context(), "SELECT summary_attempts FROM attendance_sessions WHERE id = $1", id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestDB_AttendanceSummaries(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		ctx := t.Context()
		tn := mustTenant(t, db, "attendance-summaries")
		d := mustAddDrop(t, db, tn.ID, 7101, importedLinks(7101, 1))
		us := mustUsers(t, db, "summaries", 3)
		byLength := mustSession(t, db, newSession(d, "voice-1"))
		closeSession(t, db, byLength.ID, 60, core.StopAtMaxLength,
			core.AttendanceResult{UserID: us[0].ID, Seconds: 3600, Eligible: true},
			core.AttendanceResult{UserID: us[1].ID, Seconds: 600},
			core.AttendanceResult{UserID: us[2].ID, Seconds: 0})
		byModerator := mustSession(t, db, newSession(d, "voice-2"))
		closeSession(t, db, byModerator.ID, 20, core.StopByModerator)
		mustSession(t, db, newSession(d, "voice-3")) // open
		byEvent := mustSession(t, db, newSession(d, "voice-4"))
		closeSession(t, db, byEvent.ID, 10, core.StopEventCompleted)

		// Every stop owes its summary, a moderator's too (its reply's
		// post may not have been published); an open session owes none
		// yet.
		if got, want := owed(t, db, 0, 100, 100), []int64{byLength.ID, byModerator.ID, byEvent.ID}; !cmp.Equal(got, want) {
			t.Errorf("owed = %v, want %v (every closed session)", got, want)
		}
		if got, want := owed(t, db, 0, 30, 100), []int64{byModerator.ID, byEvent.ID}; !cmp.Equal(got, want) {
			t.Errorf("owed of the stops up to 30 min = %v, want %v", got, want)
		}
		// The moderator's reply posted it.
		if err := db.MarkAttendanceSummary(ctx, byModerator.ID, minute(21)); err != nil {
			t.Fatal(err)
		}
		if attended, eligible, err := db.AttendanceCounts(ctx, byLength.ID); err != nil || attended != 2 || eligible != 1 {
			t.Errorf("AttendanceCounts = %d, %d, %v; want 2 attended, 1 eligible", attended, eligible, err)
		}
		if attended, eligible, err := db.AttendanceCounts(ctx, byEvent.ID); err != nil || attended != 0 || eligible != 0 {
			t.Errorf("AttendanceCounts of a session without results = %d, %d, %v; want 0, 0", attended, eligible, err)
		}

		claim := func(id int64, now, until int, token string) bool {
			t.Helper()
			_, ok, err := db.ClaimAttendanceSummary(ctx, id, minute(now), minute(until), token, maxTries)
			if err != nil {
				t.Fatalf("ClaimAttendanceSummary = %v", err)
			}
			return ok
		}
		if got := owedOn(t, db, core.Console); len(got) != 0 {
			t.Errorf("owed on the console = %v, want none (the places are on Discord)", got)
		}
		if !claim(byLength.ID, 100, 110, "a") {
			t.Fatal("the first claim was refused")
		}
		if claim(byLength.ID, 105, 115, "b") {
			t.Error("a claim within the lease was taken")
		}
		if got, want := owed(t, db, 0, 100, 105), []int64{byEvent.ID}; !cmp.Equal(got, want) {
			t.Errorf("owed within the lease = %v, want %v", got, want)
		}
		if got, want := owed(t, db, 0, 100, 110), []int64{byEvent.ID, byLength.ID}; !cmp.Equal(got, want) {
			t.Errorf("owed once the lease ran out = %v, want %v (the least tried first)", got, want)
		}
		// A claim that ran out and was taken over: its holder's release,
		// or its back-off, leaves the new hold.
		if !claim(byLength.ID, 110, 120, "b") {
			t.Error("a claim after the lease ran out was refused")
		}
		if err := db.ReleaseAttendanceSummary(ctx, byLength.ID, "a"); err != nil {
			t.Fatal(err)
		}
		if err := db.DeferAttendanceSummary(ctx, byLength.ID, "a", minute(100)); err != nil {
			t.Fatal(err)
		}
		if claim(byLength.ID, 111, 121, "c") {
			t.Error("a claim was taken after a released or deferred claim that was taken over")
		}
		if err := db.ReleaseAttendanceSummary(ctx, byLength.ID, "b"); err != nil {
			t.Fatal(err)
		}
		if got, n := tries(t, db, byLength.ID), 1; got != n {
			t.Errorf("tries after a release = %d, want %d (the released one uncounted)", got, n)
		}
		// A failed try waits, then the summary is given up after maxTries.
		if !claim(byLength.ID, 111, 121, "c") {
			t.Error("a claim after a release was refused")
		}
		if err := db.DeferAttendanceSummary(ctx, byLength.ID, "c", minute(130)); err != nil {
			t.Fatal(err)
		}
		if claim(byLength.ID, 112, 122, "d") {
			t.Error("a claim within a back-off was taken")
		}
		if got, want := owed(t, db, 0, 100, 129), []int64{byEvent.ID}; !cmp.Equal(got, want) {
			t.Errorf("owed within a back-off = %v, want %v", got, want)
		}
		if attempt, ok, err := db.ClaimAttendanceSummary(ctx, byLength.ID, minute(130), minute(140), "d", maxTries); err != nil || !ok || attempt != maxTries {
			t.Errorf("a claim after the back-off = %d, %v, %v; want try %d", attempt, ok, err, maxTries)
		}
		if err := db.DeferAttendanceSummary(ctx, byLength.ID, "d", minute(131)); err != nil {
			t.Fatal(err)
		}
		if claim(byLength.ID, 200, 210, "e") {
			t.Error("a summary tried maxTries times was claimed")
		}
		if got, want := owed(t, db, 0, 300, 300), []int64{byEvent.ID}; !cmp.Equal(got, want) {
			t.Errorf("owed after a summary was given up = %v, want %v", got, want)
		}
		if err := db.MarkAttendanceSummary(ctx, byLength.ID, minute(112)); err != nil {
			t.Fatal(err)
		}
		if err := db.MarkAttendanceSummary(ctx, byLength.ID, minute(113)); err != nil {
			t.Errorf("marking twice = %v", err)
		}
		if err := db.ReleaseAttendanceSummary(ctx, byLength.ID, "d"); err != nil {
			t.Errorf("releasing a summary told = %v", err)
		}
		if got, want := owed(t, db, 0, 300, 300), []int64{byEvent.ID}; !cmp.Equal(got, want) {
			t.Errorf("owed after the summary was told = %v, want %v", got, want)
		}
		var posted time.Time
		if err := db.sql.QueryRowContext(ctx, "SELECT summary_posted_at FROM attendance_sessions WHERE id = $1", byLength.ID).Scan(&posted); err != nil {
			t.Fatal(err)
		}
		if !posted.Equal(minute(112)) {
			t.Errorf("summary_posted_at = %v, want the first mark, %v", posted, minute(112))
		}

		// Replicas racing for a summary: one takes it.
		var took atomic.Int32
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				_, ok, err := db.ClaimAttendanceSummary(ctx, byEvent.ID, minute(300), minute(310), "race", maxTries)
				if err != nil {
					t.Error(err)
				}
				if ok {
					took.Add(1)
				}
			})
		}
		wg.Wait()
		if n := took.Load(); n != 1 {
			t.Errorf("%d racing claims took the summary, want 1", n)
		}
	})
}
