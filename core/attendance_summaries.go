package core

import (
	"context"
	"crypto/rand"
	"errors"
	"time"
)

// AttendanceSummaryStore keeps which summaries of stopped sessions are
// owed, and who holds each, so that one process at a
// time tells a summary, across replicas and restarts, and one that cannot
// be told is tried a bounded number of times; it is part of
// AttendanceStore.
type AttendanceSummaryStore interface {
	// OwedAttendanceSummaries lists the closed sessions, stopped between
	// from and to, of places on one of platforms,
	// whose summary is not out, not held past now, and tried fewer than
	// maxAttempts times; the least tried first, then the oldest, at most
	// limit.
	OwedAttendanceSummaries(ctx context.Context, from, to, now time.Time, platforms []Platform, maxAttempts, limit int) ([]AttendanceSession, error)
	// ClaimAttendanceSummary takes on the closed session's summary until
	// until under token, counting a try, when it is not out, not held
	// past now and tried fewer than maxAttempts times: ok for the one
	// caller that took it, with the try's number (1 for the first).
	ClaimAttendanceSummary(ctx context.Context, id int64, now, until time.Time, token string, maxAttempts int) (attempt int, ok bool, err error)
	// MarkAttendanceSummary records that the summary is out, at at,
	// whoever holds it; a summary marked already keeps its first time.
	MarkAttendanceSummary(ctx context.Context, id int64, at time.Time) error
	// ReleaseAttendanceSummary gives up the hold taken under token on a
	// summary still owed, and the try it counted; it changes nothing when
	// another claim holds it now.
	ReleaseAttendanceSummary(ctx context.Context, id int64, token string) error
	// DeferAttendanceSummary turns the hold taken under token on a summary
	// still owed into a wait until until, the try counted; it changes
	// nothing when another claim holds it now.
	DeferAttendanceSummary(ctx context.Context, id int64, token string, until time.Time) error
	// AttendanceCounts returns how many members of the closed session
	// were credited with any time, and how many are eligible.
	AttendanceCounts(ctx context.Context, id int64) (attended, eligible int, err error)
}

// AttendanceSummaryLease is how long the process that took on a summary
// (ClaimSummary) holds it: minting to the eligible members and posting
// fit in it. A process that died holding it leaves it to the next one
// after that.
const AttendanceSummaryLease = 10 * time.Minute

// AttendanceSummaryAttempts is how many times a summary is tried (claimed)
// at most: one not told by then is given up.
const AttendanceSummaryAttempts = 10

// Bounds of the summaries owed (OwedSummaries) and of their tries.
const (
	// summaryGrace is how long after its stop a session's summary may be
	// taken for owed: the stop that posts its own (a moderator's, or a
	// start that found its event over) claims it within it.
	summaryGrace = time.Minute
	// summaryRetention is how old a stop whose summary is still owed may
	// be: a summary that could not be told for a week is given up.
	summaryRetention = 7 * 24 * time.Hour
	// summaryBatch is the most summaries owed read at once.
	summaryBatch = 50
	// summaryMaxBackoff is the longest wait after a failed try.
	summaryMaxBackoff = 6 * time.Hour
)

// SummaryClaim is the hold ClaimSummary took on a session's summary.
type SummaryClaim struct {
	SessionID int64
	// Attempt is the try's number, 1 for the first.
	Attempt int
	// token names the claim: only its holder releases or defers it.
	token string
}

// OwedSummaries returns the summaries still owed of stopped sessions, in
// places on one of platforms (those this process can post to): the process
// that stopped one died before telling it, or could not tell it (a
// moderator's stop whose reply's post was not published, too). Those tried
// least come first, so that summaries failing again and again do not hold
// back the others. Each is rebuilt from the stored session and results;
// ClaimSummary decides who tells it. It returns the store's error.
func (s *AttendanceService) OwedSummaries(ctx context.Context, platforms ...Platform) ([]AttendanceSummary, error) {
	const op = "owed attendance summaries"
	if len(platforms) == 0 {
		return nil, nil
	}
	now := s.clock.Now()
	sessions, err := s.store.OwedAttendanceSummaries(ctx, now.Add(-summaryRetention), now.Add(-summaryGrace), now,
		platforms, AttendanceSummaryAttempts, summaryBatch)
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
// AttendanceSummaryLease, a try counted: true, with the claim, for the
// one process that took it; false when it is out already, another
// process holds it, it waits after a failed try, or it was tried
// AttendanceSummaryAttempts times. It returns the store's error.
func (s *AttendanceService) ClaimSummary(ctx context.Context, sessionID int64) (SummaryClaim, bool, error) {
	now := s.clock.Now()
	token := rand.Text()
	attempt, ok, err := s.store.ClaimAttendanceSummary(ctx, sessionID, now, now.Add(AttendanceSummaryLease), token, AttendanceSummaryAttempts)
	if err != nil {
		return SummaryClaim{}, false, wrap("claim attendance summary", err)
	}
	if !ok {
		return SummaryClaim{}, false, nil
	}
	return SummaryClaim{SessionID: sessionID, Attempt: attempt, token: token}, true, nil
}

// SummaryTold records that the session's summary is out (its post published,
// or told as a notice): it is owed no more, whoever holds it. It returns the
// store's error.
func (s *AttendanceService) SummaryTold(ctx context.Context, sessionID int64) error {
	return wrapNil("attendance summary told", s.store.MarkAttendanceSummary(ctx, sessionID, s.clock.Now()))
}

// ReleaseSummary gives up the claim on a summary this process does not
// try (it cannot post to its place), the try uncounted, so that another
// process may take it at once. A claim that ran out and was taken over
// is left to its new holder. It returns the store's error.
func (s *AttendanceService) ReleaseSummary(ctx context.Context, c SummaryClaim) error {
	err := s.store.ReleaseAttendanceSummary(ctx, c.SessionID, c.token)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return wrapNil("release attendance summary", err)
}

// SummaryFailed records that the claimed summary could not be told: it
// waits, the longer the more it was tried (the try's number squared, in
// minutes, at most summaryMaxBackoff), before the next try, and it is
// given up after AttendanceSummaryAttempts tries; gaveUp reports that
// this was the last. A claim that ran out and was taken over is left to
// its new holder. It returns the store's error.
func (s *AttendanceService) SummaryFailed(ctx context.Context, c SummaryClaim) (gaveUp bool, err error) {
	wait := min(time.Duration(c.Attempt*c.Attempt)*time.Minute, summaryMaxBackoff)
	err = s.store.DeferAttendanceSummary(ctx, c.SessionID, c.token, s.clock.Now().Add(wait))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return false, wrap("attendance summary failed", err)
	}
	return c.Attempt >= AttendanceSummaryAttempts, nil
}
