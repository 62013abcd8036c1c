package coretest

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/poapbot/poapbot/core"
)

// MemStore is an in-memory core.MemberStore, core.AuditLog,
// core.DropStore, core.MintLinkStore, core.PostStore and core.GateStore
// for tests of drops, claims and gating, with the atomicity the contract
// asks for: every method holds one lock. A mint link claimed elsewhere during a mint is no longer its
// member's, who can be given the next one. It keeps the audit log for
// inspection.
type MemStore struct {
	mu      sync.Mutex
	places  []core.Place
	users   []core.User
	wallets []core.Wallet
	drops   []core.Drop
	links   []core.MintLink
	audit   []core.AuditEntry
	// lowTold holds the drops whose low stock was noted since links were
	// last imported.
	lowTold map[int64]bool
	// lowDue holds the drops whose low-stock notice is still to be posted.
	lowDue map[int64]bool
	posts  []memPost
	gates  memGates
	// moments are the posts of Moments; momentsOff the places that
	// turned them off.
	moments    []core.MomentRecord
	momentsOff map[int64]bool
	buttons    []core.ButtonAction
}

var (
	_ core.MemberStore   = (*MemStore)(nil)
	_ core.AuditLog      = (*MemStore)(nil)
	_ core.DropStore     = (*MemStore)(nil)
	_ core.MintLinkStore = (*MemStore)(nil)
	_ core.PostStore     = (*MemStore)(nil)
)

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore {
	return &MemStore{lowTold: map[int64]bool{}, lowDue: map[int64]bool{}, gates: newMemGates(), momentsOff: map[int64]bool{}}
}

// UpsertPlace creates the place or refreshes its name.
func (s *MemStore) UpsertPlace(_ context.Context, t core.Place) (core.Place, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return upsert(&s.places, t), nil
}

// UpsertUser creates the user or refreshes its name.
func (s *MemStore) UpsertUser(_ context.Context, u core.User) (core.User, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return upsert(&s.users, u), nil
}

// party is the shape places and users share: a platform's id and name.
type party = struct {
	ID         int64
	Platform   core.Platform
	ExternalID string
	Name       string
	CreatedAt  time.Time
}

// upsert returns the entry of *xs with x's platform id, its name refreshed
// unless x has none, or appends x with the next id.
func upsert[T ~party](xs *[]T, x T) T {
	in := party(x)
	for i, old := range *xs {
		if p := party(old); p.Platform == in.Platform && p.ExternalID == in.ExternalID {
			if in.Name != "" {
				p.Name = in.Name
				(*xs)[i] = T(p)
			}
			return (*xs)[i]
		}
	}
	in.ID = int64(len(*xs) + 1)
	*xs = append(*xs, T(in))
	return T(in)
}

// FindUser returns the user with that platform id, or core.ErrNotFound.
func (s *MemStore) FindUser(_ context.Context, p core.Platform, externalID string) (core.User, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range s.users {
		if u.Platform == p && u.ExternalID == externalID {
			return u, nil
		}
	}
	return core.User{}, core.ErrNotFound
}

// UserByID returns the user with that id, or core.ErrNotFound.
func (s *MemStore) UserByID(_ context.Context, id int64) (core.User, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range s.users {
		if u.ID == id {
			return u, nil
		}
	}
	return core.User{}, core.ErrNotFound
}

// FindUserByName returns the user with that name, or core.ErrNotFound.
func (s *MemStore) FindUserByName(_ context.Context, p core.Platform, name string) (core.User, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range s.users {
		if u.Platform == p && strings.EqualFold(u.Name, name) {
			return u, nil
		}
	}
	return core.User{}, core.ErrNotFound
}

// AddWallet links a wallet; the user's first becomes primary.
func (s *MemStore) AddWallet(_ context.Context, w core.Wallet) (core.Wallet, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Primary = !slices.ContainsFunc(s.wallets, func(o core.Wallet) bool { return o.UserID == w.UserID })
	w.ID = int64(len(s.wallets) + 1)
	s.wallets = append(s.wallets, w)
	return w, nil
}

// SetPrimary makes the user's wallet with that value their primary, as a
// member who links another wallet and unlinks the first would.
func (s *MemStore) SetPrimary(_ context.Context, userID int64, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, w := range s.wallets {
		if w.UserID == userID {
			s.wallets[i].Primary = w.Value == value
		}
	}
}

