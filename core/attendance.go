package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"
)

// AttendanceService counts who attends a voice or stage channel for a
// drop: a session opens in one channel (at a moderator's word, or when the
// Discord scheduled event it waits on becomes active), the adapters report
// voice states as they change (Observe) and members leaving the server
// (MemberLeft), and the stop tallies each member's time against the
// minimum: those who met it are the drop's eligible members (Attended).
// Every stretch of attendance is stored as it happens, and a heartbeat
// stamps open sessions, so that after a restart Resume closes the
// stretches at the last heartbeat and the bot's own downtime is never
// credited.
type AttendanceService struct {
	runtime
	members MemberStore
	drops   AttendanceDrops
	store   AttendanceStore
	audit   AuditLog
	max     time.Duration

	mu sync.Mutex
	// tenants caches tenant ids by platform and external id: they never
	// change, and a voice event should not write its tenant again.
	tenants map[Place]int64
	// live are the tenants whose voice states this process follows
	// (started or resumed here): only their open sessions get heartbeats,
	// so that a restart's downtime stays visible until Resume.
	live map[int64]bool
}

// AttendanceServiceDeps are the dependencies of an AttendanceService.
type AttendanceServiceDeps struct {
	// Members, Drops, Store and Audit are required; storage.DB is all four.
	Members MemberStore
	Drops   AttendanceDrops
	Store   AttendanceStore
	Audit   AuditLog
	// MaxLength is the longest a session lasts (ATTENDANCE_MAX_LENGTH);
	// zero is DefaultAttendanceMaxLength.
	MaxLength time.Duration
	// Clock defaults to the system clock, Logger to one that discards.
	Clock  Clock
	Logger *slog.Logger
}

// DefaultAttendanceMaxLength is the longest a session lasts unless
// configured: a long community call, and a bound on a session forgotten.
const DefaultAttendanceMaxLength = 12 * time.Hour

// AttendanceHeartbeatEvery is how often the bot's loop calls Heartbeat
// (and StopExpired): a restart loses at most this much of the credited
// time of members present.
const AttendanceHeartbeatEvery = 30 * time.Second

// NewAttendanceService returns the service, or ErrMissingDependency.
func NewAttendanceService(d AttendanceServiceDeps) (*AttendanceService, error) {
	if err := missing("attendance service", "Members", d.Members, "Drops", d.Drops, "Store", d.Store, "Audit", d.Audit); err != nil {
		return nil, err
	}
	s := &AttendanceService{
		runtime: newRuntime(d.Clock, d.Logger, nil), members: d.Members, drops: d.Drops, store: d.Store, audit: d.Audit,
		max: d.MaxLength, tenants: map[Place]int64{}, live: map[int64]bool{},
	}
	if s.max <= 0 {
		s.max = DefaultAttendanceMaxLength
	}
	return s, nil
}

// MaxLength returns the longest a new session lasts.
func (s *AttendanceService) MaxLength() time.Duration { return s.max }

// Errors of attendance (AttendanceService).
var (
	// ErrAttendanceMinimum means the minimum is zero, more than 100 %, or
	// more minutes than a session lasts (see MinimumError).
	ErrAttendanceMinimum = errors.New("invalid attendance minimum")
	// ErrAttendanceChannelBusy means a session is already open in the
	// channel: one per channel.
	ErrAttendanceChannelBusy = errors.New("a session is already open in the channel")
	// ErrAttendanceEventBusy means a session already waits on (or counts)
	// that scheduled event.
	ErrAttendanceEventBusy = errors.New("a session already follows the scheduled event")
	// ErrNoAttendanceSession means there is no such session here, or no
	// open one in the channel named.
	ErrNoAttendanceSession = errors.New("no attendance session")
	// ErrAttendanceAmbiguous means a stop named no channel while several
	// sessions are open in the place.
	ErrAttendanceAmbiguous = errors.New("several attendance sessions are open")
	// ErrAttendanceOpen means the session is still open: its results
	// (export) exist once it stops.
	ErrAttendanceOpen = errors.New("the attendance session is still open")
)

