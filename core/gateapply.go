package core

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"time"
)

// applyMember applies g to one member whose verdict is v (wallets are the
// verified addresses holding its drops).
func (s *GateService) applyMember(ctx context.Context, a GateActions, g Gate, c *candidate, v GateVerdict, wallets []string, t trigger) (GateChange, error) {
	if g.Target.Kind == GateGroup {
		return s.applyGroup(ctx, a, g, c, v, wallets, t)
	}
	return s.applyRole(ctx, a, g, c, v, wallets, t)
}

// applyRole gives the role to a qualifying member who lacks it and takes
// it from a member who no longer qualifies, when the bot gave it. A role
// the member has without a grant is theirs (set by hand or by another
// bot): never touched. A granted role missing now was taken away by hand:
// the schedule notes it and does not give it back; a join or /verify does.
func (s *GateService) applyRole(ctx context.Context, a GateActions, g Gate, c *candidate, v GateVerdict, wallets []string, t trigger) (GateChange, error) {
	st, err := a.Standing(ctx, g.Place, g.Target, c.user.ExternalID)
	if err != nil {
		return ChangeNone, s.failed(ctx, a, g, err)
	}
	if !t.dry {
		if err := s.notePlace(ctx, g, c, st.InPlace); err != nil {
			return ChangeNone, err
		}
	}
	grant, granted := c.grants[g.ID]
	switch {
	case granted && s.young(grant) && !st.Has:
		return ChangeNone, nil // another pass is asking the platform for it
	case !st.InPlace:
		if granted && !t.dry {
			_, err := s.gates.DropGrant(ctx, g.ID, c.user.ID)
			return ChangeNone, err
		}
		return ChangeNone, nil
	case v.Qualifies && st.Has:
		if granted && grant.State != GrantActive && !t.dry {
			grant.State = GrantActive // a pending grant confirmed, or given back by hand
			return ChangeNone, s.gates.SetGrant(ctx, grant)
		}
		return ChangeNone, nil
	case v.Qualifies:
		return s.giveRole(ctx, a, g, c, grant, granted, wallets, t)
	case !granted:
		return ChangeNone, nil
	case !st.Has || grant.State == GrantWithdrawn:
		if !t.dry {
			_, err := s.gates.DropGrant(ctx, g.ID, c.user.ID)
			return ChangeNone, err
		}
		return ChangeNone, nil
	case t.dry:
		return ChangeRevoked, nil
	}
	return s.takeBack(ctx, a, g, c, grant, v, t)
}

// notePlace records whether the member is in the gate's place, when it
// changed: the schedule sweeps the members seen there.
func (s *GateService) notePlace(ctx context.Context, g Gate, c *candidate, in bool) error {
	switch {
	case in && !c.seen[g.PlaceID]:
		c.seen[g.PlaceID] = true
		return s.gates.SeeMember(ctx, g.PlaceID, c.user.ID, s.clock.Now())
	case !in && c.seen[g.PlaceID]:
		delete(c.seen, g.PlaceID)
		return s.gates.UnseeMember(ctx, g.PlaceID, c.user.ID)
	}
	return nil
}

