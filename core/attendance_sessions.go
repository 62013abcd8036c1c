package core

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// AttendanceStart is what /attendance start asks for.
type AttendanceStart struct {
	Moderator Member
	Place     Place
	// EventID names the place's drop.
	EventID int64
	// ChannelID and ChannelName are the voice or stage channel counted
	// (the scheduled event's channel for one).
	ChannelID   string
	ChannelName string
	// SummaryChannelID is where the command ran: the summary goes there.
	SummaryChannelID string
	// ScheduledEventID, when set, ties the session to that Discord
	// scheduled event: it opens when the event becomes active (at once
	// when EventActive) and stops when it completes or is cancelled.
	ScheduledEventID string
	EventActive      bool
	Minimum          AttendanceMinimum
}

// VoiceState is where a member is in voice, as a platform reports it.
type VoiceState struct {
	Member Member
	// ChannelID is the voice or stage channel they are in, "" when they
	// left voice.
	ChannelID string
	// Deafened is true when they deafened themselves or were deafened by
	// the server: they do not count.
	Deafened bool
	// Bot is true for bot accounts, which never count.
	Bot bool
	// At is when the state changed; zero is now.
	At time.Time
}

// counting reports whether the state counts in its channel.
func (v VoiceState) counting() bool { return v.ChannelID != "" && !v.Deafened && !v.Bot }

// ScheduledEventStatus is a Discord scheduled event's status.
type ScheduledEventStatus int

// Statuses of a scheduled event, Discord's numbers.
const (
	EventScheduled ScheduledEventStatus = 1
	EventActive    ScheduledEventStatus = 2
	EventCompleted ScheduledEventStatus = 3
	EventCanceled  ScheduledEventStatus = 4
)

// ScheduledEvent is a Discord scheduled event as it changed (created,
// updated or deleted: a deleted one is Canceled).
type ScheduledEvent struct {
	ID        string
	ChannelID string
	Status    ScheduledEventStatus
}

// AttendanceSummary is what the stop of a session tells the channel it
// was started in.
type AttendanceSummary struct {
	Session AttendanceSession
	// Place is the session's place, where SummaryChannelID is; zero when
	// it could not be read.
	Place Place
	// Attended counts the members credited with any time; Eligible those
	// who met the minimum (and did not leave the server).
	Attended int
	Eligible int
	// Length is how long the session lasted; Counted that less the bot's
	// downtime (Session.Downtime).
	Length  time.Duration
	Counted time.Duration
}

// EventChange is what a scheduled event's change did: a session opened,
// one stopped, or nothing (both nil).
type EventChange struct {
	Opened  *AttendanceSession
	Stopped *AttendanceSummary
}

// MaxAttendanceID is the longest channel or scheduled event id a session
// takes, in bytes.
const MaxAttendanceID = 64

// Start starts counting who attends the channel for the place's drop:
// open at once, with the members present (current, the channel's voice
// states) counted from now; or waiting on its scheduled event. The
// moderator is audited. Errors: a *MinimumError (ErrAttendanceMinimum);
// ErrNoSuchDrop or ErrDropRemoved; ErrAttendanceChannelBusy when a
// session is open in the channel; ErrAttendanceEventBusy when one follows
// the scheduled event; ErrAttendanceChannel for a channel or event id
// that is missing or too long; the store's error.
func (s *AttendanceService) Start(ctx context.Context, req AttendanceStart, current []VoiceState) (AttendanceSession, error) {
	const op = "start attendance"
	if err := req.Minimum.check(s.max); err != nil {
		return AttendanceSession{}, err
	}
	if req.ChannelID == "" || len(req.ChannelID) > MaxAttendanceID || len(req.ScheduledEventID) > MaxAttendanceID || len(req.SummaryChannelID) > MaxAttendanceID {
		return AttendanceSession{}, fmt.Errorf("%s: %w", op, ErrAttendanceChannel)
	}
	pid, err := s.placeID(ctx, req.Place)
	if err != nil {
		return AttendanceSession{}, wrap(op, err)
	}
	d, err := s.drops.DropByEvent(ctx, pid, req.EventID)
	switch {
	case errors.Is(err, ErrNotFound):
		return AttendanceSession{}, fmt.Errorf("%s: event %d: %w", op, req.EventID, ErrNoSuchDrop)
	case err != nil:
		return AttendanceSession{}, wrap(op, err)
	case d.RemovedAt != nil:
		return AttendanceSession{}, fmt.Errorf("%s: event %d: %w", op, req.EventID, ErrDropRemoved)
	}
	mod, err := s.members.UpsertUser(ctx, req.Moderator.user())
	if err != nil {
		return AttendanceSession{}, wrap(op, err)
	}
	now := s.clock.Now()
	sess := AttendanceSession{
		PlaceID: pid, DropID: d.ID, EventID: d.EventID, ChannelID: req.ChannelID, ChannelName: clip(req.ChannelName, 256),
		SummaryChannelID: req.SummaryChannelID, ScheduledEventID: req.ScheduledEventID, Minimum: req.Minimum,
		MaxLength: s.max, State: AttendanceOpen, StartedAt: &now, LastSeenAt: &now, StartedBy: mod.ID, CreatedAt: now,
	}
	if req.ScheduledEventID != "" && !req.EventActive {
		sess.State, sess.StartedAt, sess.LastSeenAt = AttendanceWaiting, nil, nil
	}
	sess, err = s.store.CreateAttendanceSession(ctx, sess)
	if err != nil {
		return AttendanceSession{}, s.busy(op, req.ScheduledEventID, err)
	}
	if sess.State == AttendanceOpen {
		s.follow(sess.ID, true)
		s.hintOpen(pid, true)
		if err := s.present(ctx, sess, current); err != nil {
			return sess, wrap(op, err)
		}
	}
	s.appendAudit(ctx, s.audit, pid, mod.ID, AuditAttendanceStarted, fmt.Sprintf("session %d, event %d, channel %s, minimum %s, %s",
		sess.ID, d.EventID, sess.ChannelID, sess.Minimum, sess.State))
	return sess, nil
}

