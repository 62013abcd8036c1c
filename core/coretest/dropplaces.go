package coretest

import (
	"context"
	"slices"

	"github.com/poapbot/poapbot/core"
)

// DropPlaces lists the places of the platform with a drop of eventID
// that is not removed, oldest place first.
func (s *MemStore) DropPlaces(_ context.Context, platform core.Platform, eventID int64) ([]core.Place, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []core.Place
	for _, t := range s.places {
		if t.Platform != platform {
			continue
		}
		if slices.ContainsFunc(s.drops, func(d core.Drop) bool {
			return d.PlaceID == t.ID && d.EventID == eventID && d.RemovedAt == nil
		}) {
			out = append(out, t)
		}
	}
	return out, nil
}