// giveRole gives the role to a qualifying member who lacks it, unless a
// moderator took it away (granted and active, by schedule: noted, not
// given back). The grant is claimed pending first (of replicas, the one
// that claims acts), made active once the platform confirms; a failure
// undoes the claim.
func (s *GateService) giveRole(ctx context.Context, a GateActions, g Gate, c *candidate, grant Grant, granted bool, wallets []string, t trigger) (GateChange, error) {
	switch {
	case granted && !t.force && grant.State == GrantActive:
		if t.dry {
			return ChangeNone, nil
		}
		grant.State = GrantWithdrawn
		s.log.Info("a moderator took a granted role away: not given back on schedule", "gate", g.ID, "user", c.user.ID)
		return ChangeWithdrawn, s.gates.SetGrant(ctx, grant)
	case granted && !t.force && grant.State == GrantWithdrawn:
		return ChangeNone, nil
	case t.dry:
		return ChangeGranted, nil
	}
	next := Grant{GateID: g.ID, UserID: c.user.ID, Member: c.user.ExternalID, Wallets: wallets, Reason: t.reason,
		State: GrantPending, GrantedAt: s.clock.Now()}
	if granted {
		if err := s.gates.SetGrant(ctx, next); err != nil {
			return ChangeNone, err
		}
	} else if claimed, err := s.gates.ClaimGrant(ctx, next); err != nil || !claimed {
		return ChangeNone, err
	}
	err := a.Grant(ctx, g.Place, g.Target, c.user.ExternalID)
	s.count(ActRoleGrant, g.Platform, doneOrFailed(err))
	if err != nil {
		// Refused for a permission: nothing was given, undo the claim.
		// Any other failure may have been applied all the same (a lost
		// answer): the grant stays pending, and the next pass reads the
		// member's standing to settle it (made active if they have the
		// role, asked again if not).
		if !granted && errors.Is(err, ErrGateForbidden) {
			s.settle(ctx, "undoing a grant record", func(ctx context.Context) error {
				_, err := s.gates.DropGrant(ctx, g.ID, c.user.ID)
				return err
			})
		}
		return ChangeNone, s.failed(ctx, a, g, err)
	}
	next.State = GrantActive
	c.grants[g.ID] = next
	s.settle(ctx, "confirming a grant", func(ctx context.Context) error { return s.gates.SetGrant(ctx, next) })
	return ChangeGranted, nil
}

// young reports whether a pending grant may still be waiting for its
// platform's answer on another pass (an event, another replica): it is left
// alone until pendingGrace has passed.
func (s *GateService) young(g Grant) bool {
	return g.State == GrantPending && s.clock.Now().Sub(g.GrantedAt) < pendingGrace
}

// pendingGrace is how long a pending grant is left to the pass that
// claimed it: longer than an event's evaluation may take.
const pendingGrace = eventTimeout + time.Minute

// settle runs a write that must follow a platform's answer even when the
// caller's context ended meanwhile (a command's timeout, a shutdown): on a
// context of its own, bounded by gateWriteTimeout. A failure is logged: the
// next pass reads the member's standing again.
func (s *GateService) settle(ctx context.Context, what string, write func(ctx context.Context) error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), gateWriteTimeout)
	defer cancel()
	if err := write(ctx); err != nil {
		s.log.Warn(what+" failed", "err", err)
	}
}

// gateWriteTimeout bounds a write that follows a platform's answer.
const gateWriteTimeout = 10 * time.Second

// takeBack removes the role or the member the bot gave, after the
// schedule's verdict is confirmed by a fresh scan of the member's verified
// addresses (a sweep's reads may be minutes old; a removal is never decided
// on them alone). It drops the grant first, so that of replicas doing the
// same the one that drops it acts; a failed removal restores it.
func (s *GateService) takeBack(ctx context.Context, a GateActions, g Gate, c *candidate, grant Grant, v GateVerdict, t trigger) (GateChange, error) {
	if !t.fresh {
		fresh, err := s.freshVerdict(ctx, g, c.user.ID)
		if err != nil || fresh.Qualifies {
			return ChangeNone, err
		}
		v = fresh
	}
	dropped, err := s.gates.DropGrant(ctx, g.ID, c.user.ID)
	if err != nil || !dropped {
		return ChangeNone, err
	}
	err = a.Revoke(ctx, g.Place, g.Target, c.user.ExternalID)
	s.count(ActRoleRemoval, g.Platform, doneOrFailed(err))
	if err != nil {
		s.settle(ctx, "restoring a grant record", func(ctx context.Context) error {
			_, err := s.gates.ClaimGrant(ctx, grant)
			return err
		})
		return ChangeNone, s.failed(ctx, a, g, err)
	}
	delete(c.grants, g.ID)
	if g.Target.Kind == GateGroup {
		s.tell(ctx, a, c.user.ExternalID, GateNotice{Kind: NoticeRemoved, Gate: g, Missing: g.Missing(v)})
	}
	return ChangeRevoked, nil
}

// freshVerdict evaluates g on the member's verified addresses as stored
// and as the issuing service answers now: one scan per address, whatever
// the holdings cache keeps.
func (s *GateService) freshVerdict(ctx context.Context, g Gate, userID int64) (GateVerdict, error) {
	addrs, err := s.verifiedAddresses(ctx, userID)
	if err != nil {
		return GateVerdict{}, err
	}
	idx, _ := s.scanAddresses(ctx, newIndex(), g.DropIDs(), addrs, allFresh)
	v, _, ok := verdictOf(g, addrs, idx)
	if !ok {
		return GateVerdict{}, errors.New("a verified address could not be scanned: nothing is taken back")
	}
	return v, nil
}

