package core

import (
	"context"
	"errors"
	"time"
)

// Observe records a member's voice state in the place: in a session's
// channel and not deafened, a stretch of attendance opens (unless one is
// open); leaving voice, moving to another channel or deafening closes it.
// Reconnects and moves are merged at the stop; bots never count; a stage
// channel is a channel like any other (its audience counts). A place with
// no open session costs one read. It returns the store's error.
func (s *AttendanceService) Observe(ctx context.Context, p Place, v VoiceState) error {
	const op = "observe voice"
	if v.Bot {
		return nil
	}
	pid, open, err := s.openSessions(ctx, p)
	if err != nil || len(open) == 0 {
		return wrapNil(op, err)
	}
	u, err := s.members.UpsertUser(ctx, v.Member.user())
	if err != nil {
		return wrap(op, err)
	}
	at := v.At
	if at.IsZero() {
		at = s.clock.Now()
	}
	return wrapNil(op, s.store.RecordVoice(ctx, pid, u.ID, v.ChannelID, v.counting(), at))
}

// MemberLeft records that a member left the place's server at at (zero:
// now): their stretches close, and they are not eligible at the stop of
// the open sessions they attended. It returns the store's error.
func (s *AttendanceService) MemberLeft(ctx context.Context, p Place, m Member, at time.Time) error {
	const op = "member left"
	pid, open, err := s.openSessions(ctx, p)
	if err != nil || len(open) == 0 {
		return wrapNil(op, err)
	}
	u, err := s.members.FindUser(ctx, m.Platform, m.ExternalID)
	if errors.Is(err, ErrNotFound) {
		return nil // never seen: attended nothing
	}
	if err != nil {
		return wrap(op, err)
	}
	if at.IsZero() {
		at = s.clock.Now()
	}
	return wrapNil(op, s.store.RecordDeparture(ctx, pid, u.ID, at))
}

// Heartbeat stamps the open sessions this process follows (opened or
// resumed here) as seen at now; the bot's loop calls it every
// AttendanceHeartbeatEvery. A restart's downtime runs from the last stamp.
func (s *AttendanceService) Heartbeat(ctx context.Context, now time.Time) error {
	s.mu.Lock()
	ids := make([]int64, 0, len(s.live))
	for id := range s.live {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	if len(ids) == 0 {
		return nil
	}
	return wrapNil("attendance heartbeat", s.store.TouchAttendance(ctx, ids, now))
}

// Resume takes up the place's open sessions after the bot was down (or
// lost its gateway): each one's stretches close at its last heartbeat,
// the time since is added to its downtime (credited to nobody), and the
// members in its channel now (current, from GUILD_CREATE's voice_states)
// are counted from now. A session that reached its maximum length while
// the bot was down stops at that length; its summary is returned. Each
// session gets heartbeats once it is resumed, never before: a heartbeat
// landing between the start of Resume and its session's resume would
// hide the downtime. It returns the store's error.
func (s *AttendanceService) Resume(ctx context.Context, p Place, current []VoiceState) ([]AttendanceSummary, error) {
	const op = "resume attendance"
	_, open, err := s.openSessions(ctx, p)
	if err != nil {
		return nil, wrap(op, err)
	}
	now := s.clock.Now()
	users := map[string]int64{}
	var out []AttendanceSummary
	for _, sess := range open {
		end := sess.StartedAt.Add(sess.MaxLength)
		expired := !now.Before(end)
		if !expired {
			end = now
		}
		var present []int64
		for _, v := range current {
			if expired || !v.counting() || v.ChannelID != sess.ChannelID {
				continue
			}
			id, err := s.userID(ctx, users, v.Member)
			if err != nil {
				return out, wrap(op, err)
			}
			present = append(present, id)
		}
		resumed, err := s.store.ResumeAttendance(ctx, sess.ID, end, present)
		if errors.Is(err, ErrNotFound) {
			continue // stopped meanwhile
		}
		if err != nil {
			return out, wrap(op, err)
		}
		s.follow(resumed.ID, true)
		s.log.Info("attendance resumed", "session", sess.ID, "downtime", resumed.Downtime, "present", len(present))
		if expired {
			sum, err := s.stop(ctx, resumed, end, StopAtMaxLength)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return out, wrap(op, err)
			}
			if err == nil {
				out = append(out, sum)
			}
		}
	}
	return out, nil
}

// openSessions returns the place's id and its open sessions.
func (s *AttendanceService) openSessions(ctx context.Context, p Place) (int64, []AttendanceSession, error) {
	pid, err := s.placeID(ctx, p)
	if err != nil {
		return 0, nil, err
	}
	live, err := s.store.LiveAttendanceSessions(ctx, pid)
	if err != nil {
		return 0, nil, err
	}
	open := live[:0]
	for _, sess := range live {
		if sess.State == AttendanceOpen {
			open = append(open, sess)
		}
	}
	return pid, open, nil
}

// userID returns the member's user id, upserting them once per call
// (seen caches it).
func (s *AttendanceService) userID(ctx context.Context, seen map[string]int64, m Member) (int64, error) {
	if id, ok := seen[m.ExternalID]; ok {
		return id, nil
	}
	u, err := s.members.UpsertUser(ctx, m.user())
	if err != nil {
		return 0, err
	}
	seen[m.ExternalID] = u.ID
	return u.ID, nil
}

// wrapNil is wrap, nil for a nil error.
func wrapNil(op string, err error) error {
	if err == nil {
		return nil
	}
	return wrap(op, err)
}
