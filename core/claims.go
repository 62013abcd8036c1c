package core

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
)

// ClaimOptions are what /claim was given.
type ClaimOptions struct {
	// EventID names the drop; zero means the one drop of the place open
	// for claims.
	EventID int64
	// Codeword is what the member typed, if the drop has one.
	Codeword string
	// MemberRoles are the member's role ids (Discord) or the ids of the
	// groups they belong to (Telegram), for drops that require one.
	MemberRoles []string
}

// Claim gives the member the drop's POAP: their one mint link, or a direct
// mint to their primary wallet, as the drop's claim method says. It checks, in
// order, that the drop exists here and is not removed, that its claim window
// is open, the codeword and the required role. A member who claims again gets
// the same link (or the same mint) back. A direct mint is recorded before it
// is sent and never sent twice for a link without reading the link's claim
// status in between; a link that turns out claimed elsewhere is set aside and
// the next one is used.
//
// Errors, inside a *DropError: ErrNoSuchDrop, ErrDropRemoved,
// ErrClaimNotStarted, ErrClaimEnded (or ErrDropExpired), ErrWrongCodeword,
// ErrMissingRole, ErrNoMintLinksLeft, ErrWalletClaimed, ErrWalletHoldsDrop,
// ErrMintLinkUsed, ErrNotLinked (a mint-only drop and no wallet),
// ErrNotAttended, ErrAttendanceLeftServer or ErrAttendancePending (inside
// an *AttendanceError: the drop has attendance sessions, and the member
// holds nothing of it yet; one who claimed before its first session gets
// what they have), and
// ErrIssuerUnavailable (nothing was minted: try again). A *ChoiceError when
// EventID is zero and not exactly one drop is open. The issuer's
// ErrInvalidWallet, ErrIssuerUnavailable or ErrIssuerRejected.
func (s *DropService) Claim(ctx context.Context, m Member, p Place, opts ClaimOptions) (claimed ClaimResult, err error) {
	defer func() { s.countClaim(m.Platform, claimed, err) }()
	ctx = withPlatform(ctx, m.Platform)
	place, user, err := s.upsertPlace(ctx, p, m)
	if err != nil {
		return ClaimResult{}, wrap("claim", err)
	}
	d, err := s.claimedDrop(ctx, place, opts.EventID)
	if err != nil {
		return ClaimResult{}, err
	}
	if err := s.mayClaim(d, opts); err != nil {
		return ClaimResult{}, err
	}
	method, err := s.method(d.Method)
	if err != nil {
		return ClaimResult{}, dropError(d, err)
	}
	if err := s.attended(ctx, d, user, method); err != nil {
		return ClaimResult{}, err
	}
	res, err := method.claim(ctx, d, user)
	if err != nil {
		return ClaimResult{}, err
	}
	if d.Method.UsesLinks() && !res.Again {
		s.noteStock(ctx, d)
	}
	return res, nil
}

// claimedDrop returns the drop eventID of the place, or its one drop open
// for claims when eventID is zero.
func (s *DropService) claimedDrop(ctx context.Context, place Place, eventID int64) (Drop, error) {
	if eventID == 0 {
		return s.openDrop(ctx, place)
	}
	return s.storedDrop(ctx, "claim", place, eventID, false)
}

// openDrop returns the place's one drop whose claim window has not ended,
// or a *ChoiceError. When several are not open yet or ended and none is
// open, the one that opens first counts, so the member learns when.
func (s *DropService) openDrop(ctx context.Context, place Place) (Drop, error) {
	drops, err := s.drops.Drops(ctx, place.ID)
	if err != nil {
		return Drop{}, wrap("claim", err)
	}
	now := s.clock.Now()
	var open, upcoming []Drop
	for _, d := range drops {
		switch window(d, now) {
		case nil:
			open = append(open, d)
		case ErrClaimNotStarted:
			upcoming = append(upcoming, d)
		}
	}
	switch {
	case len(open) == 1:
		return open[0], nil
	case len(open) == 0 && len(upcoming) == 1:
		return upcoming[0], nil
	}
	return Drop{}, &ChoiceError{Open: open}
}

// window says whether d's claim window is open at now: nil, or
// ErrClaimNotStarted, ErrClaimEnded or ErrDropExpired.
func window(d Drop, now time.Time) error {
	switch {
	case d.Starts != nil && now.Before(*d.Starts):
		return ErrClaimNotStarted
	case d.Ends != nil && !now.Before(*d.Ends):
		return ErrClaimEnded
	case !d.ExpiresAt.IsZero() && !now.Before(d.ExpiresAt):
		return ErrDropExpired
	}
	return nil
}

// attended checks that a drop with attendance sessions is claimed by a
// member counted in one, or by one who holds the drop already through
// method (claimed before its first session): they get what they have, as
// on any claim again. A *DropError wrapping an *AttendanceError when not
// (not counted, left the server, or counting still running), the store's
// error when it could not tell.
func (s *DropService) attended(ctx context.Context, d Drop, user User, method claimer) error {
	st, err := s.attendance.Attended(ctx, d.ID, user.ID)
	if err != nil {
		return wrap("claim", err)
	}
	if st.Kind == AttendanceNoSession || st.Kind == AttendanceCounted {
		return nil
	}
	if held, err := method.held(ctx, d, user); err != nil {
		return wrap("claim", err)
	} else if held {
		return nil
	}
	switch st.Kind {
	case AttendancePending:
		return dropError(d, &AttendanceError{Standing: st, Err: ErrAttendancePending})
	}
	if st.LeftServer {
		return dropError(d, &AttendanceError{Standing: st, Err: ErrAttendanceLeftServer})
	}
	return dropError(d, &AttendanceError{Standing: st, Err: ErrNotAttended})
}

// mayClaim checks the window, the codeword and the role, in that order.
func (s *DropService) mayClaim(d Drop, opts ClaimOptions) error {
	if err := window(d, s.clock.Now()); err != nil {
		return dropError(d, err)
	}
	if d.Codeword != "" && !strings.EqualFold(strings.TrimSpace(opts.Codeword), d.Codeword) {
		return dropError(d, ErrWrongCodeword)
	}
	if d.RequiredRole != "" && !slices.Contains(opts.MemberRoles, d.RequiredRole) {
		return dropError(d, ErrMissingRole)
	}
	return nil
}

// countClaim counts a member's claim that returned res and err, by the
// drop's claim method when it is known.
func (s *DropService) countClaim(p Platform, res ClaimResult, err error) {
	if s.tally == nil {
		return
	}
	method := res.Drop.Method
	var de *DropError
	if errors.As(err, &de) {
		method = de.Drop.Method
	}
	s.tally.Count(Tallied{Act: ActClaim, Platform: p, Method: method, Outcome: claimOutcome(res, err)})
}