// applyGroup settles a group gate for a member the bot admitted or whose
// join request is pending: a pending request is approved when the member
// qualifies, declined when they are verified without the POAPs or after
// JoinRequestTTL, and left pending otherwise; an admitted member who no
// longer qualifies is removed.
func (s *GateService) applyGroup(ctx context.Context, a GateActions, g Gate, c *candidate, v GateVerdict, wallets []string, t trigger) (GateChange, error) {
	if req, ok := c.requests[g.ID]; ok {
		return s.settleRequest(ctx, a, g, c, req, v, wallets, t)
	}
	grant, ok := c.grants[g.ID]
	if !ok || v.Qualifies {
		return ChangeNone, nil
	}
	st, err := a.Standing(ctx, g.Place, g.Target, c.user.ExternalID)
	switch {
	case err != nil:
		return ChangeNone, s.failed(ctx, a, g, err)
	case t.dry && st.InPlace:
		return ChangeRevoked, nil
	case t.dry:
		return ChangeNone, nil
	case !st.InPlace:
		_, err := s.gates.DropGrant(ctx, g.ID, c.user.ID)
		return ChangeNone, err
	}
	return s.takeBack(ctx, a, g, c, grant, v, t)
}

// settleRequest decides a pending join request. The request is dropped
// from the store before the platform is asked (of replicas, the one that
// drops it acts) and put back, with its time, when the platform fails.
func (s *GateService) settleRequest(ctx context.Context, a GateActions, g Gate, c *candidate, req JoinRequest, v GateVerdict, wallets []string, t trigger) (GateChange, error) {
	expired := s.clock.Now().Sub(req.RequestedAt) >= JoinRequestTTL
	switch {
	case !v.Qualifies && len(c.addresses) == 0 && !expired:
		return ChangePending, nil
	case t.dry && v.Qualifies:
		return ChangeGranted, nil
	case t.dry:
		return ChangeDeclined, nil
	}
	dropped, err := s.gates.DropJoinRequest(ctx, g.ID, c.user.ID)
	if err != nil || !dropped {
		return ChangeNone, err
	}
	delete(c.requests, g.ID)
	if v.Qualifies {
		return s.admit(ctx, a, g, c, req, wallets, t.reason)
	}
	err = a.Decline(ctx, g.Place, g.Target, c.user.ExternalID)
	s.count(ActJoinRequest, g.Platform, decidedOrFailed(OutcomeDeclined, err))
	if err != nil {
		s.restoreRequest(ctx, req)
		return ChangeNone, s.failed(ctx, a, g, err)
	}
	n := GateNotice{Kind: NoticeJoinDeclined, Gate: g, Missing: g.Missing(v)}
	if len(c.addresses) == 0 {
		n = GateNotice{Kind: NoticeJoinExpired, Gate: g}
	}
	s.recordDecline(ctx, g, c, req, v)
	s.tell(ctx, a, c.user.ExternalID, n)
	return ChangeDeclined, nil
}

