package core

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestTallyAt covers what the stored stretches may hold beyond what the
// voice events make in order: overlaps (a late event), stretches begun
// before the start or still open, a stop past the maximum length, the
// minimum as a percentage of the time counted, a member who left.
func TestTallyAt(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 18, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	ptr := func(min int) *time.Time { v := at(min); return &v }
	start := at(0)
	sess := AttendanceSession{ID: 1, StartedAt: &start, MaxLength: time.Hour, Downtime: 10 * time.Minute,
		Minimum: AttendanceMinimum{Kind: MinimumPercent, Value: 50}}
	intervals := []AttendanceInterval{
		{UserID: 1, JoinedAt: at(0), LeftAt: ptr(20)},
		{UserID: 1, JoinedAt: at(10), LeftAt: ptr(30)},  // overlaps: 30 minutes in all
		{UserID: 2, JoinedAt: at(-30), LeftAt: ptr(24)}, // before the start: 24
		{UserID: 3, JoinedAt: at(40)},                   // open at a stop past the hour: 20
		{UserID: 4, JoinedAt: at(0)},                    // open: the whole hour, capped
		{UserID: 4, JoinedAt: at(5), LeftAt: ptr(6)},
		{UserID: 5, JoinedAt: at(0), LeftAt: ptr(50)},  // left the server
		{UserID: 6, JoinedAt: at(70), LeftAt: ptr(80)}, // after the maximum: nothing
	}
	// Stopped at 90 minutes: capped at the hour, 50 counted, 25 required.
	got := tallyAt(at(90))(sess, intervals, map[int64]bool{5: true})
	want := []AttendanceResult{
		{SessionID: 1, UserID: 1, Seconds: 1800, Eligible: true},
		{SessionID: 1, UserID: 2, Seconds: 1440},
		{SessionID: 1, UserID: 3, Seconds: 1200},
		{SessionID: 1, UserID: 4, Seconds: 3600, Eligible: true},
		{SessionID: 1, UserID: 5, Seconds: 3000, LeftServer: true},
		{SessionID: 1, UserID: 6, Seconds: 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tallyAt (-want +got):\n%s", diff)
	}
	if got := requiredFor(at(90))(sess); got != 25*time.Minute {
		t.Errorf("requiredFor = %v, want 25m (50 %% of 60 - 10 min)", got)
	}
	sess.Minimum = AttendanceMinimum{Kind: MinimumMinutes, Value: 24}
	if got := tallyAt(at(90))(sess, intervals[2:3], nil); !got[0].Eligible {
		t.Errorf("24 min of a 24-minute minimum = %+v, want eligible", got[0])
	}
}

// TestMerged: overlapping, touching, nested and empty spans count once.
func TestMerged(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 18, 0, 0, 0, time.UTC)
	sp := func(from, to int) span {
		return span{t0.Add(time.Duration(from) * time.Second), t0.Add(time.Duration(to) * time.Second)}
	}
	tests := []struct {
		in   []span
		want time.Duration
	}{
		{nil, 0},
		{[]span{sp(0, 10)}, 10 * time.Second},
		{[]span{sp(20, 30), sp(0, 10)}, 20 * time.Second},
		{[]span{sp(0, 10), sp(10, 20)}, 20 * time.Second},
		{[]span{sp(0, 30), sp(5, 10)}, 30 * time.Second},
		{[]span{sp(0, 10), sp(5, 15), sp(12, 13)}, 15 * time.Second},
		{[]span{sp(5, 5), sp(9, 3)}, 0},
	}
	for _, tt := range tests {
		if got := merged(tt.in); got != tt.want {
			t.Errorf("merged(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