// MinimumError says why a minimum is refused; it matches
// ErrAttendanceMinimum.
type MinimumError struct {
	Minimum AttendanceMinimum
	// Max is the longest a session lasts, for "more than the session".
	Max    time.Duration
	Reason string
}

func (e *MinimumError) Error() string {
	return fmt.Sprintf("attendance minimum %s: %s", e.Minimum, e.Reason)
}

// Unwrap returns ErrAttendanceMinimum.
func (e *MinimumError) Unwrap() error { return ErrAttendanceMinimum }

// MinimumKind says how a minimum is counted.
type MinimumKind string

// The kinds of minimum.
const (
	// MinimumMinutes asks for N minutes in the channel.
	MinimumMinutes MinimumKind = "minutes"
	// MinimumPercent asks for N percent of the time the session counted
	// (its length less the bot's downtime).
	MinimumPercent MinimumKind = "percent"
)

// AttendanceMinimum is what a member must attend to be eligible.
type AttendanceMinimum struct {
	Kind  MinimumKind
	Value int
}

// String writes the minimum as /attendance start takes it: "30m", "50%".
func (m AttendanceMinimum) String() string {
	if m.Kind == MinimumPercent {
		return strconv.Itoa(m.Value) + "%"
	}
	return strconv.Itoa(m.Value) + "m"
}

// ParseMinimum reads a minimum as a moderator types it: "30m", "30" (both
// minutes), "1h" (60 minutes) or "50%". It returns a *MinimumError for
// anything else, zero, or more than 100 %.
func ParseMinimum(text string) (AttendanceMinimum, error) {
	t := strings.ToLower(strings.TrimSpace(text))
	kind, unit := MinimumMinutes, 1
	switch {
	case strings.HasSuffix(t, "%"):
		kind, t = MinimumPercent, strings.TrimSuffix(t, "%")
	case strings.HasSuffix(t, "min"):
		t = strings.TrimSuffix(t, "min")
	case strings.HasSuffix(t, "m"):
		t = strings.TrimSuffix(t, "m")
	case strings.HasSuffix(t, "h"):
		t, unit = strings.TrimSuffix(t, "h"), 60
	}
	n, err := strconv.Atoi(strings.TrimSpace(t))
	if err != nil || n < 0 || n > 1_000_000 {
		return AttendanceMinimum{}, &MinimumError{Minimum: AttendanceMinimum{Kind: kind}, Reason: fmt.Sprintf("%q is not N minutes (30m) or N percent (50%%)", clip(text, 32))}
	}
	m := AttendanceMinimum{Kind: kind, Value: n * unit}
	return m, m.check(0)
}

// check refuses a minimum of zero, of more than 100 %, or of more minutes
// than max (when max is set).
func (m AttendanceMinimum) check(max time.Duration) error {
	switch {
	case m.Kind != MinimumMinutes && m.Kind != MinimumPercent:
		return &MinimumError{Minimum: m, Reason: "unknown kind"}
	case m.Value <= 0:
		return &MinimumError{Minimum: m, Max: max, Reason: "a minimum of zero would count everyone"}
	case m.Kind == MinimumPercent && m.Value > 100:
		return &MinimumError{Minimum: m, Max: max, Reason: "more than 100 %"}
	case m.Kind == MinimumMinutes && max > 0 && time.Duration(m.Value)*time.Minute > max:
		return &MinimumError{Minimum: m, Max: max, Reason: "longer than a session lasts (" + max.String() + ")"}
	}
	return nil
}

// required returns the minimum as time, for a session that counted
// counted: N minutes, or N percent of counted rounded up to the second.
func (m AttendanceMinimum) required(counted time.Duration) time.Duration {
	if m.Kind == MinimumPercent {
		secs := (int64(counted/time.Second)*int64(m.Value) + 99) / 100
		return time.Duration(secs) * time.Second
	}
	return time.Duration(m.Value) * time.Minute
}

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
	StopByModerator     StopReason = "moderator"
	StopAtMaxLength     StopReason = "max_length"
	StopEventCompleted  StopReason = "event_completed"
	StopEventCanceled   StopReason = "event_canceled"
	stopReasonUnstopped StopReason = ""
)

