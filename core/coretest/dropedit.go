package coretest

import (
	"context"

	"github.com/poapbot/poapbot/core"
)

// EditDrop changes the settings e gives of the drop, as storage.DB does.
func (s *MemStore) EditDrop(_ context.Context, dropID int64, e core.DropEdit) (before, after core.Drop, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.drop(dropID)
	switch {
	case d == nil:
		return core.Drop{}, core.Drop{}, core.ErrNotFound
	case d.RemovedAt != nil:
		return core.Drop{}, core.Drop{}, core.ErrDropRemoved
	case e.Method.Set && d.Method == core.ClaimDelivery:
		return core.Drop{}, core.Drop{}, core.ErrDeliveryExists
	}
	next := *d
	setIf(&next.Starts, e.Starts)
	setIf(&next.Ends, e.Ends)
	if next.Starts != nil && next.Ends != nil && !next.Starts.Before(*next.Ends) {
		return core.Drop{}, core.Drop{}, core.ErrInvalidWindow
	}
	setIf(&next.Codeword, e.Codeword)
	setIf(&next.RequiredRole, e.RequiredRole)
	setIf(&next.LowStock, e.LowStock)
	if e.LowStock.Set && e.LowStock.To != d.LowStock {
		delete(s.lowTold, dropID)
	}
	if e.Method.Set {
		if e.Method.To == core.ClaimWebsite && (d.Method != core.ClaimWebsite || d.Website != e.Website) {
			next.Website, next.WebsiteRequestedAt = e.Website, nil
		}
		next.Method = e.Method.To
	}
	before, *d = *d, next
	return before, next, nil
}

// setIf sets *v to c.To when c is Set.
func setIf[T any](v *T, c core.Change[T]) {
	if c.Set {
		*v = c.To
	}
}
