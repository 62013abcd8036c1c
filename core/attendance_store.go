package core

import (
	"context"
	"strconv"
	"time"
)

// AttendanceState is where a session is in its life: waiting -> open ->
// closed, or open -> closed, or waiting -> closed (its event cancelled).
type AttendanceState string

// States of a session.
const (
	AttendanceWaiting AttendanceState = "waiting"
	AttendanceOpen    AttendanceState = "open"
	AttendanceClosed  AttendanceState = "closed"
)

// StopReason says who or what stopped a session.
type StopReason string

// Reasons a session stops.
const (
	StopByModerator    StopReason = "moderator"
	StopAtMaxLength    StopReason = "max_length"
	StopEventCompleted StopReason = "event_completed"
	StopEventCanceled  StopReason = "event_canceled"
)

// AttendanceSession is one count of who attends a channel for a drop.
type AttendanceSession struct {
	ID      int64
	PlaceID int64
	DropID  int64
	EventID int64
	// ChannelID and ChannelName are the voice or stage channel's;
	// SummaryChannelID is where /attendance start ran, for the summary.
	ChannelID        string
	ChannelName      string
	SummaryChannelID string
	// ScheduledEventID is the Discord scheduled event the session follows,
	// "" for none.
	ScheduledEventID string
	Minimum          AttendanceMinimum
	MaxLength        time.Duration
	State            AttendanceState
	// StartedAt is nil while waiting; StoppedAt is set once closed.
	StartedAt *time.Time
	StoppedAt *time.Time
	// LastSeenAt is the bot's last heartbeat while the session was open.
	LastSeenAt *time.Time
	// Downtime is the time the bot was down while the session was open,
	// credited to nobody.
	Downtime time.Duration
	// Required is the minimum as time, set at the stop.
	Required   time.Duration
	StopReason StopReason
	StartedBy  int64
	CreatedAt  time.Time
}

// AttendanceInterval is a stretch a member spent in a session's channel,
// not deafened; LeftAt is nil while it lasts.
type AttendanceInterval struct {
	SessionID int64
	UserID    int64
	JoinedAt  time.Time
	LeftAt    *time.Time
}

// AttendanceResult is a member's result at a session's stop.
type AttendanceResult struct {
	SessionID int64
	UserID    int64
	// Name is the member's display name when read back (Members).
	Name       string
	Seconds    int64
	Eligible   bool
	LeftServer bool
}

// AttendanceExportRow is one line of /attendance export.
type AttendanceExportRow struct {
	// Member is a pseudonymous id (a keyed hash, as /drop export's),
	// never the platform id.
	Member     string
	Seconds    int64
	Eligible   bool
	LeftServer bool
}

// AttendanceCSVHeader names the columns of AttendanceExportRow.Record.
var AttendanceCSVHeader = []string{"member", "minutes", "seconds", "eligible", "left_server"}

// Record is the row as CSV fields: the pseudonymous id (hex, never read
// as a formula), whole minutes, seconds, and true or false twice.
func (r AttendanceExportRow) Record() []string {
	return []string{r.Member, strconv.FormatInt(r.Seconds/60, 10), strconv.FormatInt(r.Seconds, 10),
		strconv.FormatBool(r.Eligible), strconv.FormatBool(r.LeftServer)}
}

// AttendanceRecord is one of a drop's sessions with a member's result in
// it, nil when they have none (the session is not closed, or they never
// attended it).
type AttendanceRecord struct {
	Session AttendanceSession
	Result  *AttendanceResult
}

// AttendanceTally computes the results of a session being closed from its
// intervals (open ones closed at the stop) and the members who left the
// server; the store calls it inside the closing transaction.
type AttendanceTally func(s AttendanceSession, intervals []AttendanceInterval, departed map[int64]bool) []AttendanceResult

// AttendanceDrops is what the attendance service reads of drops; a subset
// of DropStore.
type AttendanceDrops interface {
	// DropByEvent returns the place's drop of eventID, or ErrNotFound.
	DropByEvent(ctx context.Context, placeID, eventID int64) (Drop, error)
}

