package storage

import (
	"context"
	"time"

	"github.com/poapbot/poapbot/core"
)

// DB keeps which attendance summaries are owed.
var _ core.AttendanceSummaryStore = (*DB)(nil)

// OwedAttendanceSummaries lists the closed sessions whose summary is owed
// (see core.AttendanceSummaryStore), oldest first, at most limit.
func (db *DB) OwedAttendanceSummaries(ctx context.Context, from, to, now time.Time, limit int) ([]core.AttendanceSession, error) {
	q := db.gorm.WithContext(ctx).
		Where("state = ? AND summary_posted_at IS NULL AND stop_reason <> ? AND stopped_at >= ? AND stopped_at <= ?",
			string(core.AttendanceClosed), string(core.StopByModerator), dbTime(from), dbTime(to)).
		Where("summary_lease_until IS NULL OR summary_lease_until <= ?", dbTime(now)).
		Order("id").Limit(limit)
	return db.sessions(q, "owed attendance summaries")
}

// ClaimAttendanceSummary takes on the closed session's owed summary until
// until, in one conditional statement: it returns true for the one
// caller that took it, false when the summary is out or another holds it
// past now.
func (db *DB) ClaimAttendanceSummary(ctx context.Context, id int64, now, until time.Time) (bool, error) {
	res := db.gorm.WithContext(ctx).Exec(`UPDATE attendance_sessions SET summary_lease_until = ?
		WHERE id = ? AND state = ? AND summary_posted_at IS NULL AND (summary_lease_until IS NULL OR summary_lease_until <= ?)`,
		dbTime(until), id, string(core.AttendanceClosed), dbTime(now))
	if res.Error != nil {
		return false, translate("claim attendance summary", res.Error)
	}
	return res.RowsAffected == 1, nil
}

// MarkAttendanceSummary records that the session's summary is out, at at;
// a summary marked already keeps its first time.
func (db *DB) MarkAttendanceSummary(ctx context.Context, id int64, at time.Time) error {
	err := db.gorm.WithContext(ctx).Exec(`UPDATE attendance_sessions SET summary_posted_at = ?, summary_lease_until = NULL
		WHERE id = ? AND summary_posted_at IS NULL`, dbTime(at), id).Error
	return translate("mark attendance summary", err)
}

// ReleaseAttendanceSummary gives up the hold on a summary still owed, so
// that the next try need not wait for its lease to run out.
func (db *DB) ReleaseAttendanceSummary(ctx context.Context, id int64) error {
	err := db.gorm.WithContext(ctx).Exec(`UPDATE attendance_sessions SET summary_lease_until = NULL
		WHERE id = ? AND summary_posted_at IS NULL`, id).Error
	return translate("release attendance summary", err)
}

// AttendanceCounts returns how many members of the closed session were
// credited with any time, and how many are eligible.
func (db *DB) AttendanceCounts(ctx context.Context, id int64) (attended, eligible int, err error) {
	var c struct{ Attended, Eligible int64 }
	err = db.gorm.WithContext(ctx).Raw(`SELECT
			COALESCE(SUM(CASE WHEN seconds > 0 THEN 1 ELSE 0 END), 0) AS attended,
			COALESCE(SUM(CASE WHEN eligible THEN 1 ELSE 0 END), 0) AS eligible
		FROM attendance_results WHERE session_id = ?`, id).Scan(&c).Error
	if err != nil {
		return 0, 0, translate("attendance counts", err)
	}
	return int(c.Attended), int(c.Eligible), nil
}
