package core

import (
	"context"
	"errors"
	"slices"
	"strings"
)

// GateService is the WalletEvents of the WalletService: members are
// re-evaluated within seconds of /verify, /unlink and /forget, in the
// background (the member's command does not wait for the platform).
var _ WalletEvents = (*GateService)(nil)

// WalletVerified re-evaluates the member in every gated place of their
// platform, giving back a role a moderator took away (a /verify is the
// member's own action); the members who lost the address to them are
// re-evaluated too. The address just verified is read from the issuing
// service; the member's others come from the holdings cache when it keeps
// them, so that verifying a tenth wallet costs one scan, not ten.
func (s *GateService) WalletVerified(_ context.Context, user User, w Wallet, moved []Wallet) {
	fresh := allFresh
	if addr := strings.ToLower(w.Address); addr != "" {
		fresh = func(a string) bool { return a == addr }
	}
	s.background(func(ctx context.Context) {
		s.memberChanged(ctx, user, "", trigger{reason: "verify", force: true}, fresh)
	})
	seen := map[int64]bool{user.ID: true}
	for _, w := range moved {
		if seen[w.UserID] {
			continue
		}
		seen[w.UserID] = true
		other := User{ID: w.UserID, Platform: w.Platform}
		s.background(func(ctx context.Context) {
			s.memberChanged(ctx, other, "", trigger{reason: "wallet moved"}, noneFresh)
		})
	}
}

// WalletUnlinked re-evaluates the member: what the unlinked wallets gave
// is taken back unless another verified wallet still qualifies.
func (s *GateService) WalletUnlinked(_ context.Context, user User, _ []Wallet) {
	s.background(func(ctx context.Context) {
		s.memberChanged(ctx, user, "", trigger{reason: "unlink"}, noneFresh)
	})
}

// MemberForgotten takes back everything the bot gave the forgotten member:
// their grants were deleted with them, and f lists them.
func (s *GateService) MemberForgotten(_ context.Context, f Forgotten) {
	if len(f.Grants) == 0 {
		return
	}
	s.background(func(ctx context.Context) {
		a := s.actionsOf(f.User.Platform)
		if a == nil {
			return
		}
		gs, err := s.gates.PlatformGates(ctx, f.User.Platform)
		if err != nil {
			s.log.Warn("gates of a forgotten member not read", "err", err)
			return
		}
		for _, gr := range f.Grants {
			for _, g := range gs {
				if g.ID != gr.GateID || g.Paused != "" {
					continue
				}
				st, err := a.Standing(ctx, g.Place, g.Target, gr.Member)
				if err == nil && st.Has {
					err = a.Revoke(ctx, g.Place, g.Target, gr.Member)
				}
				if err != nil {
					if ferr := s.failed(ctx, a, g, err); !errors.Is(ferr, errGatePaused) {
						s.log.Warn("taking back a forgotten member's grant failed", "gate", g.ID, "err", err)
					}
				}
			}
		}
	})
}

// MemberJoined evaluates a member who joined a server (Discord), giving
// them the roles they qualify for, also one a moderator once took away.
func (s *GateService) MemberJoined(_ context.Context, p Platform, place string, m Member) {
	s.background(func(ctx context.Context) {
		user, err := s.members.FindUser(ctx, p, m.ExternalID)
		if errors.Is(err, ErrNotFound) {
			return // never linked a wallet: nothing to give
		}
		if err != nil {
			s.log.Warn("a joining member was not evaluated", "err", err)
			return
		}
		s.memberChanged(ctx, user, place, trigger{reason: "join", force: true}, noneFresh)
	})
}

// JoinRequested settles a request to join a gated group: approved when the
// member qualifies; declined, with the missing drops, when their verified
// wallets lack them; otherwise left pending while the member is told how
// to link and verify (approved the moment they qualify, declined after
// JoinRequestTTL). The request is stored before JoinRequested returns (the
// platform's update is then answered); the decision follows in the
// background. A request to a paused gate waits for the gate to resume; one
// to a group without a gate is left to its administrators.
func (s *GateService) JoinRequested(ctx context.Context, p Platform, place string, m Member) {
	a := s.actionsOf(p)
	if a == nil {
		return
	}
	g, req, added, err := s.storeJoinRequest(ctx, p, place, m)
	switch {
	case err != nil:
		s.log.Warn("a join request was not stored: it stays with the group's administrators", "place", place, "err", err)
		return
	case g.ID == 0 || g.Paused != "":
		return
	}
	user := User{ID: req.UserID, Platform: p, ExternalID: req.Member, Name: m.Name}
	s.background(func(ctx context.Context) {
		if err := s.decideJoinRequest(ctx, a, g, user, req, added); err != nil && !errors.Is(err, errGatePaused) {
			s.log.Warn("a join request was not settled: the next sweep decides it", "place", place, "err", err)
		}
	})
}

