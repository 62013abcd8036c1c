package core

import (
	"context"
	"errors"
	"time"
)

// AttendanceSummaryStore keeps which summaries of sessions that stopped
// by themselves are owed, so that each is told once across replicas and
// restarts; it is part of AttendanceStore.
type AttendanceSummaryStore interface {
	// OwedAttendanceSummaries lists the closed sessions, stopped between
	// from and to and not by a moderator, whose summary is not out and
	// not held by a process past now; oldest first, at most limit.
	OwedAttendanceSummaries(ctx context.Context, from, to, now time.Time, limit int) ([]AttendanceSession, error)
	// ClaimAttendanceSummary takes on the closed session's summary until
	// until: true for the one caller that took it, false when it is out
	// or held by another past now.
	ClaimAttendanceSummary(ctx context.Context, id int64, now, until time.Time) (bool, error)
	// MarkAttendanceSummary records that the summary is out, at at.
	MarkAttendanceSummary(ctx context.Context, id int64, at time.Time) error
	// ReleaseAttendanceSummary gives up the hold on a summary still owed.
	ReleaseAttendanceSummary(ctx context.Context, id int64) error
	// AttendanceCounts returns how many members of the closed session
	// were credited with any time, and how many are eligible.
	AttendanceCounts(ctx context.Context, id int64) (attended, eligible int, err error)
}

// AttendanceSummaryLease is how long the process that took on a summary
// (ClaimSummary) holds it: minting to the eligible members and posting
// fit in it. A process that died holding it leaves it to the next one
// after that.
const AttendanceSummaryLease = 10 * time.Minute

// Bounds of the summaries owed (OwedSummaries).
const (
	// summaryGrace is how long after its stop a session's summary may be
	// taken for owed: the stop that posts its own (a moderator's, or a
	// start that found its event over) marks it within it.
	summaryGrace = time.Minute
	// summaryRetention is how old a stop whose summary is still owed may
	// be: a summary that could not be told for a week is given up.
	summaryRetention = 7 * 24 * time.Hour
	// summaryBatch is the most summaries owed read at once.
	summaryBatch = 50
)

// OwedSummaries returns the summaries still owed of sessions that stopped
// by themselves: the process that stopped one died before telling it, or
// could not tell it. Each is rebuilt from the stored session and results;
// ClaimSummary decides who tells it. It returns the store's error.
func (s *AttendanceService) OwedSummaries(ctx context.Context) ([]AttendanceSummary, error) {
	const op = "owed attendance summaries"
	now := s.clock.Now()
	sessions, err := s.store.OwedAttendanceSummaries(ctx, now.Add(-summaryRetention), now.Add(-summaryGrace), now, summaryBatch)
	if err != nil {
		return nil, wrap(op, err)
	}
	out := make([]AttendanceSummary, 0, len(sessions))
	for _, sess := range sessions {
		sum := AttendanceSummary{Session: sess}
		if sum.Attended, sum.Eligible, err = s.store.AttendanceCounts(ctx, sess.ID); err != nil {
			return out, wrap(op, err)
		}
		if sum.Place, err = s.store.AttendancePlace(ctx, sess.PlaceID); err != nil {
			return out, wrap(op, err)
		}
		if sess.StartedAt != nil && sess.StoppedAt != nil {
			sum.Length = min(sess.StoppedAt.Sub(*sess.StartedAt), sess.MaxLength)
			sum.Counted = counted(sess, *sess.StoppedAt)
		}
		out = append(out, sum)
	}
	return out, nil
}

// ClaimSummary takes on telling the stopped session's summary for
// AttendanceSummaryLease: true for the one process that took it; false
// when it is out already or another process holds it. It returns the
// store's error.
func (s *AttendanceService) ClaimSummary(ctx context.Context, sessionID int64) (bool, error) {
	now := s.clock.Now()
	ok, err := s.store.ClaimAttendanceSummary(ctx, sessionID, now, now.Add(AttendanceSummaryLease))
	if err != nil {
		return false, wrap("claim attendance summary", err)
	}
	return ok, nil
}

// SummaryTold records that the session's summary is out (published, or
// told as a notice), or that the stop posts its own (a moderator's): it
// is owed no more. It returns the store's error.
func (s *AttendanceService) SummaryTold(ctx context.Context, sessionID int64) error {
	return wrapNil("attendance summary told", s.store.MarkAttendanceSummary(ctx, sessionID, s.clock.Now()))
}

// ReleaseSummary gives up the hold of ClaimSummary on a summary that
// could not be told, so that the next try (the next start, the next
// turn) need not wait for the lease to run out. It returns the store's
// error.
func (s *AttendanceService) ReleaseSummary(ctx context.Context, sessionID int64) error {
	err := s.store.ReleaseAttendanceSummary(ctx, sessionID)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return wrapNil("release attendance summary", err)
}
