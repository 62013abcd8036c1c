package core

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// AttendanceKind is where a member stands with a drop's attendance.
type AttendanceKind int

// Standings of a member, for the claim check.
const (
	// AttendanceNoSession: the drop has no session; attendance does not
	// restrict its claim.
	AttendanceNoSession AttendanceKind = iota
	// AttendancePending: the drop's sessions are waiting or open; none
	// has stopped yet.
	AttendancePending
	// AttendanceCounted: the member met the minimum of a stopped session.
	AttendanceCounted
	// AttendanceNotCounted: the drop has stopped sessions and the member
	// met the minimum of none (Seconds and Required of their best one).
	AttendanceNotCounted
)

// AttendanceStanding is a member's standing with a drop's attendance.
type AttendanceStanding struct {
	Kind AttendanceKind
	// SessionID is the session the standing comes from: the one counted,
	// or the member's best.
	SessionID int64
	// Seconds is the member's time in that session, Required its minimum.
	Seconds  int64
	Required time.Duration
	// LeftServer says the member left the server during the session.
	LeftServer bool
	// ChannelName names that session's channel, "" when unknown.
	ChannelName string
}

// Attendance says where a member stands with a drop's attendance; the
// AttendanceService does, and DropService.Claim asks it.
type Attendance interface {
	Attended(ctx context.Context, dropID, userID int64) (AttendanceStanding, error)
}

// Errors of a claim refused for attendance, inside an *AttendanceError.
var (
	// ErrNotAttended means the drop has stopped attendance sessions and
	// the member met the minimum of none.
	ErrNotAttended = errors.New("not counted in the drop's attendance")
	// ErrAttendanceLeftServer means the member left the server during the
	// session, and so was not counted.
	ErrAttendanceLeftServer = errors.New("left the server during the attendance session")
	// ErrAttendancePending means the drop's sessions have not stopped
	// yet: who attended is not known.
	ErrAttendancePending = errors.New("the attendance is still being counted")
)

// AttendanceError is a claim refused for attendance, with the member's
// standing (their minutes, the minimum, the channel).
type AttendanceError struct {
	Standing AttendanceStanding
	Err      error
}

func (e *AttendanceError) Error() string {
	return fmt.Sprintf("%v: %d of %d seconds", e.Err, e.Standing.Seconds, int64(e.Standing.Required/time.Second))
}

// Unwrap returns the sentinel.
func (e *AttendanceError) Unwrap() error { return e.Err }

// Attended says whether the member is eligible for the drop by
// attendance: counted in a stopped session, or not (with their best
// minutes and that session's minimum, for "you were not counted: 12 of 30
// minutes"), or the drop has no session, or none has stopped yet. It
// returns the store's error.
func (s *AttendanceService) Attended(ctx context.Context, dropID, userID int64) (AttendanceStanding, error) {
	records, err := s.store.DropAttendance(ctx, dropID, userID)
	if err != nil {
		return AttendanceStanding{}, wrap("attended", err)
	}
	if len(records) == 0 {
		return AttendanceStanding{Kind: AttendanceNoSession}, nil
	}
	var best *AttendanceStanding
	for _, r := range records {
		if r.Session.State != AttendanceClosed || r.Session.StartedAt == nil {
			continue
		}
		st := AttendanceStanding{Kind: AttendanceNotCounted, SessionID: r.Session.ID, Required: r.Session.Required,
			ChannelName: r.Session.ChannelName}
		if r.Result != nil {
			st.Seconds, st.LeftServer = r.Result.Seconds, r.Result.LeftServer
			if r.Result.Eligible {
				st.Kind = AttendanceCounted
				return st, nil
			}
		}
		if best == nil || better(st, *best) {
			best = &st
		}
	}
	if best == nil {
		return AttendanceStanding{Kind: AttendancePending}, nil
	}
	return *best, nil
}

// better reports whether a is the standing to show rather than b: more
// seconds, or as many with a smaller minimum.
func better(a, b AttendanceStanding) bool {
	if a.Seconds != b.Seconds {
		return a.Seconds > b.Seconds
	}
	return a.Required < b.Required
}

// AttendancePage is a page of a session's members and their time.
type AttendancePage struct {
	Session AttendanceSession
	// Results are the page's members, most time first; for an open
	// session counted up to now (Eligible as if it stopped now).
	Results []AttendanceResult
	// Total counts the session's members.
	Total int
}

