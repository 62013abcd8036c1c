package storage

import (
	"context"
	"time"

	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// openSessionIDs returns the ids and channels of the tenant's open
// sessions, shared-locked on PostgreSQL so that a stop waits for the
// voice state being recorded, and the voice state waits for the stop.
func openSessionIDs(tx *gorm.DB, tenantID int64) ([]attendanceSessionRow, error) {
	var rows []attendanceSessionRow
	err := tx.Clauses(clause.Locking{Strength: clause.LockingStrengthShare}).Select("id", "channel_id").
		Where("tenant_id = ? AND state = ?", tenantID, string(core.AttendanceOpen)).Find(&rows).Error
	return rows, err
}

// closeStretches closes the member's open stretches in the sessions at at
// (never before their start).
func closeStretches(tx *gorm.DB, sessionIDs []int64, userID int64, at time.Time) error {
	if len(sessionIDs) == 0 {
		return nil
	}
	return closeOpenStretches(tx, at, "user_id = ? AND session_id IN ?", userID, sessionIDs)
}

// closeOpenStretches closes at at the open stretches that where (a
// condition on attendance_intervals, with args) selects; one that began
// after at closes at its start, so that no stretch ends before it begins.
func closeOpenStretches(tx *gorm.DB, at time.Time, where string, args ...any) error {
	return tx.Exec(`UPDATE attendance_intervals SET left_at = CASE WHEN joined_at > ? THEN joined_at ELSE ? END
		WHERE left_at IS NULL AND `+where, append([]any{at, at}, args...)...).Error
}

// RecordVoice applies the member's voice state at at to the tenant's open
// sessions, in one transaction (see core.AttendanceStore). It returns
// core.ErrNotFound when the tenant has no open session (nothing is
// written), core.ErrConflict when the user does not exist, or the
// database error.
func (db *DB) RecordVoice(ctx context.Context, tenantID, userID int64, channelID string, counting bool, at time.Time) error {
	at = dbTime(at)
	err := db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		open, err := openSessionIDs(tx, tenantID)
		if err != nil {
			return err
		}
		if len(open) == 0 {
			return gorm.ErrRecordNotFound
		}
		var others []int64
		var here int64
		for _, s := range open {
			if counting && s.ChannelID == channelID {
				here = s.ID
			} else {
				others = append(others, s.ID)
			}
		}
		if err := closeStretches(tx, others, userID, at); err != nil {
			return err
		}
		if here == 0 {
			return nil
		}
		return tx.Clauses(clause.OnConflict{DoNothing: true}).
			Create(&attendanceIntervalRow{SessionID: here, UserID: userID, JoinedAt: at}).Error
	})
	return translate("record voice", err)
}

// RecordDeparture closes the member's stretches in the tenant's open
// sessions at at and marks them departed in those they attended, in one
// transaction. It returns the database error, if any.
func (db *DB) RecordDeparture(ctx context.Context, tenantID, userID int64, at time.Time) error {
	at = dbTime(at)
	err := db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		open, err := openSessionIDs(tx, tenantID)
		if err != nil || len(open) == 0 {
			return err
		}
		ids := make([]int64, len(open))
		for i, s := range open {
			ids[i] = s.ID
		}
		if err := closeStretches(tx, ids, userID, at); err != nil {
			return err
		}
		var attended []int64
		err = tx.Model(&attendanceIntervalRow{}).Distinct("session_id").Where("user_id = ? AND session_id IN ?", userID, ids).
			Pluck("session_id", &attended).Error
		if err != nil || len(attended) == 0 {
			return err
		}
		rows := make([]attendanceDepartureRow, len(attended))
		for i, id := range attended {
			rows[i] = attendanceDepartureRow{SessionID: id, UserID: userID, LeftAt: at}
		}
		return tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&rows).Error
	})
	return translate("record departure", err)
}

