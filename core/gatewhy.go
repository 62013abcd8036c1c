package core

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
)

// WhyWallet is one of a member's wallets as /why shows it: whether it
// counts (verified, with an address), which of the gate's drops it holds,
// and whether its scan failed.
type WhyWallet struct {
	Wallet  Wallet
	Counted bool
	Held    []GateDrop
	Failed  bool
}

// WhyEntry explains one gate to a member.
type WhyEntry struct {
	Gate    Gate
	Wallets []WhyWallet
	// Verdict is the gate's rule against the member's verified wallets
	// now.
	Verdict GateVerdict
	// Granted is true when the bot gave the member the target.
	Granted bool
	// Request is the member's join request that waits; nil when none.
	Request *JoinRequest
	// Declined is the member's join request the bot declined in the last
	// JoinDeclineTTL; nil when none, or when a grant or a newer request
	// stands.
	Declined *JoinDecline
	// LastCheck is when the gate was last applied to everyone (nil:
	// never), NextCheck when it will be next.
	LastCheck *time.Time
	NextCheck time.Time
}

// WhyQuery says which gates /why explains: the one on Target, or every
// gate of the place; in a private chat (Private), the gated groups the
// member belongs to or asked to join (a request waiting, or declined in
// the last JoinDeclineTTL).
type WhyQuery struct {
	Target  string
	Private bool
}

// whyMember is what /why reads of the member: their wallets, grants,
// waiting join requests and recently declined ones.
type whyMember struct {
	wallets  []Wallet
	c        *candidate
	declines map[int64]JoinDecline
}

// Why explains, for each gate here, the rule, each of the member's wallets
// and what it holds of the gate's drops, the verdict, the member's join
// request (waiting, or declined in the last JoinDeclineTTL), and the last
// and next check. Holdings read in the last HoldingsTTL (by /poaps, a
// verification, an earlier /why) are not read again. ErrNoGate when the
// place has no gate (or none on Target; in private, when the member is in
// no gated group and asked to join none).
func (s *GateService) Why(ctx context.Context, m Member, p Place, q WhyQuery) ([]WhyEntry, error) {
	wm, err := s.whyMemberOf(ctx, m)
	if err != nil {
		return nil, wrap("why", err)
	}
	gs, err := s.whyGates(ctx, m, p, q, wm)
	if err != nil {
		return nil, err
	}
	var drops []int64
	for _, g := range gs {
		drops = append(drops, g.DropIDs()...)
	}
	idx, _ := s.scanAddresses(ctx, newIndex(), uniqueInts(drops), wm.c.addresses, noneFresh)
	out := make([]WhyEntry, 0, len(gs))
	for _, g := range gs {
		e := WhyEntry{Gate: g, LastCheck: g.SyncedAt, NextCheck: s.nextCheck(g)}
		_, e.Granted = wm.c.grants[g.ID]
		if r, ok := wm.c.requests[g.ID]; ok {
			e.Request = &r
		}
		if d, ok := wm.declines[g.ID]; ok && !e.Granted && e.Request == nil && !s.inPlace(ctx, g, m) {
			e.Declined = &d
		}
		for _, w := range wm.wallets {
			e.Wallets = append(e.Wallets, whyWallet(g, w, idx))
		}
		e.Verdict, _, _ = verdictOf(g, wm.c.addresses, idx)
		out = append(out, e)
	}
	return out, nil
}

// inPlace reports whether the member is in g's place now (a member
// declined once may have joined since by another invite link: the
// decline is then no longer theirs to read); false when unknown.
func (s *GateService) inPlace(ctx context.Context, g Gate, m Member) bool {
	a := s.actionsOf(g.Platform)
	if a == nil {
		return false
	}
	st, err := a.Standing(ctx, g.Place, g.Target, m.ExternalID)
	return err == nil && st.InPlace
}

