package coretest

import (
	"context"

	"github.com/poapbot/poapbot/core"
)

// TakeLowStockPosts returns the posts of the drops whose low-stock notice
// is due, marking each given.
func (s *MemStore) TakeLowStockPosts(_ context.Context) ([]core.Post, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []core.Post
	for _, d := range s.drops {
		if !s.lowDue[d.ID] || !s.lowTold[d.ID] || d.RemovedAt != nil {
			continue
		}
		var posts []core.Post
		for _, p := range s.posts {
			if p.DropID == d.ID {
				posts = append(posts, p.Post)
			}
		}
		if len(posts) == 0 {
			continue
		}
		delete(s.lowDue, d.ID)
		out = append(out, posts...)
	}
	return out, nil
}
