package core

import (
	"context"
	"errors"
	"fmt"
)

// AttendanceMints counts what minting a stopped session's drop to its
// eligible members did (DropService.MintAttendees).
type AttendanceMints struct {
	// Minted counts the mints sent now (confirmed or under way).
	Minted int
	// Before counts the members minted before: a second stop, a restart.
	Before int
	// NoWallet counts the eligible members without a verified primary
	// wallet: they claim with the button.
	NoWallet int
	// Failed counts the members not minted: the drop's links ran out, or
	// the issuing service refused or did not answer. They claim with the
	// button.
	Failed int
}

// Eligible lists the ids of the members who met the minimum of the
// stopped session. It returns the store's error.
func (s *AttendanceService) Eligible(ctx context.Context, sessionID int64) ([]int64, error) {
	const page = 500
	var out []int64
	for offset := 0; ; offset += page {
		results, total, err := s.store.AttendanceResults(ctx, sessionID, offset, page)
		if err != nil {
			return out, wrap("eligible members", err)
		}
		for _, r := range results {
			if r.Eligible {
				out = append(out, r.UserID)
			}
		}
		if len(results) == 0 || offset+page >= total {
			return out, nil
		}
	}
}

// MintAttendees mints the drop of a stopped session straight to the
// verified primary wallet of each of its eligible members (userIDs), when
// the drop's claim method is mint (delivery:mint); otherwise it does
// nothing. Each mint goes through the drop's claim, as /claim would: it is
// recorded before it is sent, and a member minted before (a second stop,
// a restart) is counted in Before and minted nothing more, the mint link
// being one per member per drop. Minting stops when the drop's links run
// out. It returns the store's error reading the drop.
func (s *DropService) MintAttendees(ctx context.Context, sum AttendanceSummary, userIDs []int64) (AttendanceMints, error) {
	const op = "mint attendees"
	var out AttendanceMints
	d, err := s.drops.DropByEvent(ctx, sum.Session.PlaceID, sum.Session.EventID)
	switch {
	case errors.Is(err, ErrNotFound):
		return out, nil
	case err != nil:
		return out, wrap(op, err)
	case d.RemovedAt != nil || d.Method != ClaimMint || len(userIDs) == 0:
		return out, nil
	}
	method, err := s.method(d.Method)
	if err != nil {
		return out, dropError(d, err)
	}
	ctx = withPlatform(ctx, sum.Place.Platform)
	for i, id := range userIDs {
		user, ok, err := s.verifiedMember(ctx, id)
		if err != nil {
			return out, wrap(op, err)
		}
		if !ok {
			out.NoWallet++
			continue
		}
		res, err := method.claim(ctx, d, user)
		switch {
		case errors.Is(err, ErrNoMintLinksLeft):
			out.Failed += len(userIDs) - i
			s.log.Warn("attendance mints: no links left", "event", d.EventID, "session", sum.Session.ID, "left", len(userIDs)-i)
			return out, nil
		case err != nil:
			out.Failed++
			s.log.Warn("attendance mint failed", "event", d.EventID, "session", sum.Session.ID, "user", id, "err", err)
		case res.Again:
			out.Before++
		default:
			out.Minted++
		}
	}
	if out.Minted > 0 {
		s.noteStock(ctx, d)
	}
	s.log.Info("attendance minted", "event", d.EventID, "session", sum.Session.ID, "minted", out.Minted,
		"before", out.Before, "no_wallet", out.NoWallet, "failed", out.Failed)
	return out, nil
}

// verifiedMember returns the user of id when their primary wallet (the
// one a claim mints to) is verified.
func (s *DropService) verifiedMember(ctx context.Context, id int64) (User, bool, error) {
	user, err := s.members.UserByID(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return User{}, false, nil
	}
	if err != nil {
		return User{}, false, fmt.Errorf("user %d: %w", id, err)
	}
	w, err := primaryOf(ctx, s.members, id)
	if errors.Is(err, ErrNotLinked) {
		return user, false, nil
	}
	return user, err == nil && w.Verified(), err
}
