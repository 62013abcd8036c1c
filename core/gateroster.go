package core

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
)

var _ Roster = (*GateService)(nil)

// rosterWorkers bounds how many members' standings a roster reads at once.
const rosterWorkers = 8

// VerifiedMembersOf returns the users with a verified wallet who have the
// role target in p (a Discord role id, a console role's name) or, target
// empty, are in the group p (Telegram), sorted by user id. Every verified
// member of the platform is asked about through the platform's
// GateActions.Standing (the platform cannot list a role's or a Telegram
// group's members for the bot, and only verified members can be
// delivered to). The first standing not read stops the reading:
// ErrRosterIncomplete. ErrCannotListMembers when no adapter of the
// platform can read its members' standing.
func (s *GateService) VerifiedMembersOf(ctx context.Context, p Place, target string) ([]VerifiedMember, error) {
	a := s.actionsOf(p.Platform)
	if a == nil {
		return nil, ErrCannotListMembers
	}
	t := GateTarget{ID: target, Kind: GateRole}
	if target == "" {
		t = GateTarget{ID: p.ExternalID, Kind: GateGroup}
	}
	all, err := s.gates.VerifiedMembers(ctx, p.Platform)
	if err != nil {
		return nil, wrap("roster", err)
	}
	has := make([]bool, len(all))
	readCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(rosterWorkers, len(all)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				st, err := a.Standing(readCtx, p.ExternalID, t, all[i].User.ExternalID)
				if err != nil {
					if readCtx.Err() == nil {
						s.log.Warn("roster: standing not read", "platform", p.Platform, "err", err)
					}
					stop(fmt.Errorf("roster: %w", ErrRosterIncomplete))
					continue
				}
				has[i] = st.InPlace && st.Has
			}
		}()
	}
	for i := range all {
		if readCtx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := context.Cause(readCtx); err != nil {
		return nil, err
	}
	var out []VerifiedMember
	for i, v := range all {
		if has[i] {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b VerifiedMember) int { return cmp.Compare(a.User.ID, b.User.ID) })
	return out, nil
}