// whyWallet says what w holds of g's drops.
func whyWallet(g Gate, w Wallet, idx holdingIndex) WhyWallet {
	ww := WhyWallet{Wallet: w, Counted: w.Verified() && w.Address != ""}
	if !ww.Counted {
		return ww
	}
	addr := strings.ToLower(w.Address)
	ww.Failed = idx.failed[addr]
	for _, d := range g.Drops {
		if slices.Contains(idx.held[addr], d.ID) {
			ww.Held = append(ww.Held, d)
		}
	}
	return ww
}

// whyMemberOf reads what /why explains of the member; nothing for a
// member never stored.
func (s *GateService) whyMemberOf(ctx context.Context, m Member) (whyMember, error) {
	wm := whyMember{c: newCandidate(User{}, nil), declines: map[int64]JoinDecline{}}
	user, err := s.members.FindUser(ctx, m.Platform, m.ExternalID)
	switch {
	case errors.Is(err, ErrNotFound):
		return wm, nil
	case err != nil:
		return wm, err
	}
	if wm.wallets, err = s.members.Wallets(ctx, user.ID); err != nil {
		return wm, err
	}
	if wm.c, err = s.candidateOf(ctx, user); err != nil {
		return wm, err
	}
	ds, err := s.gates.UserJoinDeclines(ctx, user.ID, s.clock.Now().Add(-JoinDeclineTTL))
	if err != nil {
		return wm, err
	}
	for _, d := range ds {
		wm.declines[d.GateID] = d
	}
	return wm, nil
}

// whyGates picks the gates /why explains.
func (s *GateService) whyGates(ctx context.Context, m Member, p Place, q WhyQuery, wm whyMember) ([]Gate, error) {
	if !q.Private {
		if q.Target != "" {
			g, err := s.gateOf(ctx, p, q.Target)
			if err != nil {
				return nil, err
			}
			return []Gate{g}, nil
		}
		gs, err := s.Gates(ctx, p)
		if err != nil {
			return nil, err
		}
		if len(gs) == 0 {
			return nil, ErrNoGate
		}
		return gs, nil
	}
	a := s.actionsOf(p.Platform)
	gs, err := s.gates.PlatformGates(ctx, p.Platform)
	if err != nil {
		return nil, wrap("why", err)
	}
	var out []Gate
	for _, g := range gs {
		if wm.concerns(g.ID) {
			out = append(out, g)
			continue
		}
		if a == nil {
			continue
		}
		if st, err := a.Standing(ctx, g.Place, g.Target, m.ExternalID); err == nil && st.InPlace {
			out = append(out, g)
		}
	}
	if len(out) == 0 {
		return nil, ErrNoGate
	}
	return out, nil
}

// concerns reports whether the member has a grant of the gate, a join
// request to it waiting, or one declined recently.
func (wm whyMember) concerns(gateID int64) bool {
	_, granted := wm.c.grants[gateID]
	_, requested := wm.c.requests[gateID]
	_, declined := wm.declines[gateID]
	return granted || requested || declined
}

// nextCheck is when the schedule applies g next.
func (s *GateService) nextCheck(g Gate) time.Time {
	now := s.clock.Now()
	if g.SyncedAt == nil {
		return now.Add(s.interval)
	}
	next := g.SyncedAt.Add(s.interval)
	if next.Before(now) {
		return now
	}
	return next
}

// SetupCheck is /setup check: the bot's rights in the place, as its
// platform's actions check them, then whether the issuing service answers
// with the configured key and credentials.
func (s *GateService) SetupCheck(ctx context.Context, p Place) []SetupLine {
	var out []SetupLine
	if a := s.actionsOf(p.Platform); a != nil {
		out = append(out, a.Setup(ctx, p.ExternalID)...)
	} else {
		out = append(out, SetupLine{Check: "gating on " + p.Platform.Title(), Fix: "this process runs without the " + p.Platform.Title() + " adapter"})
	}
	return append(out, s.check.CheckIssuer(ctx)...)
}
