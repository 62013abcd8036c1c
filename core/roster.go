package core

import (
	"cmp"
	"context"
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
// delivered to); failed is non-zero when a standing could not be read,
// which stops the reading.
// ErrMethodUnavailable when no adapter of the platform is attached.
func (s *GateService) VerifiedMembersOf(ctx context.Context, p Place, target string) ([]VerifiedMember, int, error) {
	a := s.actionsOf(p.Platform)
	if a == nil {
		return nil, 0, ErrMethodUnavailable
	}
	t := GateTarget{ID: target, Kind: GateRole}
	if target == "" {
		t = GateTarget{ID: p.ExternalID, Kind: GateGroup}
	}
	all, err := s.gates.VerifiedMembers(ctx, p.Platform)
	if err != nil {
		return nil, 0, wrap("roster", err)
	}
	has := make([]bool, len(all))
	var (
		mu     sync.Mutex
		failed int
		wg     sync.WaitGroup
	)
	// The first standing not read stops the reading: the list would be
	// incomplete whatever the others say.
	readCtx, stop := context.WithCancel(ctx)
	defer stop()
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
					mu.Lock()
					failed++
					mu.Unlock()
					stop()
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
		return nil, 0, err
	}
	var out []VerifiedMember
	for i, v := range all {
		if has[i] {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b VerifiedMember) int { return cmp.Compare(a.User.ID, b.User.ID) })
	return out, failed, nil
}