// Wallets lists the user's wallets, primary first.
func (s *MemStore) Wallets(_ context.Context, userID int64) ([]core.Wallet, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []core.Wallet
	for _, w := range s.wallets {
		if w.UserID == userID {
			out = append(out, w)
		}
	}
	slices.SortStableFunc(out, func(a, b core.Wallet) int {
		switch {
		case a.Primary == b.Primary:
			return 0
		case a.Primary:
			return -1
		}
		return 1
	})
	return out, nil
}

// Audit appends to the audit log.
func (s *MemStore) Audit(_ context.Context, e core.AuditEntry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.ID = int64(len(s.audit) + 1)
	s.audit = append(s.audit, e)
	return nil
}

// AuditLog returns a copy of the audit log.
func (s *MemStore) AuditLog() []core.AuditEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.audit)
}

// Links returns a copy of the drop's links, in import order.
func (s *MemStore) Links(dropID int64) []core.MintLink {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []core.MintLink
	for _, l := range s.links {
		if l.DropID == dropID {
			out = append(out, l)
		}
	}
	return out
}

// AddDrop registers d with its links; core.ErrConflict when the place has
// the event and it is not removed. When the place's latest drop of the
// event was removed, it comes back with d's settings (again true), as
// storage.DB does, keeping its links and, when it minted through its
// delivery, that method.
func (s *MemStore) AddDrop(_ context.Context, d core.Drop, links []core.ImportedMintLink) (core.Drop, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var prev *core.Drop
	for i := range s.drops {
		if s.drops[i].PlaceID == d.PlaceID && s.drops[i].EventID == d.EventID {
			prev = &s.drops[i]
		}
	}
	switch {
	case prev != nil && prev.RemovedAt == nil:
		return core.Drop{}, false, core.ErrConflict
	case prev != nil:
		d.ID, d.CreatedAt, d.CreatedBy, d.Chain = prev.ID, prev.CreatedAt, prev.CreatedBy, cmpOr(d.Chain, prev.Chain)
		if prev.Method == core.ClaimDelivery {
			d.Method, d.Website, d.WebsiteRequestedAt = prev.Method, prev.Website, prev.WebsiteRequestedAt
		}
		*prev = d
		delete(s.lowTold, d.ID)
		s.importLocked(d.ID, links, time.Now())
		return d, true, nil
	}
	d.ID = int64(len(s.drops) + 1)
	s.drops = append(s.drops, d)
	s.importLocked(d.ID, links, d.CreatedAt)
	return d, false, nil
}

// cmpOr returns a unless it is zero, else b.
func cmpOr(a, b int64) int64 {
	if a != 0 {
		return a
	}
	return b
}

// DropByEvent returns the place's drop of eventID that is not removed.
func (s *MemStore) DropByEvent(_ context.Context, placeID, eventID int64) (core.Drop, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.drops {
		if d.PlaceID == placeID && d.EventID == eventID && d.RemovedAt == nil {
			return d, nil
		}
	}
	return core.Drop{}, core.ErrNotFound
}

// Drops lists the place's drops that are not removed.
func (s *MemStore) Drops(_ context.Context, placeID int64) ([]core.Drop, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []core.Drop
	for _, d := range s.drops {
		if d.PlaceID == placeID && d.RemovedAt == nil {
			out = append(out, d)
		}
	}
	return out, nil
}

// AllDrops lists every drop that is not removed.
func (s *MemStore) AllDrops(context.Context) ([]core.Drop, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []core.Drop
	for _, d := range s.drops {
		if d.RemovedAt == nil {
			out = append(out, d)
		}
	}
	return out, nil
}

// RemoveDrop marks the drop removed and drops its available links.
func (s *MemStore) RemoveDrop(_ context.Context, dropID int64, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.drop(dropID)
	if d == nil {
		return core.ErrNotFound
	}
	if d.RemovedAt == nil {
		d.RemovedAt = &at
	}
	s.links = slices.DeleteFunc(s.links, func(l core.MintLink) bool { return l.DropID == dropID && l.State == core.MintLinkAvailable })
	return nil
}
