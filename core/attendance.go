package core

import (
	"context"
	"errors"
	"log/slog"
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
	base
	members MemberStore
	drops   AttendanceDrops
	store   AttendanceStore
	audit   AuditLog
	max     time.Duration

	mu sync.Mutex
	// places caches place ids by platform and external id: they never
	// change, and a voice event should not write its place again.
	places map[Place]int64
	// followed are the sessions this process follows (opened or resumed
	// here): only they get heartbeats, so that a restart's downtime stays
	// visible until Resume has closed its stretches.
	followed map[int64]bool
	// users caches user ids and names by member (MaxAttendanceUsers at most), so
	// that a voice event does not write its member again.
	users userCache
	// opened hints which places have open sessions (mayBeOpen).
	opened map[int64]bool
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
		base: newBase(d.Clock, d.Logger, nil), members: d.Members, drops: d.Drops, store: d.Store, audit: d.Audit,
		max: d.MaxLength, places: map[Place]int64{}, followed: map[int64]bool{},
		users: userCache{max: MaxAttendanceUsers, ids: map[userKey]cachedUser{}}, opened: map[int64]bool{},
	}
	if s.max <= 0 {
		s.max = DefaultAttendanceMaxLength
	}
	return s, nil
}

// Errors of attendance (AttendanceService).
var (
	// ErrAttendanceMinimum means the minimum is zero, more than 100 %, or
	// more minutes than a session lasts (see MinimumError).
	ErrAttendanceMinimum = errors.New("invalid attendance minimum")
	// ErrAttendanceChannelBusy means a session is already open in the
	// channel: one per channel.
	ErrAttendanceChannelBusy = errors.New("a session is already open in the channel")
	// ErrAttendanceChannel means a channel or scheduled event id is
	// missing or longer than MaxAttendanceID characters: not one the
	// platform gave.
	ErrAttendanceChannel = errors.New("not a channel or scheduled event id")
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

// Audit actions of attendance.
const (
	AuditAttendanceStarted  = "attendance started"
	AuditAttendanceStopped  = "attendance stopped"
	AuditAttendanceExported = "attendance exported"
)

// placeID returns the place's id, creating the place the first
// time.
func (s *AttendanceService) placeID(ctx context.Context, p Place) (int64, error) {
	key := Place{Platform: p.Platform, ExternalID: p.ExternalID}
	s.mu.Lock()
	id, ok := s.places[key]
	s.mu.Unlock()
	if ok {
		return id, nil
	}
	t, err := s.members.UpsertPlace(ctx, p.stored())
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	s.places[key] = t.ID
	s.mu.Unlock()
	return t.ID, nil
}

// follow marks the session as followed by this process, for Heartbeat;
// on false, as no longer followed (it stopped).
func (s *AttendanceService) follow(sessionID int64, on bool) { s.mark(s.followed, sessionID, on) }

// mark sets id in the set (followed, opened) when on, else takes it out.
func (s *AttendanceService) mark(set map[int64]bool, id int64, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		set[id] = true
	} else {
		delete(set, id)
	}
}

// following reports whether this process follows the session.
func (s *AttendanceService) following(sessionID int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.followed[sessionID]
}
