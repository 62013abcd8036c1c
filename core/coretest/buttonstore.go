package coretest

import (
	"context"

	"github.com/poapbot/poapbot/core"
)

var _ core.ButtonStore = (*MemStore)(nil)

// SaveButtonAction stores a, or returns the action stored with the same
// platform, place, member and line, its expiry moved to the later of the
// two (none wins).
func (s *MemStore) SaveButtonAction(_ context.Context, a core.ButtonAction) (core.ButtonAction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, old := range s.buttons {
		if old.Platform != a.Platform || old.Place != a.Place || old.Member != a.Member || old.Line != a.Line {
			continue
		}
		if old.ExpiresAt != nil && (a.ExpiresAt == nil || a.ExpiresAt.After(*old.ExpiresAt)) {
			s.buttons[i].ExpiresAt = a.ExpiresAt
		}
		return s.buttons[i], nil
	}
	s.buttons = append(s.buttons, a)
	return a, nil
}

// ButtonAction returns the action with that id, or core.ErrNotFound.
func (s *MemStore) ButtonAction(_ context.Context, id string) (core.ButtonAction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.buttons {
		if a.ID == id {
			return a, nil
		}
	}
	return core.ButtonAction{}, core.ErrNotFound
}
