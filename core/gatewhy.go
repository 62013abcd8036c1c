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
	Verdict GateVerdict
	// Granted is true when the bot gave the member the target; Pending
	// when their join request waits.
	Granted bool
	Pending bool
	// LastCheck is when the gate was last applied to everyone (nil:
	// never), NextCheck when it will be next.
	LastCheck *time.Time
	NextCheck time.Time
}

// WhyQuery says which gates /why explains: the one on Target, or every
// gate of the place; in a private chat (Private), the gated groups the
// member belongs to or asked to join.
type WhyQuery struct {
	Target  string
	Private bool
}

// Why explains, for each gate here, the rule, each of the member's wallets
// and what it holds of the gate's drops, the verdict, and the last and
// next check. Holdings read in the last HoldingsTTL (by /poaps, a
// verification, an earlier /why) are not read again. ErrNoGate when the
// place has no gate (or none on Target).
func (s *GateService) Why(ctx context.Context, m Member, p Place, q WhyQuery) ([]WhyEntry, error) {
	gs, err := s.whyGates(ctx, m, p, q)
	if err != nil {
		return nil, err
	}
	var (
		wallets []Wallet
		c       = newCandidate(User{}, nil)
	)
	user, err := s.members.FindUser(ctx, m.Platform, m.ExternalID)
	switch {
	case err == nil:
		if wallets, err = s.members.Wallets(ctx, user.ID); err != nil {
			return nil, wrap("why", err)
		}
		if c, err = s.candidateOf(ctx, user); err != nil {
			return nil, wrap("why", err)
		}
	case !errors.Is(err, ErrNotFound):
		return nil, wrap("why", err)
	}
	var drops []int64
	for _, g := range gs {
		drops = append(drops, g.DropIDs()...)
	}
	idx, _ := s.scanAddresses(ctx, newIndex(), uniqueInts(drops), c.addresses, noneFresh)
	out := make([]WhyEntry, 0, len(gs))
	for _, g := range gs {
		e := WhyEntry{Gate: g, LastCheck: g.SyncedAt, NextCheck: s.nextCheck(g)}
		_, e.Granted = c.grants[g.ID]
		_, e.Pending = c.requests[g.ID]
		for _, w := range wallets {
			ww := WhyWallet{Wallet: w, Counted: w.Verified() && w.Address != ""}
			if ww.Counted {
				addr := strings.ToLower(w.Address)
				ww.Failed = idx.failed[addr]
				for _, d := range g.Drops {
					if slices.Contains(idx.held[addr], d.ID) {
						ww.Held = append(ww.Held, d)
					}
				}
			}
			e.Wallets = append(e.Wallets, ww)
		}
		e.Verdict, _, _ = verdictOf(g, c.addresses, idx)
		out = append(out, e)
	}
	return out, nil
}

// whyGates picks the gates /why explains.
func (s *GateService) whyGates(ctx context.Context, m Member, p Place, q WhyQuery) ([]Gate, error) {
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
	var c *candidate
	if user, err := s.members.FindUser(ctx, m.Platform, m.ExternalID); err == nil {
		c, _ = s.candidateOf(ctx, user)
	}
	var out []Gate
	for _, g := range gs {
		if c != nil {
			if _, ok := c.grants[g.ID]; ok {
				out = append(out, g)
				continue
			}
			if _, ok := c.requests[g.ID]; ok {
				out = append(out, g)
				continue
			}
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