// storeJoinRequest stores the member's request to the place's group gate;
// the gate is zero when the place has none.
func (s *GateService) storeJoinRequest(ctx context.Context, p Platform, place string, m Member) (Gate, JoinRequest, bool, error) {
	gs, err := s.gates.PlatformGates(ctx, p)
	if err != nil {
		return Gate{}, JoinRequest{}, false, err
	}
	i := slices.IndexFunc(gs, func(g Gate) bool { return g.Place == place && g.Target.Kind == GateGroup })
	if i < 0 {
		return Gate{}, JoinRequest{}, false, nil
	}
	user, err := s.members.UpsertUser(ctx, m.user())
	if err != nil {
		return Gate{}, JoinRequest{}, false, err
	}
	req := JoinRequest{GateID: gs[i].ID, UserID: user.ID, Member: user.ExternalID, RequestedAt: s.clock.Now()}
	added, err := s.gates.AddJoinRequest(ctx, req)
	if err == nil {
		err = s.gates.SeeMember(ctx, gs[i].PlaceID, user.ID, req.RequestedAt)
	}
	return gs[i], req, added, err
}

// decideJoinRequest decides a stored join request from the holdings of
// the member's verified addresses (see readMember).
func (s *GateService) decideJoinRequest(ctx context.Context, a GateActions, g Gate, user User, req JoinRequest, added bool) error {
	ctx = WithRequester(ctx, userRequester(user))
	addrs, err := s.verifiedAddresses(ctx, user.ID)
	if err != nil {
		return err
	}
	if len(addrs) == 0 {
		if added {
			s.tell(ctx, a, user.ExternalID, GateNotice{Kind: NoticeJoinPending, Gate: g})
		}
		return nil
	}
	c := newCandidate(user, addrs)
	c.requests[g.ID] = req
	idx := s.readMember(ctx, []Gate{g}, c, g.DropIDs(), noneFresh)
	v, wallets, ok := verdictOf(g, addrs, idx)
	if !ok {
		return errors.New("a verified address could not be scanned")
	}
	_, err = s.settleRequest(ctx, a, g, c, req, v, wallets, trigger{reason: "join request", fresh: len(idx.cached) == 0})
	return err
}

// recordDecline keeps the join request the bot just declined, for /why:
// a failure is logged, it only leaves /why without the request.
func (s *GateService) recordDecline(ctx context.Context, g Gate, c *candidate, req JoinRequest, v GateVerdict) {
	d := JoinDecline{GateID: g.ID, UserID: c.user.ID, Member: c.user.ExternalID, Reason: DeclineMissing,
		Missing: g.Missing(v), RequestedAt: req.RequestedAt, DeclinedAt: s.clock.Now()}
	if len(c.addresses) == 0 {
		d.Reason = DeclineExpired
	}
	s.settle(ctx, "recording a declined join request", func(ctx context.Context) error {
		return s.gates.AddJoinDecline(ctx, d)
	})
}

// pruneDeclines deletes the declined join requests older than
// JoinDeclineTTL; the schedule's sweep calls it. A failure is logged: it
// only delays the deletion (/why never shows them).
func (s *GateService) pruneDeclines(ctx context.Context) {
	n, err := s.gates.PruneJoinDeclines(ctx, s.clock.Now().Add(-JoinDeclineTTL))
	if err != nil {
		s.log.Warn("deleting old declined join requests failed", "err", err)
		return
	}
	if n > 0 {
		s.log.Info("deleted old declined join requests", "count", n)
	}
}