// AttendanceSession is one count of who attends a channel for a drop.
type AttendanceSession struct {
	ID       int64
	TenantID int64
	DropID   int64
	EventID  int64
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
	// DropByEvent returns the tenant's drop of eventID, or ErrNotFound.
	DropByEvent(ctx context.Context, tenantID, eventID int64) (Drop, error)
}

// AttendanceStore is what the attendance service needs from stored state.
// Every method is one atomic step; lookups return ErrNotFound.
type AttendanceStore interface {
	// CreateAttendanceSession stores a new session (open, or waiting on
	// its scheduled event). ErrConflict when an open session counts the
	// channel (for an open one) or a session follows the scheduled event.
	CreateAttendanceSession(ctx context.Context, s AttendanceSession) (AttendanceSession, error)
	// AttendanceSession returns the session, or ErrNotFound.
	AttendanceSession(ctx context.Context, id int64) (AttendanceSession, error)
	// LiveAttendanceSessions lists the tenant's sessions that are waiting
	// or open (every tenant's when tenantID is 0), oldest first.
	LiveAttendanceSessions(ctx context.Context, tenantID int64) ([]AttendanceSession, error)
	// AttendanceSessions lists the tenant's latest sessions, newest
	// first, at most limit.
	AttendanceSessions(ctx context.Context, tenantID int64, limit int) ([]AttendanceSession, error)
	// OpenWaitingSession opens the waiting session at at. ErrNotFound when
	// it is not waiting, ErrConflict when another session is open in its
	// channel.
	OpenWaitingSession(ctx context.Context, id int64, at time.Time) (AttendanceSession, error)
	// RecordVoice applies a member's voice state at at to the tenant's
	// open sessions: the stretch in each session of another channel
	// (every one when counting is false) is closed, and when counting, one
	// opens in the session of channelID unless one is open already.
	RecordVoice(ctx context.Context, tenantID, userID int64, channelID string, counting bool, at time.Time) error
	// RecordDeparture notes that the member left the server at at: their
	// stretches in the tenant's open sessions close, and in each session
	// they attended they are marked as departed.
	RecordDeparture(ctx context.Context, tenantID, userID int64, at time.Time) error
	// TouchAttendance stamps last_seen_at of the open sessions of the
	// tenants at at.
	TouchAttendance(ctx context.Context, tenantIDs []int64, at time.Time) error
	// ResumeAttendance resumes the open session at at after the bot was
	// down: its stretches begun before the last heartbeat close at it,
	// the time from it to at is added to the downtime, the heartbeat
	// becomes at, and stretches open at at for the members present (unless
	// they have one open). ErrNotFound when the session is not open.
	ResumeAttendance(ctx context.Context, id int64, at time.Time, present []int64) (AttendanceSession, error)
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
}

// Audit actions of attendance.
const (
	AuditAttendanceStarted  = "attendance started"
	AuditAttendanceStopped  = "attendance stopped"
	AuditAttendanceExported = "attendance exported"
)

// tenantID returns the place's tenant id, creating the tenant the first
// time.
func (s *AttendanceService) tenantID(ctx context.Context, p Place) (int64, error) {
	key := Place{Platform: p.Platform, ExternalID: p.ExternalID}
	s.mu.Lock()
	id, ok := s.tenants[key]
	s.mu.Unlock()
	if ok {
		return id, nil
	}
	t, err := s.members.UpsertTenant(ctx, p.tenant())
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	s.tenants[key] = t.ID
	s.mu.Unlock()
	return t.ID, nil
}

// follow marks the tenant's voice states as followed by this process, for
// Heartbeat.
func (s *AttendanceService) follow(tenantID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.live[tenantID] = true
}

// following reports whether this process follows the tenant's voice
// states.
func (s *AttendanceService) following(tenantID int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live[tenantID]
}

// auditBy appends an audit entry; a failure is logged, the act having
// happened.
func (s *AttendanceService) auditBy(ctx context.Context, tenantID, userID int64, action, detail string) {
	e := AuditEntry{TenantID: &tenantID, Action: action, Detail: detail, CreatedAt: s.clock.Now()}
	if userID != 0 {
		e.UserID = &userID
	}
	if err := s.audit.Audit(ctx, e); err != nil {
		s.log.Warn("audit failed", "action", action, "err", err)
	}
}
