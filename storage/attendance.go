package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// DB is the attendance service's store.
var _ core.AttendanceStore = (*DB)(nil)

// attendanceSessionRow is a row of attendance_sessions.
type attendanceSessionRow struct {
	ID               int64
	TenantID         int64
	DropID           int64
	EventID          int64
	ChannelID        string
	ChannelName      string
	SummaryChannelID string
	ScheduledEventID *string
	MinKind          string
	MinValue         int
	MaxSeconds       int64
	State            string
	StartedAt        *time.Time
	StoppedAt        *time.Time
	LastSeenAt       *time.Time
	DowntimeSeconds  int64
	RequiredSeconds  *int64
	StopReason       string
	StartedBy        *int64
	CreatedAt        time.Time
}

func (attendanceSessionRow) TableName() string { return "attendance_sessions" }

func (r attendanceSessionRow) session() core.AttendanceSession {
	s := core.AttendanceSession{
		ID: r.ID, TenantID: r.TenantID, DropID: r.DropID, EventID: r.EventID, ChannelID: r.ChannelID,
		ChannelName: r.ChannelName, SummaryChannelID: r.SummaryChannelID,
		Minimum:   core.AttendanceMinimum{Kind: core.MinimumKind(r.MinKind), Value: r.MinValue},
		MaxLength: time.Duration(r.MaxSeconds) * time.Second, State: core.AttendanceState(r.State),
		StartedAt: utcPtr(r.StartedAt), StoppedAt: utcPtr(r.StoppedAt), LastSeenAt: utcPtr(r.LastSeenAt),
		Downtime: time.Duration(r.DowntimeSeconds) * time.Second, StopReason: core.StopReason(r.StopReason),
		CreatedAt: r.CreatedAt.UTC(),
	}
	if r.StartedBy != nil {
		s.StartedBy = *r.StartedBy
	}
	if r.ScheduledEventID != nil {
		s.ScheduledEventID = *r.ScheduledEventID
	}
	if r.RequiredSeconds != nil {
		s.Required = time.Duration(*r.RequiredSeconds) * time.Second
	}
	return s
}

// attendanceIntervalRow is a row of attendance_intervals.
type attendanceIntervalRow struct {
	ID        int64
	SessionID int64
	UserID    int64
	JoinedAt  time.Time
	LeftAt    *time.Time
}

func (attendanceIntervalRow) TableName() string { return "attendance_intervals" }

// attendanceDepartureRow is a row of attendance_departures.
type attendanceDepartureRow struct {
	SessionID int64
	UserID    int64
	LeftAt    time.Time
}

func (attendanceDepartureRow) TableName() string { return "attendance_departures" }

// attendanceResultRow is a row of attendance_results, with the member's
// name when read with it.
type attendanceResultRow struct {
	SessionID  int64
	UserID     int64
	Seconds    int64
	Eligible   bool
	LeftServer bool
	Name       string `gorm:"->;-:migration"`
}

func (attendanceResultRow) TableName() string { return "attendance_results" }

func (r attendanceResultRow) result() core.AttendanceResult {
	return core.AttendanceResult{SessionID: r.SessionID, UserID: r.UserID, Name: r.Name, Seconds: r.Seconds,
		Eligible: r.Eligible, LeftServer: r.LeftServer}
}

// liveStates are the states of a session not closed.
var liveStates = []string{string(core.AttendanceWaiting), string(core.AttendanceOpen)}

// CreateAttendanceSession stores a new waiting or open session. It returns
// core.ErrConflict when a session is open in the channel (for an open
// one), when a session follows the scheduled event, or when the tenant,
// the drop or the user does not exist; an error for a session neither
// waiting nor open; the database error.
func (db *DB) CreateAttendanceSession(ctx context.Context, s core.AttendanceSession) (core.AttendanceSession, error) {
	const op = "create attendance session"
	if s.State != core.AttendanceWaiting && s.State != core.AttendanceOpen {
		return core.AttendanceSession{}, fmt.Errorf("%s: a new session waits or is open, not %q", op, s.State)
	}
	row := attendanceSessionRow{
		TenantID: s.TenantID, DropID: s.DropID, EventID: s.EventID, ChannelID: s.ChannelID, ChannelName: s.ChannelName,
		SummaryChannelID: s.SummaryChannelID, MinKind: string(s.Minimum.Kind), MinValue: s.Minimum.Value,
		MaxSeconds: int64(s.MaxLength / time.Second), State: string(s.State), StartedAt: dbTimePtr(s.StartedAt),
		LastSeenAt: dbTimePtr(s.LastSeenAt), CreatedAt: createdAt(s.CreatedAt),
	}
	if s.ScheduledEventID != "" {
		row.ScheduledEventID = &s.ScheduledEventID
	}
	if s.StartedBy != 0 {
		row.StartedBy = &s.StartedBy
	}
	if err := db.gorm.WithContext(ctx).Create(&row).Error; err != nil {
		return core.AttendanceSession{}, translate(op, err)
	}
	return row.session(), nil
}

// AttendanceSession returns the session, or core.ErrNotFound.
func (db *DB) AttendanceSession(ctx context.Context, id int64) (core.AttendanceSession, error) {
	var row attendanceSessionRow
	if err := db.gorm.WithContext(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		return core.AttendanceSession{}, translate("attendance session", err)
	}
	return row.session(), nil
}

