package core_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/poapbot/poapbot/core"
)

// racingActions hold every Prepare until two have arrived: two moderators'
// /gate add of one group, both past the check that it is not gated yet
// before either is stored.
type racingActions struct {
	groupActions
	both *sync.WaitGroup
}

func (a racingActions) Prepare(ctx context.Context, place, target string) (core.GateTarget, error) {
	a.both.Done()
	a.both.Wait()
	return a.groupActions.Prepare(ctx, place, target)
}

// TestAddGate_Simultaneous: of two moderators adding one group's gate at
// once, one gate is stored with one invite link; the other moderator is
// told it is gated already (the answer of a later /gate add, not a clash
// to try again), and no invite link is created for them.
func TestAddGate_Simultaneous(t *testing.T) {
	e := newGateEnv(t, core.Telegram, core.GateGroup)
	both := &sync.WaitGroup{}
	both.Add(2)
	e.use(racingActions{groupActions{e.actions}, both})
	e.issuer.give(addrA, 7)

	mods := []core.Member{
		{Platform: core.Telegram, ExternalID: "mod1", Name: "Mod One"},
		{Platform: core.Telegram, ExternalID: "mod2", Name: "Mod Two"},
	}
	gates := make([]core.Gate, len(mods))
	errs := make([]error, len(mods))
	var wg sync.WaitGroup
	for i, m := range mods {
		wg.Go(func() { gates[i], errs[i] = e.svc.AddGate(t.Context(), m, e.place, core.GateSpec{Drops: "7"}) })
	}
	wg.Wait()
	e.wait()

	won := -1
	for i, err := range errs {
		switch {
		case err == nil && won < 0:
			won = i
		case err == nil:
			t.Fatalf("both /gate add succeeded: %+v, %+v", gates[0], gates[1])
		case !errors.Is(err, core.ErrGateExists) || errors.Is(err, core.ErrConflict):
			t.Errorf("the second /gate add = %v, want ErrGateExists alone (\"gated already\"), not a conflict", err)
		}
	}
	if won < 0 {
		t.Fatalf("no /gate add succeeded: %v", errs)
	}
	if e.actions.links != 1 || gates[won].Target.InviteLink != "https://t.me/+join1" {
		t.Errorf("%d invite links created, the gate's is %q; want one, the stored gate's", e.actions.links, gates[won].Target.InviteLink)
	}
	stored, err := e.svc.Gates(t.Context(), e.place)
	if err != nil || len(stored) != 1 || stored[0].Target.InviteLink != "https://t.me/+join1" {
		t.Errorf("Gates() = %+v, %v; want the one gate with its link", stored, err)
	}

	// A later /gate add of the same group: the same answer, no link.
	_, err = e.svc.AddGate(t.Context(), mods[1-won], e.place, core.GateSpec{Drops: "7"})
	if !errors.Is(err, core.ErrGateExists) || e.actions.links != 1 {
		t.Errorf("a later /gate add = %v with %d links, want ErrGateExists and still one", err, e.actions.links)
	}
}

// TestAddGate_InviteLinkRefused: a gate whose invite link the platform
// refuses is not kept, and the refusal, with its fix, is the answer.
func TestAddGate_InviteLinkRefused(t *testing.T) {
	e := newGateEnv(t, core.Telegram, core.GateGroup)
	e.use(refusingInviter{e.actions})
	_, err := e.svc.AddGate(t.Context(), e.mod, e.place, core.GateSpec{Drops: "7"})
	var p *core.GateProblem
	if !errors.As(err, &p) || !errors.Is(err, core.ErrCannotEnforce) {
		t.Fatalf("AddGate() with the link refused = %v, want the *GateProblem", err)
	}
	if gs, err := e.svc.Gates(t.Context(), e.place); err != nil || len(gs) != 0 {
		t.Errorf("Gates() = %+v, %v; want none kept", gs, err)
	}
}

// refusingInviter is a platform that refuses every invite link.
type refusingInviter struct{ *fakeActions }

func (refusingInviter) CreateInviteLink(context.Context, string, core.GateTarget) (string, error) {
	return "", &core.GateProblem{Reason: "no right to invite", Fix: "give the bot the right to invite"}
}
