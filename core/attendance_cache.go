package core

import (
	"context"
	"errors"
	"time"
)

// MaxAttendanceUsers is how many user ids the attendance service keeps in
// memory (by platform and platform id), so that a voice event of a member
// seen before writes nothing but their stretch; past it, an arbitrary one
// is forgotten for each one added.
const MaxAttendanceUsers = 50_000

// userKey names a member across platforms.
type userKey struct {
	platform   Platform
	externalID string
}

// userCache is a bounded map of user ids (and the names stored with
// them) by member; the service's mutex guards it. A user id never changes
// while the user exists; one forgotten meanwhile (ForgetUser) is dropped
// by the caller when the store says the user does not exist.
type userCache struct {
	max int
	ids map[userKey]cachedUser
}

// cachedUser is a member's user id and the name stored with it.
type cachedUser struct {
	id   int64
	name string
}

// get returns the member's user id and stored name, if kept.
func (c *userCache) get(k userKey) (cachedUser, bool) {
	u, ok := c.ids[k]
	return u, ok
}

// put keeps the member's user id and name, forgetting an arbitrary other
// one when full.
func (c *userCache) put(k userKey, u cachedUser) {
	if _, ok := c.ids[k]; !ok && len(c.ids) >= c.max {
		for other := range c.ids {
			delete(c.ids, other)
			break
		}
	}
	c.ids[k] = u
}

// userID returns the member's user id: the one kept, or upserted and
// kept (also when the member's name changed, so that lists show it).
func (s *AttendanceService) userID(ctx context.Context, m Member) (int64, error) {
	k := userKey{m.Platform, m.ExternalID}
	s.mu.Lock()
	c, ok := s.users.get(k)
	s.mu.Unlock()
	if ok && (m.Name == "" || m.Name == c.name) {
		return c.id, nil
	}
	// Unknown, or renamed: /attendance list shows the name stored.
	u, err := s.members.UpsertUser(ctx, m.user())
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	s.users.put(k, cachedUser{id: u.ID, name: m.Name})
	s.mu.Unlock()
	return u.ID, nil
}

// dropUser forgets the member's user id: the store no longer has the user.
func (s *AttendanceService) dropUser(m Member) {
	s.mu.Lock()
	delete(s.users.ids, userKey{m.Platform, m.ExternalID})
	s.mu.Unlock()
}

// recordVoice records the member's voice state through the store, with
// their kept user id (retryForgotten). ErrNotFound when the place has no
// open session.
func (s *AttendanceService) recordVoice(ctx context.Context, pid int64, m Member, channelID string, counting bool, at time.Time) error {
	return s.retryForgotten([]Member{m}, func() error {
		id, err := s.userID(ctx, m)
		if err != nil {
			return err
		}
		return s.store.RecordVoice(ctx, pid, id, channelID, counting, at)
	})
}

// retryForgotten runs f, which writes with the kept user ids of members;
// when the store answers ErrConflict (a member forgotten by /forget since
// their id was kept), it drops their kept ids and runs f once more, the
// ids upserted anew.
func (s *AttendanceService) retryForgotten(members []Member, f func() error) error {
	err := f()
	if !errors.Is(err, ErrConflict) {
		return err
	}
	for _, m := range members {
		s.dropUser(m)
	}
	return f()
}

// openPlace returns the place's id and whether it may have open sessions
// (mayBeOpen).
func (s *AttendanceService) openPlace(ctx context.Context, p Place) (int64, bool, error) {
	pid, err := s.placeID(ctx, p)
	if err != nil {
		return 0, false, err
	}
	open, err := s.mayBeOpen(ctx, pid)
	return pid, open, err
}

// mayBeOpen reports whether the place may have open sessions: true from
// the hint, else from the store (and the hint set when it has). The hint
// of a place is true when the service last knew of an open session there
// (opened or resumed here, or read from the store), so that a voice event
// goes straight to the store, whose transaction reads the sessions anyway.
// It is never trusted when false: a session opened by another replica is
// found by reading the store, and a hint left true by a session stopped
// elsewhere is cleared by the first voice event the store answers
// ErrNotFound.
func (s *AttendanceService) mayBeOpen(ctx context.Context, pid int64) (bool, error) {
	s.mu.Lock()
	hint := s.opened[pid]
	s.mu.Unlock()
	if hint {
		return true, nil
	}
	open, err := s.openSessionsOf(ctx, pid)
	if err != nil || len(open) == 0 {
		return false, err
	}
	s.hintOpen(pid, true)
	return true, nil
}

// hintOpen sets the hint of the place: true when a session is known open
// in it, false when the place may have none.
func (s *AttendanceService) hintOpen(pid int64, open bool) { s.mark(s.opened, pid, open) }