// AttendanceStore is what the attendance service needs from stored state.
// Every method is one atomic step; lookups return ErrNotFound.
type AttendanceStore interface {
	AttendanceSummaryStore
	// CreateAttendanceSession stores a new session (open, or waiting on
	// its scheduled event). ErrConflict when an open session counts the
	// channel (for an open one) or a session follows the scheduled event.
	CreateAttendanceSession(ctx context.Context, s AttendanceSession) (AttendanceSession, error)
	// AttendanceSession returns the session, or ErrNotFound.
	AttendanceSession(ctx context.Context, id int64) (AttendanceSession, error)
	// LiveAttendanceSessions lists the place's sessions that are waiting
	// or open (every place's when placeID is 0), oldest first.
	LiveAttendanceSessions(ctx context.Context, placeID int64) ([]AttendanceSession, error)
	// AttendanceSessions lists the place's latest sessions, newest
	// first, at most limit.
	AttendanceSessions(ctx context.Context, placeID int64, limit int) ([]AttendanceSession, error)
	// OpenWaitingSession opens the waiting session at at. ErrNotFound when
	// it is not waiting, ErrConflict when another session is open in its
	// channel.
	OpenWaitingSession(ctx context.Context, id int64, at time.Time) (AttendanceSession, error)
	// RecordVoice applies a member's voice state at at to the place's
	// open sessions: the stretch in each session of another channel
	// (every one when counting is false) is closed, and when counting, one
	// opens in the session of channelID unless one is open already.
	// ErrNotFound when the place has no open session (nothing changes),
	// ErrConflict when the user does not exist.
	RecordVoice(ctx context.Context, placeID, userID int64, channelID string, counting bool, at time.Time) error
	// RecordDeparture notes that the member left the server at at: their
	// stretches in the place's open sessions close, and in each session
	// they attended they are marked as departed.
	RecordDeparture(ctx context.Context, placeID, userID int64, at time.Time) error
	// TouchAttendance stamps last_seen_at of those of the sessions that
	// are open at at.
	TouchAttendance(ctx context.Context, sessionIDs []int64, at time.Time) error
	// ResumeAttendance resumes the open session at at after the bot was
	// down: its stretches begun before the last heartbeat close at it,
	// the time from it to at is added to the downtime, the heartbeat
	// becomes at, and stretches open at at for the members present (unless
	// they have one open). ErrNotFound when the session is not open.
	ResumeAttendance(ctx context.Context, id int64, at time.Time, present []int64) (AttendanceSession, error)
	// SuspendAttendance stops counting the open session at at (the bot
	// lost its view of voice): its open stretches close at the earlier of
	// the last heartbeat and at, the time from the heartbeat to at is
	// added to the downtime, and the heartbeat becomes at, even if a
	// later one came meanwhile. ErrNotFound when the session is not open.
	SuspendAttendance(ctx context.Context, id int64, at time.Time) (AttendanceSession, error)
	// CloseAttendanceSession closes the waiting or open session at at for
	// reason, with required as its minimum in time; its open stretches
	// close at at, and tally (when the session was open) gives the
	// results stored with it. ErrNotFound when it is not waiting or open
	// (another stop came first).
	CloseAttendanceSession(ctx context.Context, id int64, at time.Time, reason StopReason, required func(AttendanceSession) time.Duration, tally AttendanceTally) (AttendanceSession, []AttendanceResult, error)
	// AttendanceIntervals lists the session's stretches, by member then
	// start.
	AttendanceIntervals(ctx context.Context, id int64) ([]AttendanceInterval, error)
	// AttendanceResults returns a page of the session's results, most
	// seconds first, with the members' names, and how many there are.
	AttendanceResults(ctx context.Context, id int64, offset, limit int) ([]AttendanceResult, int, error)
	// DropAttendance lists the drop's sessions, each with the member's
	// result in it if any.
	DropAttendance(ctx context.Context, dropID, userID int64) ([]AttendanceRecord, error)
	// ExportAttendance lists the session's results with pseudonymous
	// member ids, most seconds first.
	ExportAttendance(ctx context.Context, id int64) ([]AttendanceExportRow, error)
	// AttendancePlace returns the place of id (a session's), or
	// ErrNotFound.
	AttendancePlace(ctx context.Context, id int64) (Place, error)
}
