package coretest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
)

var _ core.GateStore = (*MemStore)(nil)

// memGates is what MemStore keeps for core.GateStore; MemStore.mu guards
// it.
type memGates struct {
	byID     map[int64]core.Gate
	lastID   int64
	grants   map[gateUser]core.Grant
	requests map[gateUser]core.JoinRequest
	declines map[gateUser]core.JoinDecline
	// seen are the members seen in a place: place id and user id.
	seen map[[2]int64]bool
}

// gateUser keys a grant or a join request: one per member per gate.
type gateUser struct{ gate, user int64 }

func newMemGates() memGates {
	return memGates{byID: map[int64]core.Gate{}, grants: map[gateUser]core.Grant{}, requests: map[gateUser]core.JoinRequest{},
		declines: map[gateUser]core.JoinDecline{}, seen: map[[2]int64]bool{}}
}

// AddGate stores g with the next id and its place's platform and id,
// unpaused and never synced; a zero CreatedAt is now. It returns an error
// wrapping core.ErrBadGateMode for a mode that does not fit the drops, an
// error for an unknown kind or an empty target id, core.ErrNotFound for
// an unknown place or creator, and core.ErrGateExists (matching
// core.ErrConflict) when the place gates the target already.
func (s *MemStore) AddGate(_ context.Context, g core.Gate) (core.Gate, error) {
	switch g.Target.Kind {
	case core.GateRole, core.GateGroup:
	default:
		return core.Gate{}, fmt.Errorf("add gate: unknown gate kind %q", g.Target.Kind)
	}
	if g.Target.ID == "" {
		return core.Gate{}, fmt.Errorf("add gate: the gate's target id is empty")
	}
	mode, err := core.ParseGateMode(g.Mode.String(), len(g.Drops))
	if err != nil {
		return core.Gate{}, fmt.Errorf("add gate: %w: %w", core.ErrBadGateMode, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.places, func(t core.Place) bool { return t.ID == g.PlaceID })
	if i < 0 || (g.CreatedBy != 0 && !s.hasUserLocked(g.CreatedBy)) {
		return core.Gate{}, fmt.Errorf("add gate: place #%d or user #%d: %w", g.PlaceID, g.CreatedBy, core.ErrNotFound)
	}
	for _, old := range s.gates.byID {
		if old.PlaceID == g.PlaceID && old.Target.ID == g.Target.ID {
			return core.Gate{}, fmt.Errorf("add gate: %w (%w)", core.ErrGateExists, core.ErrConflict)
		}
	}
	s.gates.lastID++
	g.ID, g.Platform, g.Place, g.Mode = s.gates.lastID, s.places[i].Platform, s.places[i].ExternalID, mode
	g.Paused, g.PausedAt, g.SyncedAt = "", nil, nil
	g.CreatedAt = orNow(g.CreatedAt)
	g.Drops = cloneOrNil(g.Drops)
	s.gates.byID[g.ID] = g
	return cloneGate(g), nil
}

// GateByTarget returns the place's gate on the target id, or
// core.ErrNotFound.
func (s *MemStore) GateByTarget(_ context.Context, placeID int64, target string) (core.Gate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	gates := s.gatesLocked(func(g core.Gate) bool { return g.PlaceID == placeID && g.Target.ID == target })
	if len(gates) == 0 {
		return core.Gate{}, fmt.Errorf("gate by target: %w", core.ErrNotFound)
	}
	return gates[0], nil
}

// PlaceGates lists the place's gates, oldest first.
func (s *MemStore) PlaceGates(_ context.Context, placeID int64) ([]core.Gate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gatesLocked(func(g core.Gate) bool { return g.PlaceID == placeID }), nil
}

// PlatformGates lists the gates of the platform's places, oldest first.
func (s *MemStore) PlatformGates(_ context.Context, p core.Platform) ([]core.Gate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gatesLocked(func(g core.Gate) bool { return g.Platform == p }), nil
}

// gatesLocked returns copies of the gates that match, oldest first; s.mu
// is held.
func (s *MemStore) gatesLocked(match func(core.Gate) bool) []core.Gate {
	var out []core.Gate
	for _, g := range s.gates.byID {
		if match(g) {
			out = append(out, cloneGate(g))
		}
	}
	slices.SortFunc(out, func(a, b core.Gate) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// RemoveGate deletes the gate with its grants and join requests (waiting
// and declined), or returns core.ErrNotFound.
func (s *MemStore) RemoveGate(_ context.Context, id int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.gates.byID[id]; !ok {
		return fmt.Errorf("remove gate: %w", core.ErrNotFound)
	}
	delete(s.gates.byID, id)
	for k := range s.gates.grants {
		if k.gate == id {
			delete(s.gates.grants, k)
		}
	}
	for k := range s.gates.requests {
		if k.gate == id {
			delete(s.gates.requests, k)
		}
	}
	for k := range s.gates.declines {
		if k.gate == id {
			delete(s.gates.declines, k)
		}
	}
	return nil
}

// PauseGate marks the gate paused with reason unless it is paused
// already; first is true for the call that paused it. It returns an error
// for an empty reason, and core.ErrNotFound for an unknown gate.
func (s *MemStore) PauseGate(_ context.Context, id int64, reason string, at time.Time) (bool, error) {
	if reason == "" {
		return false, fmt.Errorf("pause gate: the reason is empty")
	}
	first := false
	err := s.updateGate("pause gate", id, func(g *core.Gate) {
		if g.Paused == "" {
			at = at.UTC()
			g.Paused, g.PausedAt, first = reason, &at, true
		}
	})
	return first, err
}

// ResumeGate clears the gate's pause, or returns core.ErrNotFound.
func (s *MemStore) ResumeGate(_ context.Context, id int64) error {
	return s.updateGate("resume gate", id, func(g *core.Gate) { g.Paused, g.PausedAt = "", nil })
}

// SetGateInviteLink records the gate's invite link, or returns
// core.ErrNotFound.
func (s *MemStore) SetGateInviteLink(_ context.Context, id int64, link string) error {
	return s.updateGate("set gate invite link", id, func(g *core.Gate) { g.Target.InviteLink = link })
}

// GateSynced records when the gate was last applied to every member, or
// returns core.ErrNotFound.
func (s *MemStore) GateSynced(_ context.Context, id int64, at time.Time) error {
	return s.updateGate("gate synced", id, func(g *core.Gate) {
		at = at.UTC()
		g.SyncedAt = &at
	})
}

// updateGate applies change to the gate id under the lock, or returns
// core.ErrNotFound.
func (s *MemStore) updateGate(op string, id int64, change func(*core.Gate)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.gates.byID[id]
	if !ok {
		return fmt.Errorf("%s: gate #%d: %w", op, id, core.ErrNotFound)
	}
	change(&g)
	s.gates.byID[id] = g
	return nil
}

// ClaimGrant stores g unless the member has a grant of the gate already:
// claimed is false then. A zero GrantedAt is now. It returns an error for
// an unknown state or an empty member, and core.ErrNotFound for an
// unknown gate or user.
func (s *MemStore) ClaimGrant(_ context.Context, g core.Grant) (bool, error) {
	if err := checkGrant(g); err != nil {
		return false, fmt.Errorf("claim grant: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.gateUserLocked("claim grant", g.GateID, g.UserID); err != nil {
		return false, err
	}
	k := gateUser{g.GateID, g.UserID}
	if _, ok := s.gates.grants[k]; ok {
		return false, nil
	}
	g.Wallets, g.GrantedAt = cloneOrNil(g.Wallets), orNow(g.GrantedAt)
	s.gates.grants[k] = g
	return true, nil
}

// SetGrant updates the state, reason, wallets and time of the member's
// grant; a zero GrantedAt is now. It returns an error for an unknown state
// or an empty member, and core.ErrNotFound when there is no such grant.
func (s *MemStore) SetGrant(_ context.Context, g core.Grant) error {
	if err := checkGrant(g); err != nil {
		return fmt.Errorf("set grant: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := gateUser{g.GateID, g.UserID}
	old, ok := s.gates.grants[k]
	if !ok {
		return fmt.Errorf("set grant: %w", core.ErrNotFound)
	}
	old.State, old.Reason, old.Wallets, old.GrantedAt = g.State, g.Reason, cloneOrNil(g.Wallets), orNow(g.GrantedAt)
	s.gates.grants[k] = old
	return nil
}

// DropGrant deletes the member's grant of the gate; dropped is false when
// there was none.
func (s *MemStore) DropGrant(_ context.Context, gateID, userID int64) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := gateUser{gateID, userID}
	_, ok := s.gates.grants[k]
	delete(s.gates.grants, k)
	return ok, nil
}

// Grants lists the gate's grants, oldest first.
func (s *MemStore) Grants(_ context.Context, gateID int64) ([]core.Grant, error) {
	return s.grantsWhere(func(g core.Grant) bool { return g.GateID == gateID }), nil
}

// UserGrants lists the user's grants, of every gate, oldest first.
func (s *MemStore) UserGrants(_ context.Context, userID int64) ([]core.Grant, error) {
	return s.grantsWhere(func(g core.Grant) bool { return g.UserID == userID }), nil
}

func (s *MemStore) grantsWhere(match func(core.Grant) bool) []core.Grant {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []core.Grant
	for _, g := range s.gates.grants {
		if match(g) {
			g.Wallets = slices.Clone(g.Wallets)
			out = append(out, g)
		}
	}
	slices.SortFunc(out, func(a, b core.Grant) int {
		return cmp.Or(a.GrantedAt.Compare(b.GrantedAt), cmp.Compare(a.GateID, b.GateID), cmp.Compare(a.UserID, b.UserID))
	})
	return out
}

// AddJoinRequest stores a pending join request unless one of the member
// to the gate is stored: added is false then. A zero RequestedAt is now.
// It returns an error for an empty member, and core.ErrNotFound for an
// unknown gate or user.
func (s *MemStore) AddJoinRequest(_ context.Context, r core.JoinRequest) (bool, error) {
	if r.Member == "" {
		return false, fmt.Errorf("add join request: the member is empty")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.gateUserLocked("add join request", r.GateID, r.UserID); err != nil {
		return false, err
	}
	k := gateUser{r.GateID, r.UserID}
	if _, ok := s.gates.requests[k]; ok {
		return false, nil
	}
	r.RequestedAt = orNow(r.RequestedAt)
	s.gates.requests[k] = r
	return true, nil
}

// JoinRequests lists the gate's pending join requests, oldest first.
func (s *MemStore) JoinRequests(_ context.Context, gateID int64) ([]core.JoinRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.joinRequestsLocked(func(k gateUser) bool { return k.gate == gateID }), nil
}

// UserJoinRequests lists the user's pending join requests, oldest first.
func (s *MemStore) UserJoinRequests(_ context.Context, userID int64) ([]core.JoinRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.joinRequestsLocked(func(k gateUser) bool { return k.user == userID }), nil
}

// joinRequestsLocked returns the join requests that match, oldest first;
// s.mu is held.
func (s *MemStore) joinRequestsLocked(match func(gateUser) bool) []core.JoinRequest {
	var out []core.JoinRequest
	for k, r := range s.gates.requests {
		if match(k) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b core.JoinRequest) int {
		return cmp.Or(a.RequestedAt.Compare(b.RequestedAt), cmp.Compare(a.GateID, b.GateID), cmp.Compare(a.UserID, b.UserID))
	})
	return out
}

// DropJoinRequest deletes the member's pending join request to the gate;
// dropped is false when there was none.
func (s *MemStore) DropJoinRequest(_ context.Context, gateID, userID int64) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := gateUser{gateID, userID}
	_, ok := s.gates.requests[k]
	delete(s.gates.requests, k)
	return ok, nil
}

// VerifiedMembers lists the platform's users, by id, that have a verified
// wallet with an address (e-mails never count), each with those
// addresses in lower case, sorted and without repeats.
func (s *MemStore) VerifiedMembers(_ context.Context, p core.Platform) ([]core.VerifiedMember, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.verifiedLocked(func(u core.User) bool { return u.Platform == p }), nil
}

// PlaceVerifiedMembers is VerifiedMembers of the users seen in the place.
func (s *MemStore) PlaceVerifiedMembers(_ context.Context, placeID int64) ([]core.VerifiedMember, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.verifiedLocked(func(u core.User) bool { return s.gates.seen[[2]int64{placeID, u.ID}] }), nil
}

// SeeMember records that the user is in the place.
func (s *MemStore) SeeMember(_ context.Context, placeID, userID int64, _ time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.hasUserLocked(userID) {
		return fmt.Errorf("see member: user #%d: %w", userID, core.ErrNotFound)
	}
	s.gates.seen[[2]int64{placeID, userID}] = true
	return nil
}

// UnseeMember records that the user left the place.
func (s *MemStore) UnseeMember(_ context.Context, placeID, userID int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.gates.seen, [2]int64{placeID, userID})
	return nil
}

// verifiedLocked lists the users keep accepts that have verified
// addresses, by id; s.mu is held. Wallets are read once, by user.
func (s *MemStore) verifiedLocked(keep func(core.User) bool) []core.VerifiedMember {
	byUser := map[int64][]string{}
	for _, w := range s.wallets {
		if w.Verified() && w.Address != "" && w.Kind != core.KindEmail {
			byUser[w.UserID] = append(byUser[w.UserID], strings.ToLower(w.Address))
		}
	}
	var out []core.VerifiedMember
	for _, u := range s.users {
		addresses := byUser[u.ID]
		if len(addresses) == 0 || !keep(u) {
			continue
		}
		slices.Sort(addresses)
		out = append(out, core.VerifiedMember{User: u, Addresses: slices.Compact(addresses)})
	}
	slices.SortFunc(out, func(a, b core.VerifiedMember) int { return cmp.Compare(a.User.ID, b.User.ID) })
	return out
}

// gateUserLocked returns core.ErrNotFound unless the gate and the user
// exist; s.mu is held.
func (s *MemStore) gateUserLocked(op string, gateID, userID int64) error {
	if _, ok := s.gates.byID[gateID]; !ok || !s.hasUserLocked(userID) {
		return fmt.Errorf("%s: gate #%d or user #%d: %w", op, gateID, userID, core.ErrNotFound)
	}
	return nil
}

// hasUserLocked reports whether the user exists; s.mu is held.
func (s *MemStore) hasUserLocked(id int64) bool {
	return slices.ContainsFunc(s.users, func(u core.User) bool { return u.ID == id })
}

// checkGrant refuses what storage.DB refuses of a grant.
func checkGrant(g core.Grant) error {
	switch g.State {
	case core.GrantPending, core.GrantActive, core.GrantWithdrawn:
	default:
		return fmt.Errorf("unknown grant state %q", g.State)
	}
	if g.Member == "" {
		return fmt.Errorf("the grant's member is empty")
	}
	return nil
}

// cloneGate returns g with its own copies of the drops and times.
func cloneGate(g core.Gate) core.Gate {
	g.Drops = slices.Clone(g.Drops)
	g.PausedAt, g.SyncedAt = clonePtr(g.PausedAt), clonePtr(g.SyncedAt)
	return g
}

// clonePtr returns a pointer to a copy of *p, or nil.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// cloneOrNil returns a copy of xs, nil when it is empty (as storage.DB
// reads an empty list back).
func cloneOrNil[T any](xs []T) []T {
	if len(xs) == 0 {
		return nil
	}
	return slices.Clone(xs)
}

// orNow returns t in UTC, or now when t is zero.
func orNow(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now().UTC()
	}
	return t.UTC()
}
