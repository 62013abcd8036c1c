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
		ID: r.ID, PlaceID: r.TenantID, DropID: r.DropID, EventID: r.EventID, ChannelID: r.ChannelID,
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
		TenantID: s.PlaceID, DropID: s.DropID, EventID: s.EventID, ChannelID: s.ChannelID, ChannelName: s.ChannelName,
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

// dbTimePtr returns *t normalised for storage, or nil.
func dbTimePtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := dbTime(*t)
	return &v
}

// AttendancePlace returns the place of id, where a session's summary is
// posted, or ErrNotFound.
func (db *DB) AttendancePlace(ctx context.Context, id int64) (core.Place, error) {
	var r tenantRow
	if err := db.gorm.WithContext(ctx).Where("id = ?", id).Take(&r).Error; err != nil {
		return core.Place{}, translate("attendance place", err)
	}
	return r.place(), nil
}
