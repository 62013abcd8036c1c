package coretest

import (
	"context"
	"io"
	"slices"
	"time"

	"github.com/poapbot/poapbot/core"
)

var _ core.MomentStore = (*MemStore)(nil)

// AddMoment records the post, or returns the place's post with the same
// non-empty key and core.ErrConflict, or a *core.MomentRepeatError for a
// file (by head hash) in a post of the user to the drop that has not
// failed, in any place.
func (s *MemStore) AddMoment(_ context.Context, r core.MomentRecord) (core.MomentRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.moments {
		if r.Key != "" && m.PlaceID == r.PlaceID && m.Key == r.Key {
			return cloneMoment(m), core.ErrConflict
		}
	}
	for i, f := range r.Files {
		for _, m := range s.moments {
			if m.UserID != r.UserID || m.DropID != r.DropID || m.State == core.MomentFailed {
				continue
			}
			for _, old := range m.Files {
				if old.HeadHash != "" && old.HeadHash == f.HeadHash {
					return core.MomentRecord{}, &core.MomentRepeatError{First: cloneMoment(m), File: i}
				}
			}
		}
	}
	r.ID = int64(len(s.moments) + 1)
	if r.State == "" {
		r.State = core.MomentUploading
	}
	now := time.Now().UTC()
	r.CreatedAt, r.UpdatedAt = now, now
	s.moments = append(s.moments, cloneMoment(r))
	return r, nil
}

// UpdateMoment writes the post's progress; core.ErrNotFound for an unknown
// one.
func (s *MemStore) UpdateMoment(_ context.Context, r core.MomentRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.moments {
		m := &s.moments[i]
		if m.ID == r.ID {
			m.Author, m.Files, m.State, m.MomentID, m.Error = r.Author, slices.Clone(r.Files), r.State, r.MomentID, r.Error
			m.UpdatedAt = time.Now().UTC()
			return nil
		}
	}
	return core.ErrNotFound
}

// TouchMoment sets the post's UpdatedAt to now.
func (s *MemStore) TouchMoment(_ context.Context, id int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.moments {
		if s.moments[i].ID == id {
			s.moments[i].UpdatedAt = time.Now().UTC()
			return nil
		}
	}
	return core.ErrNotFound
}

// CountMoments counts the user's posts since then, but failed ones.
func (s *MemStore) CountMoments(_ context.Context, userID int64, since time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, m := range s.moments {
		if m.UserID == userID && m.State != core.MomentFailed && !m.CreatedAt.Before(since) {
			n++
		}
	}
	return n, nil
}

// UnfinishedMoments returns the posts not in a final state, oldest first.
func (s *MemStore) UnfinishedMoments(context.Context) ([]core.MomentRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []core.MomentRecord
	for _, m := range s.moments {
		if !m.State.Final() {
			out = append(out, cloneMoment(m))
		}
	}
	return out, nil
}

// MomentsOff reports whether the place turned Moments off.
func (s *MemStore) MomentsOff(_ context.Context, placeID int64) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.momentsOff[placeID], nil
}

// SetMomentsOff turns the place's Moments off or on.
func (s *MemStore) SetMomentsOff(_ context.Context, placeID int64, off bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.momentsOff[placeID] = off
	return nil
}

// Moments returns every recorded post, oldest first.
func (s *MemStore) Moments() []core.MomentRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]core.MomentRecord, len(s.moments))
	for i, m := range s.moments {
		out[i] = cloneMoment(m)
	}
	return out
}

func cloneMoment(m core.MomentRecord) core.MomentRecord {
	m.Files = slices.Clone(m.Files)
	return m
}

// NoMoments is a core.MomentIssuer for tests that post no Moments: nobody
// holds a drop, and the rest fails.
type NoMoments struct{}

// HoldsDrop reports false.
func (NoMoments) HoldsDrop(context.Context, string, int64) (bool, error) { return false, nil }

// DropName fails with core.ErrUnknownEvent.
func (NoMoments) DropName(context.Context, int64) (string, error) { return "", core.ErrUnknownEvent }

// UploadMedia fails.
func (NoMoments) UploadMedia(context.Context, io.Reader, int64, string) (string, error) {
	return "", errNotInTest
}

// WaitForMedia fails.
func (NoMoments) WaitForMedia(context.Context, string, int64) (core.MomentMediaView, error) {
	return core.MomentMediaView{}, errNotInTest
}

// CreateMoment fails.
func (NoMoments) CreateMoment(context.Context, core.NewMoment) (string, error) {
	return "", errNotInTest
}

// Moments lists none.
func (NoMoments) Moments(context.Context, core.MomentQuery) ([]core.MomentView, error) {
	return nil, nil
}
