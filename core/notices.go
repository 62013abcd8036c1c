package core

import (
	"cmp"
	"context"
	"errors"
	"slices"
)

// Notice is a short message the bot posts beside a published post: the
// low-stock notice to moderators, in the channel of the drop's claim
// message.
type Notice struct {
	// Ref is the claim message the notice goes beside: its platform,
	// place and channel say where; its message id is that of the post.
	Ref   PostRef
	Drop  Drop
	Stock Stock
}

// LowStockNotices returns one notice for every channel where the claim
// message of a drop that ran low since the last call was published, with
// the drop and its stock now. A shortage that a claim noted is returned
// once, to one caller only, however many replicas ask at the same time; it
// is noted again only after new links were imported. It returns the notices
// it could read with the store's errors joined.
func (s *DropService) LowStockNotices(ctx context.Context) ([]Notice, error) {
	var (
		out  []Notice
		errs []error
	)
	// Posts taken before a failure are notices already given up by the
	// store: post them.
	posts, err := s.posts.TakeLowStockPosts(ctx)
	if err != nil {
		errs = append(errs, wrap("low stock notices", err))
	}
	slices.SortStableFunc(posts, func(a, b Post) int { return cmp.Compare(a.DropID, b.DropID) })
	for len(posts) > 0 {
		n := 1
		for n < len(posts) && posts[n].DropID == posts[0].DropID {
			n++
		}
		notices, err := s.lowStockNotices(ctx, posts[:n])
		if err != nil {
			errs = append(errs, wrap("low stock notices", err))
		}
		out = append(out, notices...)
		posts = posts[n:]
	}
	return out, errors.Join(errs...)
}

// lowStockNotices returns the notices of one drop's posts: one per channel,
// as a drop distributed twice in a channel gets one notice there.
func (s *DropService) lowStockNotices(ctx context.Context, posts []Post) ([]Notice, error) {
	d, err := s.drops.DropByID(ctx, posts[0].DropID)
	if err != nil {
		return nil, err
	}
	stock, err := s.mintLinks.Stock(ctx, d.ID)
	if err != nil {
		return nil, err
	}
	var out []Notice
	seen := map[PostRef]bool{}
	for _, p := range posts {
		where := PostRef{Platform: p.Ref.Platform, Channel: p.Ref.Channel}
		if seen[where] {
			continue
		}
		seen[where] = true
		out = append(out, Notice{Ref: p.Ref, Drop: d, Stock: stock})
	}
	return out, nil
}