// busy turns a store's ErrConflict on creating a session into what it
// means.
func (s *AttendanceService) busy(op, scheduledEventID string, err error) error {
	switch {
	case !errors.Is(err, ErrConflict):
		return wrap(op, err)
	case scheduledEventID != "":
		return fmt.Errorf("%s: %w (or %w)", op, ErrAttendanceEventBusy, ErrAttendanceChannelBusy)
	}
	return fmt.Errorf("%s: %w", op, ErrAttendanceChannelBusy)
}

// present opens stretches for the members of current who count in the
// session's channel, as of the session's start.
func (s *AttendanceService) present(ctx context.Context, sess AttendanceSession, current []VoiceState) error {
	for _, v := range current {
		if !v.counting() || v.ChannelID != sess.ChannelID {
			continue
		}
		err := s.recordVoice(ctx, sess.PlaceID, v.Member, v.ChannelID, true, *sess.StartedAt)
		if errors.Is(err, ErrNotFound) {
			return nil // stopped meanwhile
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// EventChanged follows a scheduled event of the place: a session waiting
// on it opens when it becomes active (current are its channel's voice
// states then), and the session following it stops when it completes or
// is cancelled (deleted). Errors: ErrAttendanceChannelBusy when the
// waiting session cannot open because another is open in its channel
// (it keeps waiting); the store's error.
func (s *AttendanceService) EventChanged(ctx context.Context, p Place, ev ScheduledEvent, current []VoiceState) (EventChange, error) {
	const op = "scheduled event"
	_, live, err := s.liveSessions(ctx, p)
	if err != nil {
		return EventChange{}, wrap(op, err)
	}
	for _, sess := range live {
		if sess.ScheduledEventID != ev.ID {
			continue
		}
		switch {
		case ev.Status == EventActive && sess.State == AttendanceWaiting:
			return s.openWaiting(ctx, sess, current)
		case ev.Status == EventCompleted || ev.Status == EventCanceled:
			reason := StopEventCompleted
			if ev.Status == EventCanceled {
				reason = StopEventCanceled
			}
			sum, err := s.stop(ctx, sess, s.clock.Now(), reason)
			if err != nil {
				return EventChange{}, wrap(op, err)
			}
			return EventChange{Stopped: &sum}, nil
		}
	}
	return EventChange{}, nil
}

// openWaiting opens a waiting session now and counts who is present.
func (s *AttendanceService) openWaiting(ctx context.Context, sess AttendanceSession, current []VoiceState) (EventChange, error) {
	const op = "open attendance"
	opened, err := s.store.OpenWaitingSession(ctx, sess.ID, s.clock.Now())
	switch {
	case errors.Is(err, ErrConflict):
		return EventChange{}, fmt.Errorf("%s: session %d: %w", op, sess.ID, ErrAttendanceChannelBusy)
	case errors.Is(err, ErrNotFound):
		return EventChange{}, nil // opened or stopped meanwhile
	case err != nil:
		return EventChange{}, wrap(op, err)
	}
	s.follow(opened.ID, true)
	s.hintOpen(opened.PlaceID, true)
	if err := s.present(ctx, opened, current); err != nil {
		return EventChange{}, wrap(op, err)
	}
	return EventChange{Opened: &opened}, nil
}

// Stop stops the place's session in the channel (channelID "" when only
// one is open or waiting) at a moderator's word, and returns its summary;
// the moderator is audited. Errors: ErrNoAttendanceSession,
// ErrAttendanceAmbiguous, the store's error.
func (s *AttendanceService) Stop(ctx context.Context, moderator Member, p Place, channelID string) (AttendanceSummary, error) {
	const op = "stop attendance"
	pid, live, err := s.liveSessions(ctx, p)
	if err != nil {
		return AttendanceSummary{}, wrap(op, err)
	}
	var found []AttendanceSession
	for _, sess := range live {
		if channelID == "" || sess.ChannelID == channelID {
			found = append(found, sess)
		}
	}
	switch {
	case len(found) == 0:
		return AttendanceSummary{}, fmt.Errorf("%s: %w", op, ErrNoAttendanceSession)
	case len(found) > 1:
		return AttendanceSummary{}, fmt.Errorf("%s: %w", op, ErrAttendanceAmbiguous)
	}
	sum, err := s.stop(ctx, found[0], s.clock.Now(), StopByModerator)
	if err != nil {
		return AttendanceSummary{}, wrap(op, err)
	}
	mod, err := s.members.UpsertUser(ctx, moderator.user())
	if err != nil {
		s.log.Warn("attendance stop: moderator not stored", "err", err)
	}
	s.appendAudit(ctx, s.audit, pid, mod.ID, AuditAttendanceStopped, fmt.Sprintf("session %d, %d attended, %d eligible",
		sum.Session.ID, sum.Attended, sum.Eligible))
	return sum, nil
}

// StopExpired stops the open sessions (of every place) that reached their
// maximum length, at that length, and returns their summaries for the
// channels they were started in. The loop that calls Heartbeat calls it.
// A session this process does not follow is left to the process that
// does while that one's heartbeats are recent (another shard's, another
// replica's); one nobody follows (never resumed since a restart: the bot
// left the server, say) is first closed at its last heartbeat, so that
// the time nobody watched is downtime, not attendance.
func (s *AttendanceService) StopExpired(ctx context.Context) ([]AttendanceSummary, error) {
	const op = "stop expired attendance"
	live, err := s.store.LiveAttendanceSessions(ctx, 0)
	if err != nil {
		return nil, wrap(op, err)
	}
	now := s.clock.Now()
	var out []AttendanceSummary
	for _, sess := range openOnly(live) {
		if now.Before(sess.deadline()) {
			continue
		}
		followed := s.following(sess.ID)
		if !followed && sess.LastSeenAt != nil && now.Sub(*sess.LastSeenAt) < followedElsewhere {
			continue // its process stops it at its next turn
		}
		if out, err = s.expire(ctx, out, sess, !followed); err != nil {
			return out, wrap(op, err)
		}
	}
	return out, nil
}

// followedElsewhere is how recent the last heartbeat of a session this
// process does not follow must be for StopExpired to leave it to the
// process that follows it: two of that process's turns.
const followedElsewhere = 2 * AttendanceHeartbeatEvery

// stop closes the session at at and tallies it. ErrNotFound when another
// stop came first.
func (s *AttendanceService) stop(ctx context.Context, sess AttendanceSession, at time.Time, reason StopReason) (AttendanceSummary, error) {
	if sess.StartedAt != nil && at.After(sess.deadline()) {
		at = sess.deadline()
	}
	closed, results, err := s.store.CloseAttendanceSession(ctx, sess.ID, at, reason, requiredFor(at), tallyAt(at))
	if err != nil {
		return AttendanceSummary{}, err
	}
	s.follow(closed.ID, false)
	s.hintOpen(closed.PlaceID, false) // read again: others may be open
	sum := AttendanceSummary{Session: closed}
	if place, err := s.store.AttendancePlace(ctx, closed.PlaceID); err == nil {
		sum.Place = place
	} else {
		s.log.Warn("attendance stopped: its place not read", "session", closed.ID, "err", err)
	}
	if closed.StartedAt != nil {
		sum.Length = min(at.Sub(*closed.StartedAt), closed.MaxLength)
		sum.Counted = counted(closed, at)
	}
	for _, r := range results {
		if r.Seconds > 0 {
			sum.Attended++
		}
		if r.Eligible {
			sum.Eligible++
		}
	}
	s.log.Info("attendance stopped", "session", closed.ID, "reason", string(reason), "attended", sum.Attended,
		"eligible", sum.Eligible, "downtime", closed.Downtime)
	return sum, nil
}
