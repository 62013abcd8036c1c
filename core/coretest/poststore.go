package coretest

import (
	"context"
	"time"

	"github.com/poapbot/poapbot/core"
)

// memPost is a stored post; known is false until a count is recorded as
// shown.
type memPost struct {
	core.Post
	known bool
}

// AddPost records the post, replacing one of the same message;
// core.ErrConflict when the drop does not exist.
func (s *MemStore) AddPost(_ context.Context, p core.Post) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.drop(p.DropID) == nil {
		return core.ErrConflict
	}
	for i, old := range s.posts {
		if old.Ref.Platform == p.Ref.Platform && old.Ref.Channel == p.Ref.Channel && old.Ref.Message == p.Ref.Message {
			p.ID, p.CreatedAt = old.ID, old.CreatedAt
			s.posts[i] = memPost{Post: p}
			return nil
		}
	}
	p.ID = int64(len(s.posts) + 1)
	s.posts = append(s.posts, memPost{Post: p})
	return nil
}

// ChangedPosts returns the posts of drops not removed whose count of
// available links changed, recording the new count as shown.
func (s *MemStore) ChangedPosts(_ context.Context, at time.Time) ([]core.Post, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []core.Post
	for i := range s.posts {
		p := &s.posts[i]
		d := s.drop(p.DropID)
		if d == nil || d.RemovedAt != nil {
			continue
		}
		n := s.availableLocked(p.DropID)
		if p.known && p.Available == n {
			continue
		}
		p.Available, p.known, p.UpdatedAt = n, true, at
		out = append(out, p.Post)
	}
	return out, nil
}

// DropByID returns the drop, removed or not.
func (s *MemStore) DropByID(_ context.Context, dropID int64) (core.Drop, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.drop(dropID); d != nil {
		return *d, nil
	}
	return core.Drop{}, core.ErrNotFound
}

// availableLocked counts the drop's available links; s.mu is held.
func (s *MemStore) availableLocked(dropID int64) int {
	n := 0
	for _, l := range s.links {
		if l.DropID == dropID && l.State == core.MintLinkAvailable {
			n++
		}
	}
	return n
}