// LiveAttendanceSessions lists the tenant's waiting and open sessions
// (every tenant's for tenantID 0), oldest first. It returns the database
// error, if any.
func (db *DB) LiveAttendanceSessions(ctx context.Context, tenantID int64) ([]core.AttendanceSession, error) {
	q := db.gorm.WithContext(ctx).Where("state IN ?", liveStates)
	if tenantID != 0 {
		q = q.Where("tenant_id = ?", tenantID)
	}
	return db.sessions(q.Order("id"), "live attendance sessions")
}

// AttendanceSessions lists the tenant's latest sessions, newest first, at
// most limit. It returns the database error, if any.
func (db *DB) AttendanceSessions(ctx context.Context, tenantID int64, limit int) ([]core.AttendanceSession, error) {
	q := db.gorm.WithContext(ctx).Where("tenant_id = ?", tenantID).Order("id DESC").Limit(limit)
	return db.sessions(q, "attendance sessions")
}

// sessions runs the query q of sessions.
func (db *DB) sessions(q *gorm.DB, op string) ([]core.AttendanceSession, error) {
	var rows []attendanceSessionRow
	if err := q.Find(&rows).Error; err != nil {
		return nil, translate(op, err)
	}
	out := make([]core.AttendanceSession, len(rows))
	for i, r := range rows {
		out[i] = r.session()
	}
	return out, nil
}

// OpenWaitingSession opens the waiting session at at, in one statement.
// It returns core.ErrNotFound when the session is not waiting,
// core.ErrConflict when another session is open in its channel, or the
// database error.
func (db *DB) OpenWaitingSession(ctx context.Context, id int64, at time.Time) (core.AttendanceSession, error) {
	const op = "open waiting attendance session"
	var rows []attendanceSessionRow
	at = dbTime(at)
	res := db.gorm.WithContext(ctx).Model(&rows).Clauses(clause.Returning{}).
		Where("id = ? AND state = ?", id, string(core.AttendanceWaiting)).
		Updates(map[string]any{"state": string(core.AttendanceOpen), "started_at": at, "last_seen_at": at})
	switch {
	case res.Error != nil:
		return core.AttendanceSession{}, translate(op, res.Error)
	case len(rows) == 0:
		return core.AttendanceSession{}, fmt.Errorf("%s: %w", op, core.ErrNotFound)
	}
	return rows[0].session(), nil
}

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
	return tx.Exec(`UPDATE attendance_intervals SET left_at = CASE WHEN joined_at > ? THEN joined_at ELSE ? END
		WHERE user_id = ? AND left_at IS NULL AND session_id IN ?`, at, at, userID, sessionIDs).Error
}

// RecordVoice applies the member's voice state at at to the tenant's open
// sessions, in one transaction (see core.AttendanceStore). It returns
// core.ErrConflict when the user does not exist, or the database error.
func (db *DB) RecordVoice(ctx context.Context, tenantID, userID int64, channelID string, counting bool, at time.Time) error {
	at = dbTime(at)
	err := db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		open, err := openSessionIDs(tx, tenantID)
		if err != nil {
			return err
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

// TouchAttendance stamps last_seen_at of the tenants' open sessions at at,
// never moving it back. It returns the database error, if any.
func (db *DB) TouchAttendance(ctx context.Context, tenantIDs []int64, at time.Time) error {
	if len(tenantIDs) == 0 {
		return nil
	}
	at = dbTime(at)
	err := db.gorm.WithContext(ctx).Model(&attendanceSessionRow{}).
		Where("state = ? AND tenant_id IN ? AND last_seen_at < ?", string(core.AttendanceOpen), tenantIDs, at).
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
	const op = "resume attendance"
	at = dbTime(at)
	var row attendanceSessionRow
	err := db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		if row, err = lockSession(tx, id, []string{string(core.AttendanceOpen)}); err != nil {
			return err
		}
		last := at
		if row.LastSeenAt != nil {
			last = dbTime(*row.LastSeenAt)
		}
		err = tx.Exec(`UPDATE attendance_intervals SET left_at = CASE WHEN joined_at > ? THEN joined_at ELSE ? END
			WHERE session_id = ? AND left_at IS NULL`, last, last, id).Error
		if err != nil {
			return err
		}
		if at.After(last) {
			row.DowntimeSeconds += int64(at.Sub(last) / time.Second)
			row.LastSeenAt = &at
		}
		err = tx.Model(&attendanceSessionRow{}).Where("id = ?", id).
			Updates(map[string]any{"downtime_seconds": row.DowntimeSeconds, "last_seen_at": *row.LastSeenAt}).Error
		if err != nil {
			return err
		}
		return openStretches(tx, id, present, at)
	})
	if err != nil {
		return core.AttendanceSession{}, translate(op, err)
	}
	return row.session(), nil
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
		err = tx.Exec(`UPDATE attendance_intervals SET left_at = CASE WHEN joined_at > ? THEN joined_at ELSE ? END
			WHERE session_id = ? AND left_at IS NULL`, at, at, id).Error
		if err != nil {
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

// timePtr returns *t normalised for storage, or nil.
func dbTimePtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := dbTime(*t)
	return &v
}