// memberChanged re-evaluates one member in every gate of their platform
// (of one place when place is set), from one read of each of their
// verified addresses (see readMember; fresh names those read from the
// issuing service whatever the holdings cache keeps).
func (s *GateService) memberChanged(ctx context.Context, user User, place string, t trigger, fresh func(string) bool) {
	ctx = WithRequester(ctx, userRequester(user))
	a := s.actionsOf(user.Platform)
	if a == nil {
		return
	}
	gs, err := s.gates.PlatformGates(ctx, user.Platform)
	if err != nil {
		s.log.Warn("a member was not re-evaluated", "user", user.ID, "err", err)
		return
	}
	var drops []int64
	kept := gs[:0]
	for _, g := range gs {
		if place != "" && g.Place != place {
			continue
		}
		kept = append(kept, g)
		if g.Paused == "" {
			drops = append(drops, g.DropIDs()...)
		}
	}
	if len(kept) == 0 {
		return
	}
	c, err := s.candidateOf(ctx, user)
	if err != nil {
		s.log.Warn("a member was not re-evaluated", "user", user.ID, "err", err)
		return
	}
	if c.user.ExternalID == "" {
		// A member known only by id (the former holder of a moved
		// wallet): their platform id is on what the bot gave or holds
		// for them; with neither, there is nothing to take back.
		if c.user.ExternalID = c.member(); c.user.ExternalID == "" {
			return
		}
	}
	idx := s.readMember(ctx, kept, c, uniqueInts(drops), fresh)
	t.fresh = len(idx.cached) == 0
	for _, g := range kept {
		if g.Target.Kind == GateGroup {
			_, granted := c.grants[g.ID]
			_, requested := c.requests[g.ID]
			if !granted && !requested {
				continue
			}
		}
		v, wallets, ok := verdictOf(g, c.addresses, idx)
		if !ok || g.Paused != "" {
			// Nothing to decide now, but whether the member is in the
			// place is worth knowing: the schedule sweeps those seen.
			if g.Target.Kind != GateGroup {
				s.seeIfIn(ctx, a, g, c)
			}
			continue
		}
		if _, err := s.applyMember(ctx, a, g, c, v, wallets, t); err != nil && !errors.Is(err, errGatePaused) {
			s.log.Warn("applying a gate to a member failed", "gate", g.ID, "user", user.ID, "err", err)
		}
	}
}

// readMember reads the holdings of the member's verified addresses for
// the gates: from the holdings cache where it may, except the addresses
// fresh names; then, when the verdicts would take something from the
// member (a role or an admission the bot gave, a pending join request),
// once more from the issuing service for the addresses the cache answered.
// So nothing is taken from a member on a read up to HoldingsTTL old, while
// a member whose verdicts give or keep costs no scan of a cached address.
func (s *GateService) readMember(ctx context.Context, gs []Gate, c *candidate, drops []int64, fresh func(string) bool) holdingIndex {
	idx, _ := s.scanAddresses(ctx, newIndex(), drops, c.addresses, fresh)
	if len(idx.cached) > 0 && takesFrom(gs, c, idx) {
		idx = s.refresh(ctx, idx, drops)
	}
	return idx
}

// takesFrom reports whether a verdict on idx would take something from
// the member: a gate, not paused, whose target the bot gave them or whose
// join request waits, that they do not qualify for.
func takesFrom(gs []Gate, c *candidate, idx holdingIndex) bool {
	for _, g := range gs {
		_, granted := c.grants[g.ID]
		_, requested := c.requests[g.ID]
		if g.Paused != "" || (!granted && !requested) {
			continue
		}
		if v, _, ok := verdictOf(g, c.addresses, idx); ok && !v.Qualifies {
			return true
		}
	}
	return false
}

// seeIfIn records the member in the gate's place when the platform says
// they are in it.
func (s *GateService) seeIfIn(ctx context.Context, a GateActions, g Gate, c *candidate) {
	st, err := a.Standing(ctx, g.Place, g.Target, c.user.ExternalID)
	if err == nil {
		err = s.notePlace(ctx, g, c, st.InPlace)
	}
	if err != nil {
		s.log.Info("whether a member is in a gated place is not known", "gate", g.ID, "user", c.user.ID, "err", err)
	}
}

// candidateOf reads one member's verified addresses, grants and pending
// join requests.
func (s *GateService) candidateOf(ctx context.Context, user User) (*candidate, error) {
	addrs, err := s.verifiedAddresses(ctx, user.ID)
	if err != nil {
		return nil, err
	}
	c := newCandidate(user, addrs)
	grants, err := s.gates.UserGrants(ctx, user.ID)
	if err != nil {
		return nil, err
	}
	for _, g := range grants {
		c.grants[g.GateID] = g
	}
	reqs, err := s.gates.UserJoinRequests(ctx, user.ID)
	if err != nil {
		return nil, err
	}
	for _, r := range reqs {
		c.requests[r.GateID] = r
	}
	return c, nil
}

// verifiedAddresses returns the lower-case addresses of the user's
// verified wallets: the only ones gating counts.
func (s *GateService) verifiedAddresses(ctx context.Context, userID int64) ([]string, error) {
	ws, err := s.members.Wallets(ctx, userID)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, w := range ws {
		if w.Verified() && w.Address != "" {
			out = append(out, strings.ToLower(w.Address))
		}
	}
	return uniqueStrings(out), nil
}