// admit approves the member's join request, dropped from the store by the
// caller, and records the grant: pending while the platform is asked,
// active once it approved. A request no longer pending on the platform
// (ErrJoinRequestGone) records nothing: the bot did not admit them.
func (s *GateService) admit(ctx context.Context, a GateActions, g Gate, c *candidate, req JoinRequest, wallets []string, reason string) (GateChange, error) {
	grant := Grant{GateID: g.ID, UserID: c.user.ID, Member: c.user.ExternalID, Wallets: wallets, Reason: reason,
		State: GrantPending, GrantedAt: s.clock.Now()}
	claimed, err := s.gates.ClaimGrant(ctx, grant)
	if err == nil && !claimed {
		err = s.gates.SetGrant(ctx, grant)
	}
	if err != nil {
		s.restoreRequest(ctx, req)
		return ChangeNone, err
	}
	err = a.Grant(ctx, g.Place, g.Target, c.user.ExternalID)
	if err != nil && !errors.Is(err, ErrGateForbidden) && !errors.Is(err, ErrJoinRequestGone) && s.admitted(ctx, a, g, c) {
		err = nil // the answer was lost, the approval was not
	}
	if !errors.Is(err, ErrJoinRequestGone) {
		s.count(ActJoinRequest, g.Platform, decidedOrFailed(OutcomeApproved, err))
		s.count(ActRoleGrant, g.Platform, doneOrFailed(err))
	}
	if err != nil {
		s.settle(ctx, "undoing a grant record", func(ctx context.Context) error {
			_, err := s.gates.DropGrant(ctx, g.ID, c.user.ID)
			return err
		})
		if errors.Is(err, ErrJoinRequestGone) {
			s.log.Info("a join request was answered elsewhere: not admitted by the bot", "gate", g.ID, "user", c.user.ID)
			return ChangeNone, nil
		}
		s.restoreRequest(ctx, req)
		return ChangeNone, s.failed(ctx, a, g, err)
	}
	grant.State = GrantActive
	c.grants[g.ID] = grant
	s.settle(ctx, "confirming a grant", func(ctx context.Context) error { return s.gates.SetGrant(ctx, grant) })
	s.tell(ctx, a, c.user.ExternalID, GateNotice{Kind: NoticeJoinApproved, Gate: g})
	return ChangeGranted, nil
}

// admitted reports whether the member is in the group after an approval
// whose answer failed: read on a context of its own, false when unknown.
func (s *GateService) admitted(ctx context.Context, a GateActions, g Gate, c *candidate) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), gateWriteTimeout)
	defer cancel()
	st, err := a.Standing(ctx, g.Place, g.Target, c.user.ExternalID)
	return err == nil && st.InPlace
}

// restoreRequest puts back a join request the platform could not answer:
// the next pass decides it again.
func (s *GateService) restoreRequest(ctx context.Context, req JoinRequest) {
	s.settle(ctx, "restoring a join request", func(ctx context.Context) error {
		_, err := s.gates.AddJoinRequest(ctx, req)
		return err
	})
}

// failed handles an action's error: a missing permission pauses the gate
// (the moderators are told once) and returns errGatePaused; any other
// error is returned as it is.
func (s *GateService) failed(ctx context.Context, a GateActions, g Gate, err error) error {
	if !errors.Is(err, ErrGateForbidden) {
		return err
	}
	problem := &GateProblem{Reason: "the platform refused a change for lack of a permission", Forbidden: true,
		Fix: "check the bot's permissions with /setup check"}
	errors.As(err, &problem)
	first, perr := s.gates.PauseGate(ctx, g.ID, pauseText(problem), s.clock.Now())
	if perr != nil {
		return errors.Join(err, perr)
	}
	if first {
		g.Paused = pauseText(problem)
		s.auditGate(ctx, g, nil, AuditGatePaused)
		s.log.Warn("gate paused: the platform refused for lack of a permission", "gate", g.ID, "err", err)
		if aerr := a.Announce(ctx, g.Place, g.Channel, GateNotice{Kind: NoticeGatePaused, Gate: g, Problem: problem}); aerr != nil {
			// Lost rights often take the channel too: the pause still
			// shows in /gate list and /setup check.
			s.log.Error("telling the moderators of a paused gate failed", "gate", g.ID, "err", aerr)
		}
	}
	return errGatePaused
}

// pauseText is what a paused gate shows in /gate list.
func pauseText(p *GateProblem) string {
	if p.Fix == "" {
		return p.Reason
	}
	return p.Reason + ". Fix: " + p.Fix
}

// tell writes a notice to a member; a failure (private messages closed) is
// logged.
func (s *GateService) tell(ctx context.Context, a GateActions, member string, n GateNotice) {
	if err := a.Tell(ctx, member, n); err != nil {
		s.log.Info("a gate notice could not be delivered", "gate", n.Gate.ID, "kind", n.Kind, "err", err)
	}
}

func uniqueInts(xs []int64) []int64 {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}

func uniqueStrings(xs []string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		out = append(out, strings.ToLower(x))
	}
	slices.SortFunc(out, cmp.Compare[string])
	return slices.Compact(out)
}
