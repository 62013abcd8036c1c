package core

import (
	"context"
	"errors"
	"fmt"
)

// DropPlaceStore is what DropPlaces needs beside DropStore. storage.DB
// implements it.
type DropPlaceStore interface {
	// DropTenants lists the tenants of the platform that have a drop of
	// eventID that is not removed, oldest tenant first.
	DropTenants(ctx context.Context, platform Platform, eventID int64) ([]Tenant, error)
}

// errNoDropPlaces means the store cannot list the places of a drop.
var errNoDropPlaces = errors.New("the store does not list the places of a drop")

// DropPlaces lists the places of the platform where the drop eventID is
// registered and not removed: where a member who names the drop outside
// those places (the bot's private chat on Telegram) could claim it. The
// adapter decides which of them the member belongs to. No place (nil) is
// no error, also for a drop id that is not above 0. It returns an error
// for an unknown platform, a store that cannot list places, and the
// store's errors.
func (s *Service) DropPlaces(ctx context.Context, platform Platform, eventID int64) ([]Place, error) {
	if !platform.Valid() {
		return nil, fmt.Errorf("drop places: unknown platform %q", platform)
	}
	if eventID <= 0 {
		return nil, nil
	}
	store, ok := s.store.(DropPlaceStore)
	if !ok {
		return nil, fmt.Errorf("drop places: %w", errNoDropPlaces)
	}
	tenants, err := store.DropTenants(ctx, platform, eventID)
	if err != nil {
		return nil, wrap("drop places", err)
	}
	if len(tenants) == 0 {
		return nil, nil
	}
	places := make([]Place, len(tenants))
	for i, t := range tenants {
		places[i] = Place{Platform: t.Platform, ExternalID: t.ExternalID, Name: t.Name}
	}
	return places, nil
}
