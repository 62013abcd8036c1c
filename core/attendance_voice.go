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
// channel is a channel like any other (its audience counts). A member seen
// before costs one transaction; a place with no open session costs one
// read and stores nothing of the member (after one transaction, when the
// session stopped in another process). It returns the store's error.
func (s *AttendanceService) Observe(ctx context.Context, p Place, v VoiceState) error {
	const op = "observe voice"
	if v.Bot {
		return nil
	}
	pid, open, err := s.openPlace(ctx, p)
	if err != nil || !open {
		return wrapNil(op, err)
	}
	at := v.At
	if at.IsZero() {
		at = s.clock.Now()
	}
	err = s.recordVoice(ctx, pid, v.Member, v.ChannelID, v.counting(), at)
	if errors.Is(err, ErrNotFound) {
		s.hintOpen(pid, false) // stopped meanwhile, here or elsewhere
		return nil
	}
	return wrapNil(op, err)
}

// MemberLeft records that a member left the place's server at at (zero:
// now): their stretches close, and they are not eligible at the stop of
// the open sessions they attended. It returns the store's error.
func (s *AttendanceService) MemberLeft(ctx context.Context, p Place, m Member, at time.Time) error {
	const op = "member left"
	pid, open, err := s.openPlace(ctx, p)
	if err != nil || !open {
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
	ids := make([]int64, 0, len(s.followed))
	for id := range s.followed {
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
	pid, live, err := s.liveSessions(ctx, p)
	if err != nil {
		return nil, wrap(op, err)
	}
	now := s.clock.Now()
	var out []AttendanceSummary
	for _, sess := range openOnly(live) {
		if !now.Before(sess.deadline()) {
			if out, err = s.expire(ctx, out, sess, true); err != nil {
				return out, wrap(op, err)
			}
			continue
		}
		var present []int64
		var resumed AttendanceSession
		err := s.retryForgotten(members(current), func() error {
			var err error
			if present, err = s.presentIn(ctx, sess, current); err != nil {
				return err
			}
			resumed, err = s.store.ResumeAttendance(ctx, sess.ID, now, present)
			return err
		})
		if errors.Is(err, ErrNotFound) {
			continue // stopped meanwhile
		}
		if err != nil {
			return out, wrap(op, err)
		}
		s.follow(resumed.ID, true)
		s.hintOpen(pid, true)
		s.log.Info("attendance resumed", "session", sess.ID, "downtime", resumed.Downtime, "present", len(present))
	}
	return out, nil
}

// presentIn returns the user ids of the members of current who count in
// the session's channel.
func (s *AttendanceService) presentIn(ctx context.Context, sess AttendanceSession, current []VoiceState) ([]int64, error) {
	var present []int64
	for _, v := range current {
		if !v.counting() || v.ChannelID != sess.ChannelID {
			continue
		}
		id, err := s.userID(ctx, v.Member)
		if err != nil {
			return nil, err
		}
		present = append(present, id)
	}
	return present, nil
}

// members returns the members of the voice states.
func members(states []VoiceState) []Member {
	out := make([]Member, len(states))
	for i, v := range states {
		out[i] = v.Member
	}
	return out
}

// Suspend stops counting the place's open sessions at at, when the bot
// loses its view of the place's voice (the Discord gateway dropped, or the
// server became unavailable, while the process runs): heartbeats stop,
// each one's stretches close at at (at its last heartbeat, when that was
// earlier), and the time from its last heartbeat to at is added to its
// downtime; a heartbeat that came after at is undone, since the view was
// lost then. Resume, once the view is back, adds the time from at as
// downtime too and counts who is there from then. A member who left
// meanwhile is credited with none of it, and the summary tells it. It
// returns the store's error.
func (s *AttendanceService) Suspend(ctx context.Context, p Place, at time.Time) error {
	const op = "suspend attendance"
	_, live, err := s.liveSessions(ctx, p)
	if err != nil {
		return wrap(op, err)
	}
	for _, sess := range openOnly(live) {
		s.follow(sess.ID, false)
		suspended, err := s.store.SuspendAttendance(ctx, sess.ID, at)
		if errors.Is(err, ErrNotFound) {
			continue // stopped meanwhile
		}
		if err != nil {
			return wrap(op, err)
		}
		s.log.Info("attendance suspended", "session", sess.ID, "downtime", suspended.Downtime)
	}
	return nil
}

// expire stops the open session at its maximum length and appends its
// summary to out; when resume is true (nobody in this process followed
// it), its stretches first close at its last heartbeat, the time since
// being downtime. A session another stop came first for adds nothing.
func (s *AttendanceService) expire(ctx context.Context, out []AttendanceSummary, sess AttendanceSession, resume bool) ([]AttendanceSummary, error) {
	end := sess.deadline()
	if resume {
		var err error
		if sess, err = s.store.ResumeAttendance(ctx, sess.ID, end, nil); errors.Is(err, ErrNotFound) {
			return out, nil
		} else if err != nil {
			return out, err
		}
		s.log.Info("attendance expired while nobody followed it: closed at its last heartbeat", "session", sess.ID, "downtime", sess.Downtime)
	}
	sum, err := s.stop(ctx, sess, end, StopAtMaxLength)
	if errors.Is(err, ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	return append(out, sum), nil
}

// deadline is when the session reaches its maximum length; zero while it
// waits.
func (sess AttendanceSession) deadline() time.Time {
	if sess.StartedAt == nil {
		return time.Time{}
	}
	return sess.StartedAt.Add(sess.MaxLength)
}

// liveSessions returns the place's id and its waiting and open sessions.
func (s *AttendanceService) liveSessions(ctx context.Context, p Place) (int64, []AttendanceSession, error) {
	pid, err := s.placeID(ctx, p)
	if err != nil {
		return 0, nil, err
	}
	live, err := s.store.LiveAttendanceSessions(ctx, pid)
	return pid, live, err
}

// openSessionsOf returns the open sessions of the place pid.
func (s *AttendanceService) openSessionsOf(ctx context.Context, pid int64) ([]AttendanceSession, error) {
	live, err := s.store.LiveAttendanceSessions(ctx, pid)
	return openOnly(live), err
}

// openOnly keeps the open sessions of live, in place.
func openOnly(live []AttendanceSession) []AttendanceSession {
	open := live[:0]
	for _, sess := range live {
		if sess.State == AttendanceOpen {
			open = append(open, sess)
		}
	}
	return open
}

// wrapNil is wrap, nil for a nil error.
func wrapNil(op string, err error) error {
	if err == nil {
		return nil
	}
	return wrap(op, err)
}