// Members returns a page of the place's session's members with their time
// (/attendance list): stored results once it stopped, a count up to now
// while it is open. Errors: ErrNoAttendanceSession for a session of
// another place or none; the store's error.
func (s *AttendanceService) Members(ctx context.Context, p Place, sessionID int64, offset, limit int) (AttendancePage, error) {
	const op = "attendance members"
	sess, err := s.placeSession(ctx, p, sessionID)
	if err != nil {
		return AttendancePage{}, wrap(op, err)
	}
	offset, limit = max(offset, 0), max(limit, 1)
	switch sess.State {
	case AttendanceClosed:
		results, total, err := s.store.AttendanceResults(ctx, sess.ID, offset, limit)
		if err != nil {
			return AttendancePage{}, wrap(op, err)
		}
		return AttendancePage{Session: sess, Results: results, Total: total}, nil
	case AttendanceWaiting:
		return AttendancePage{Session: sess}, nil
	}
	intervals, err := s.store.AttendanceIntervals(ctx, sess.ID)
	if err != nil {
		return AttendancePage{}, wrap(op, err)
	}
	now := s.clock.Now()
	all := tallyAt(now)(sess, intervals, nil)
	slices.SortFunc(all, func(a, b AttendanceResult) int {
		return cmp.Or(cmp.Compare(b.Seconds, a.Seconds), cmp.Compare(a.UserID, b.UserID))
	})
	page := all[min(offset, len(all)):min(offset+limit, len(all))]
	for i := range page {
		if u, err := s.members.UserByID(ctx, page[i].UserID); err == nil {
			page[i].Name = u.Name
		}
	}
	return AttendancePage{Session: sess, Results: page, Total: len(all)}, nil
}

// Export lists the place's stopped session's results with pseudonymous
// member ids (/attendance export); the moderator is audited. Errors:
// ErrNoAttendanceSession, ErrAttendanceOpen while it is not stopped, the
// store's error.
func (s *AttendanceService) Export(ctx context.Context, moderator Member, p Place, sessionID int64) (AttendanceSession, []AttendanceExportRow, error) {
	const op = "attendance export"
	sess, err := s.placeSession(ctx, p, sessionID)
	if err != nil {
		return AttendanceSession{}, nil, wrap(op, err)
	}
	if sess.State != AttendanceClosed {
		return AttendanceSession{}, nil, fmt.Errorf("%s: session %d: %w", op, sess.ID, ErrAttendanceOpen)
	}
	rows, err := s.store.ExportAttendance(ctx, sess.ID)
	if err != nil {
		return AttendanceSession{}, nil, wrap(op, err)
	}
	mod, err := s.members.UpsertUser(ctx, moderator.user())
	if err != nil {
		s.log.Warn("attendance export: moderator not stored", "err", err)
	}
	s.appendAudit(ctx, s.audit, sess.PlaceID, mod.ID, AuditAttendanceExported, fmt.Sprintf("session %d, %d rows", sess.ID, len(rows)))
	return sess, rows, nil
}

// Sessions lists the place's latest sessions, newest first, at most
// limit. It returns the store's error.
func (s *AttendanceService) Sessions(ctx context.Context, p Place, limit int) ([]AttendanceSession, error) {
	pid, err := s.placeID(ctx, p)
	if err != nil {
		return nil, wrap("attendance sessions", err)
	}
	out, err := s.store.AttendanceSessions(ctx, pid, max(limit, 1))
	return out, wrapNil("attendance sessions", err)
}

// placeSession returns the session when it belongs to the place; else
// ErrNoAttendanceSession.
func (s *AttendanceService) placeSession(ctx context.Context, p Place, id int64) (AttendanceSession, error) {
	pid, err := s.placeID(ctx, p)
	if err != nil {
		return AttendanceSession{}, err
	}
	sess, err := s.store.AttendanceSession(ctx, id)
	switch {
	case errors.Is(err, ErrNotFound) || (err == nil && sess.PlaceID != pid):
		return AttendanceSession{}, fmt.Errorf("session %d: %w", id, ErrNoAttendanceSession)
	case err != nil:
		return AttendanceSession{}, err
	}
	return sess, nil
}