// TouchAttendance stamps last_seen_at of the sessions that are open at
// at, never moving it back. It returns the database error, if any.
func (db *DB) TouchAttendance(ctx context.Context, sessionIDs []int64, at time.Time) error {
	if len(sessionIDs) == 0 {
		return nil
	}
	at = dbTime(at)
	err := db.gorm.WithContext(ctx).Model(&attendanceSessionRow{}).
		Where("state = ? AND id IN ? AND last_seen_at < ?", string(core.AttendanceOpen), sessionIDs, at).
		Update("last_seen_at", at).Error
	return translate("touch attendance", err)
}

// lockSession reads the session in state, locked for update on
// PostgreSQL; core.ErrNotFound when it is in none of them.
func lockSession(tx *gorm.DB, id int64, states []string) (attendanceSessionRow, error) {
	var row attendanceSessionRow
	err := tx.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate}).
		Where("id = ? AND state IN ?", id, states).Take(&row).Error
	return row, err
}

// ResumeAttendance resumes the open session at at after a downtime, in
// one transaction (see core.AttendanceStore): every open stretch closes
// at the last heartbeat (or at its start, when it began after it). It
// returns core.ErrNotFound when the session is not open, or the database
// error.
func (db *DB) ResumeAttendance(ctx context.Context, id int64, at time.Time, present []int64) (core.AttendanceSession, error) {
	at = dbTime(at)
	var row attendanceSessionRow
	err := db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		if row, err = catchUp(tx, id, at, false); err != nil {
			return err
		}
		return openStretches(tx, id, present, at)
	})
	if err != nil {
		return core.AttendanceSession{}, translate("resume attendance", err)
	}
	return row.session(), nil
}

// SuspendAttendance stops counting the open session at at, in one
// transaction (see core.AttendanceStore): its open stretches close at the
// earlier of its last heartbeat and at, the time from its last heartbeat
// to at is added to the downtime, and the heartbeat becomes at, even when
// a later one came meanwhile. It returns core.ErrNotFound when the
// session is not open, or the database error.
func (db *DB) SuspendAttendance(ctx context.Context, id int64, at time.Time) (core.AttendanceSession, error) {
	at = dbTime(at)
	var row attendanceSessionRow
	err := db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		row, err = catchUp(tx, id, at, true)
		return err
	})
	if err != nil {
		return core.AttendanceSession{}, translate("suspend attendance", err)
	}
	return row.session(), nil
}

// catchUp locks the open session and brings it to at, when the bot's view
// of it was lost since its last heartbeat: its open stretches close at
// the heartbeat (at at, when lost at at and the heartbeat came later) or
// at their start, when later; the time from the heartbeat to at is added
// to the downtime; the heartbeat becomes at when later (always, when
// lost). It returns the session as updated.
func catchUp(tx *gorm.DB, id int64, at time.Time, lost bool) (attendanceSessionRow, error) {
	row, err := lockSession(tx, id, []string{string(core.AttendanceOpen)})
	if err != nil {
		return row, err
	}
	last := at
	if row.LastSeenAt != nil {
		last = dbTime(*row.LastSeenAt)
	}
	end := last
	if lost && at.Before(last) {
		end = at
	}
	if err := closeOpenStretches(tx, end, "session_id = ?", id); err != nil {
		return row, err
	}
	if at.After(last) {
		row.DowntimeSeconds += int64(at.Sub(last) / time.Second)
	}
	if lost || at.After(last) {
		row.LastSeenAt = &at
	}
	err = tx.Model(&attendanceSessionRow{}).Where("id = ?", id).
		Updates(map[string]any{"downtime_seconds": row.DowntimeSeconds, "last_seen_at": *row.LastSeenAt}).Error
	return row, err
}

// openStretches opens a stretch at at in the session for each user who
// has none open.
func openStretches(tx *gorm.DB, sessionID int64, users []int64, at time.Time) error {
	if len(users) == 0 {
		return nil
	}
	rows := make([]attendanceIntervalRow, len(users))
	for i, u := range users {
		rows[i] = attendanceIntervalRow{SessionID: sessionID, UserID: u, JoinedAt: at}
	}
	return tx.Clauses(clause.OnConflict{DoNothing: true}).CreateInBatches(&rows, 200).Error
}
