package storage

import (
	"context"
	"time"

	"github.com/poapbot/poapbot/core"
)

// DB keeps which attendance summaries are owed.
var _ core.AttendanceSummaryStore = (*DB)(nil)

// OwedAttendanceSummaries lists the closed sessions whose summary is owed
// (see core.AttendanceSummaryStore): those not held past now, of places
// on one of platforms, tried fewer than maxAttempts times; the least
// tried first, then the oldest, at most limit.
func (db *DB) OwedAttendanceSummaries(ctx context.Context, from, to, now time.Time, platforms []core.Platform, maxAttempts, limit int) ([]core.AttendanceSession, error) {
	names := make([]string, len(platforms))
	for i, p := range platforms {
		names[i] = string(p)
	}
	q := db.gorm.WithContext(ctx).
		Where("state = ? AND summary_posted_at IS NULL AND stopped_at >= ? AND stopped_at <= ?",
			string(core.AttendanceClosed), dbTime(from), dbTime(to)).
		Where("summary_lease_until IS NULL OR summary_lease_until <= ?", dbTime(now)).
		Where("summary_attempts < ?", maxAttempts).
		Where("tenant_id IN (SELECT id FROM tenants WHERE platform IN ?)", names).
		Order("summary_attempts").Order("id").Limit(limit)
	return db.sessions(q, "owed attendance summaries")
}

// ClaimAttendanceSummary takes on the closed session's owed summary until
// until under token, counting a try, in one conditional statement: ok
// for the one caller that took it, with the try's number; false when the
// summary is out, another holds it past now, or it was tried maxAttempts
// times.
func (db *DB) ClaimAttendanceSummary(ctx context.Context, id int64, now, until time.Time, token string, maxAttempts int) (int, bool, error) {
	var attempts []int
	err := db.gorm.WithContext(ctx).Raw(`UPDATE attendance_sessions
		SET summary_lease_until = ?, summary_lease_token = ?, summary_attempts = summary_attempts + 1
		WHERE id = ? AND state = ? AND summary_posted_at IS NULL AND summary_attempts < ?
			AND (summary_lease_until IS NULL OR summary_lease_until <= ?)
		RETURNING summary_attempts`,
		dbTime(until), token, id, string(core.AttendanceClosed), maxAttempts, dbTime(now)).Scan(&attempts).Error
	if err != nil {
		return 0, false, translate("claim attendance summary", err)
	}
	if len(attempts) != 1 {
		return 0, false, nil
	}
	return attempts[0], true, nil
}

// MarkAttendanceSummary records that the session's summary is out, at at,
// whoever holds it; a summary marked already keeps its first time.
func (db *DB) MarkAttendanceSummary(ctx context.Context, id int64, at time.Time) error {
	err := db.gorm.WithContext(ctx).Exec(`UPDATE attendance_sessions
		SET summary_posted_at = ?, summary_lease_until = NULL, summary_lease_token = NULL
		WHERE id = ? AND summary_posted_at IS NULL`, dbTime(at), id).Error
	return translate("mark attendance summary", err)
}

// ReleaseAttendanceSummary gives up the hold taken under token on a
// summary still owed, and the try it counted, so that the next try need
// not wait for its lease to run out; another claim's hold is left.
func (db *DB) ReleaseAttendanceSummary(ctx context.Context, id int64, token string) error {
	err := db.gorm.WithContext(ctx).Exec(`UPDATE attendance_sessions
		SET summary_lease_until = NULL, summary_lease_token = NULL, summary_attempts = summary_attempts - 1
		WHERE id = ? AND summary_posted_at IS NULL AND summary_lease_token = ? AND summary_attempts > 0`, id, token).Error
	return translate("release attendance summary", err)
}

// DeferAttendanceSummary turns the hold taken under token on a summary
// still owed into a wait until until, the try counted; another claim's
// hold is left.
func (db *DB) DeferAttendanceSummary(ctx context.Context, id int64, token string, until time.Time) error {
	err := db.gorm.WithContext(ctx).Exec(`UPDATE attendance_sessions
		SET summary_lease_until = ?, summary_lease_token = NULL
		WHERE id = ? AND summary_posted_at IS NULL AND summary_lease_token = ?`, dbTime(until), id, token).Error
	return translate("defer attendance summary", err)
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
