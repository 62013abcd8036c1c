package core

import (
	"context"
	"errors"
	"slices"
)

// MomentsPageSize is how many Moments /moments shows at once.
const MomentsPageSize = 10

// MomentPage is a page of /moments: its Moments, newest first, and whether
// more follow.
type MomentPage struct {
	Moments []MomentView
	More    bool
}

// List reads page (0-based) of the Moments of drops (all when empty), or,
// when member is not nil, of the member's verified wallets: the member is
// found by ExternalID, or by Name when that is empty (ErrUnknownMember
// when not found; ErrNotLinked, ErrNotVerified when they have no verified
// wallet). Errors: the issuing service's and the store's.
func (s *MomentService) List(ctx context.Context, drops []int64, member *Member, page int) (MomentPage, error) {
	page = max(page, 0)
	if member == nil {
		return s.listPage(ctx, MomentQuery{DropIDs: drops}, page)
	}
	authors, err := s.authors(ctx, *member)
	if err != nil {
		return MomentPage{}, err
	}
	if len(authors) == 1 {
		return s.listPage(ctx, MomentQuery{DropIDs: drops, Author: authors[0]}, page)
	}
	// The query service matches one author at a time: read enough of each
	// to fill the page, and merge.
	var all []MomentView
	for _, a := range authors {
		vs, err := s.issuer.Moments(ctx, MomentQuery{DropIDs: drops, Author: a, Limit: (page+1)*MomentsPageSize + 1})
		if err != nil {
			return MomentPage{}, err
		}
		all = append(all, vs...)
	}
	slices.SortStableFunc(all, func(a, b MomentView) int { return b.CreatedOn.Compare(a.CreatedOn) })
	from := min(page*MomentsPageSize, len(all))
	to := min(from+MomentsPageSize, len(all))
	return MomentPage{Moments: all[from:to], More: len(all) > to}, nil
}

// listPage reads one page of q, one Moment more to tell whether more
// follow.
func (s *MomentService) listPage(ctx context.Context, q MomentQuery, page int) (MomentPage, error) {
	q.Limit, q.Offset = MomentsPageSize+1, page*MomentsPageSize
	vs, err := s.issuer.Moments(ctx, q)
	if err != nil {
		return MomentPage{}, err
	}
	if len(vs) > MomentsPageSize {
		return MomentPage{Moments: vs[:MomentsPageSize], More: true}, nil
	}
	return MomentPage{Moments: vs}, nil
}

// authors are the member's verified addresses.
func (s *MomentService) authors(ctx context.Context, m Member) ([]string, error) {
	var u User
	var err error
	if m.ExternalID == "" {
		u, err = s.members.FindUserByName(ctx, m.Platform, m.Name)
	} else {
		u, err = s.members.FindUser(ctx, m.Platform, m.ExternalID)
	}
	if errors.Is(err, ErrNotFound) {
		return nil, ErrUnknownMember
	}
	if err != nil {
		return nil, err
	}
	wallets, err := s.members.Wallets(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, w := range wallets {
		if w.Verified() && w.Address != "" && !slices.Contains(out, w.Address) {
			out = append(out, w.Address)
		}
	}
	switch {
	case len(wallets) == 0:
		return nil, ErrNotLinked
	case len(out) == 0:
		return nil, ErrNotVerified
	}
	return out, nil
}

// SetMomentsOff turns Moments off (or back on) in the place.
func (s *MomentService) SetMomentsOff(ctx context.Context, p Place, off bool) error {
	t, err := s.members.UpsertPlace(ctx, p.stored())
	if err != nil {
		return err
	}
	return s.store.SetMomentsOff(ctx, t.ID, off)
}
