package core

import (
	"cmp"
	"slices"
	"time"
)

// counted is how long the session counted attendance: its length, at most
// its maximum, less the bot's downtime.
func counted(s AttendanceSession, stop time.Time) time.Duration {
	if s.StartedAt == nil {
		return 0
	}
	length := min(stop.Sub(*s.StartedAt), s.MaxLength)
	return max(length-s.Downtime, 0)
}

// requiredFor returns the session's minimum as time when it stops at
// stop.
func requiredFor(stop time.Time) func(AttendanceSession) time.Duration {
	return func(s AttendanceSession) time.Duration {
		return s.Minimum.required(counted(s, stop))
	}
}

// tallyAt returns the tally of a session stopped at stop: each member's
// stretches merged (reconnects and overlaps count once), clipped to the
// session's time, capped at its length and compared with its minimum;
// members who left the server are not eligible. Results are ordered by
// user id.
func tallyAt(stop time.Time) AttendanceTally {
	return func(s AttendanceSession, intervals []AttendanceInterval, departed map[int64]bool) []AttendanceResult {
		if s.StartedAt == nil {
			return nil
		}
		start := *s.StartedAt
		end := stop
		if limit := start.Add(s.MaxLength); end.After(limit) {
			end = limit
		}
		required := s.Minimum.required(counted(s, stop))
		byUser := map[int64][]span{}
		for _, iv := range intervals {
			from, to := iv.JoinedAt, end
			if iv.LeftAt != nil && iv.LeftAt.Before(to) {
				to = *iv.LeftAt
			}
			if from.Before(start) {
				from = start
			}
			byUser[iv.UserID] = append(byUser[iv.UserID], span{from, to})
		}
		out := make([]AttendanceResult, 0, len(byUser))
		for user, spans := range byUser {
			credited := min(merged(spans), end.Sub(start))
			secs := int64(credited / time.Second)
			left := departed[user]
			out = append(out, AttendanceResult{
				SessionID: s.ID, UserID: user, Seconds: secs, LeftServer: left,
				Eligible: !left && secs > 0 && time.Duration(secs)*time.Second >= required,
			})
		}
		slices.SortFunc(out, func(a, b AttendanceResult) int { return cmp.Compare(a.UserID, b.UserID) })
		return out
	}
}

// span is a stretch of time; empty when to is not after from.
type span struct{ from, to time.Time }

// merged returns the time the spans cover, overlaps counted once.
func merged(spans []span) time.Duration {
	slices.SortFunc(spans, func(a, b span) int { return a.from.Compare(b.from) })
	var total time.Duration
	var cur span
	open := false
	for _, sp := range spans {
		if !sp.to.After(sp.from) {
			continue
		}
		switch {
		case !open:
			cur, open = sp, true
		case !sp.from.After(cur.to):
			if sp.to.After(cur.to) {
				cur.to = sp.to
			}
		default:
			total += cur.to.Sub(cur.from)
			cur = sp
		}
	}
	if open {
		total += cur.to.Sub(cur.from)
	}
	return total
}
