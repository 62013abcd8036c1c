package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// CloseAttendanceSession closes the waiting or open session at at, in one
// transaction (see core.AttendanceStore). It returns core.ErrNotFound when
// the session is neither, or the database error.
func (db *DB) CloseAttendanceSession(ctx context.Context, id int64, at time.Time, reason core.StopReason, required func(core.AttendanceSession) time.Duration, tally core.AttendanceTally) (core.AttendanceSession, []core.AttendanceResult, error) {
	const op = "close attendance session"
	at = dbTime(at)
	var (
		row     attendanceSessionRow
		results []core.AttendanceResult
	)
	err := db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		if row, err = lockSession(tx, id, liveStates); err != nil {
			return err
		}
		if row.StartedAt != nil && at.Before(*row.StartedAt) {
			at = dbTime(*row.StartedAt)
		}
		if err := closeOpenStretches(tx, at, "session_id = ?", id); err != nil {
			return err
		}
		set := map[string]any{"state": string(core.AttendanceClosed), "stopped_at": at, "stop_reason": string(reason)}
		if row.State == string(core.AttendanceOpen) {
			if results, err = tallied(tx, row.session(), tally); err != nil {
				return err
			}
			set["required_seconds"] = int64(required(row.session()) / time.Second)
		}
		res := tx.Model(&row).Clauses(clause.Returning{}).Where("id = ?", id).Updates(set)
		return res.Error
	})
	if err != nil {
		return core.AttendanceSession{}, nil, translate(op, err)
	}
	return row.session(), results, nil
}

// tallied reads the session's stretches and departures, tallies them and
// stores the results.
func tallied(tx *gorm.DB, s core.AttendanceSession, tally core.AttendanceTally) ([]core.AttendanceResult, error) {
	intervals, err := intervalsOf(tx, s.ID)
	if err != nil {
		return nil, err
	}
	var departed []int64
	if err := tx.Table("attendance_departures").Where("session_id = ?", s.ID).Pluck("user_id", &departed).Error; err != nil {
		return nil, err
	}
	gone := make(map[int64]bool, len(departed))
	for _, u := range departed {
		gone[u] = true
	}
	results := tally(s, intervals, gone)
	if len(results) == 0 {
		return nil, nil
	}
	rows := make([]attendanceResultRow, len(results))
	for i, r := range results {
		rows[i] = attendanceResultRow{SessionID: s.ID, UserID: r.UserID, Seconds: r.Seconds, Eligible: r.Eligible, LeftServer: r.LeftServer}
	}
	if err := tx.Omit("Name").CreateInBatches(&rows, 200).Error; err != nil {
		return nil, err
	}
	return results, nil
}

// intervalsOf reads the session's stretches by member then start.
func intervalsOf(tx *gorm.DB, sessionID int64) ([]core.AttendanceInterval, error) {
	var rows []attendanceIntervalRow
	if err := tx.Where("session_id = ?", sessionID).Order("user_id, joined_at, id").Find(&rows).Error; err != nil {
		return nil, err
	}
	out := make([]core.AttendanceInterval, len(rows))
	for i, r := range rows {
		out[i] = core.AttendanceInterval{SessionID: r.SessionID, UserID: r.UserID, JoinedAt: r.JoinedAt.UTC(), LeftAt: utcPtr(r.LeftAt)}
	}
	return out, nil
}

// AttendanceIntervals lists the session's stretches, by member then
// start. It returns the database error, if any.
func (db *DB) AttendanceIntervals(ctx context.Context, id int64) ([]core.AttendanceInterval, error) {
	out, err := intervalsOf(db.gorm.WithContext(ctx), id)
	return out, translate("attendance intervals", err)
}

// AttendanceResults returns a page of the session's results, most seconds
// first (then by user id), with the members' names, and how many there
// are. It returns the database error, if any.
func (db *DB) AttendanceResults(ctx context.Context, id int64, offset, limit int) ([]core.AttendanceResult, int, error) {
	const op = "attendance results"
	g := db.gorm.WithContext(ctx)
	var total int64
	if err := g.Model(&attendanceResultRow{}).Where("session_id = ?", id).Count(&total).Error; err != nil {
		return nil, 0, translate(op, err)
	}
	var rows []attendanceResultRow
	err := g.Table("attendance_results AS r").Select("r.*, u.name AS name").Joins("JOIN users u ON u.id = r.user_id").
		Where("r.session_id = ?", id).Order("r.seconds DESC, r.user_id").Offset(offset).Limit(limit).Find(&rows).Error
	if err != nil {
		return nil, 0, translate(op, err)
	}
	out := make([]core.AttendanceResult, len(rows))
	for i, r := range rows {
		out[i] = r.result()
	}
	return out, int(total), nil
}

// DropAttendance lists the drop's sessions, oldest first, each with the
// member's result in it if any. It returns the database error, if any.
func (db *DB) DropAttendance(ctx context.Context, dropID, userID int64) ([]core.AttendanceRecord, error) {
	const op = "drop attendance"
	g := db.gorm.WithContext(ctx)
	sessions, err := db.sessions(g.Where("drop_id = ?", dropID).Order("id"), op)
	if err != nil || len(sessions) == 0 {
		return nil, err
	}
	var rows []attendanceResultRow
	err = g.Where("user_id = ? AND session_id IN (SELECT id FROM attendance_sessions WHERE drop_id = ?)", userID, dropID).
		Omit("Name").Find(&rows).Error
	if err != nil {
		return nil, translate(op, err)
	}
	bySession := make(map[int64]core.AttendanceResult, len(rows))
	for _, r := range rows {
		bySession[r.SessionID] = r.result()
	}
	out := make([]core.AttendanceRecord, len(sessions))
	for i, s := range sessions {
		out[i].Session = s
		if r, ok := bySession[s.ID]; ok {
			out[i].Result = &r
		}
	}
	return out, nil
}

// ExportAttendance lists the session's results, most seconds first, each
// member named by the pseudonymous id of /drop export. It returns
// ErrNoKey without a key, or the database error.
func (db *DB) ExportAttendance(ctx context.Context, id int64) ([]core.AttendanceExportRow, error) {
	const op = "export attendance"
	if db.cipher == nil {
		return nil, fmt.Errorf("%s: %w", op, ErrNoKey)
	}
	var rows []attendanceResultRow
	err := db.gorm.WithContext(ctx).Where("session_id = ?", id).Order("seconds DESC, user_id").Omit("Name").Find(&rows).Error
	if err != nil {
		return nil, translate(op, err)
	}
	out := make([]core.AttendanceExportRow, len(rows))
	for i, r := range rows {
		out[i] = core.AttendanceExportRow{Member: db.memberID(r.UserID), Seconds: r.Seconds, Eligible: r.Eligible, LeftServer: r.LeftServer}
	}
	return out, nil
}
