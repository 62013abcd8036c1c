package coretest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/poapbot/poapbot/core"
)

// AddJoinDecline stores a declined join request, replacing an earlier one
// of the member to the gate. It returns an error for an empty member or
// an unknown reason, and core.ErrNotFound for an unknown gate or user.
func (s *MemStore) AddJoinDecline(_ context.Context, d core.JoinDecline) error {
	if d.Member == "" {
		return fmt.Errorf("add join decline: the member is empty")
	}
	switch d.Reason {
	case core.DeclineMissing, core.DeclineExpired:
	default:
		return fmt.Errorf("add join decline: unknown reason %q", d.Reason)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.gateUserLocked("add join decline", d.GateID, d.UserID); err != nil {
		return err
	}
	d.Missing = cloneOrNil(d.Missing)
	d.RequestedAt, d.DeclinedAt = d.RequestedAt.UTC(), d.DeclinedAt.UTC()
	s.gates.declines[gateUser{d.GateID, d.UserID}] = d
	return nil
}

// UserJoinDeclines lists the user's declined join requests declined at or
// after since, oldest first.
func (s *MemStore) UserJoinDeclines(_ context.Context, userID int64, since time.Time) ([]core.JoinDecline, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []core.JoinDecline
	for k, d := range s.gates.declines {
		if k.user == userID && !d.DeclinedAt.Before(since) {
			d.Missing = cloneOrNil(d.Missing)
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b core.JoinDecline) int {
		return cmp.Or(a.DeclinedAt.Compare(b.DeclinedAt), cmp.Compare(a.GateID, b.GateID))
	})
	return out, nil
}

// PruneJoinDeclines deletes the declined join requests declined before
// before, and says how many.
func (s *MemStore) PruneJoinDeclines(_ context.Context, before time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, d := range s.gates.declines {
		if d.DeclinedAt.Before(before) {
			delete(s.gates.declines, k)
			n++
		}
	}
	return n, nil
}
