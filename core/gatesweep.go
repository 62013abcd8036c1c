package core

import (
	"context"
	"errors"
	"slices"
	"time"
)

// GateChange is what applying a gate did (or, in a dry run, would do) to
// one member.
type GateChange int

// The changes of applying a gate to a member.
const (
	// ChangeNone: nothing to do.
	ChangeNone GateChange = iota
	// ChangeGranted: the member got the role, or their join request was
	// approved.
	ChangeGranted
	// ChangeRevoked: the bot took back the role it gave, or removed the
	// member it admitted.
	ChangeRevoked
	// ChangeWithdrawn: a moderator took the role away by hand; the bot
	// notes it and does not give it back on schedule.
	ChangeWithdrawn
	// ChangeDeclined: a join request was declined (missing POAPs, or no
	// verified wallet after JoinRequestTTL).
	ChangeDeclined
	// ChangePending: a join request waits for its member to verify.
	ChangePending
)

// GateMember names a member in a report: their platform id and the name
// the platform last gave.
type GateMember struct {
	UserID int64
	Member string
	Name   string
}

// GateResult is what a sweep did (or would do) with one gate.
type GateResult struct {
	Gate Gate
	// Gained and Lost are the members who got or lost the target;
	// Declined the join requests declined.
	Gained, Lost, Declined []GateMember
	// Checked is the number of members evaluated; Failed those whose
	// standing or holdings could not be read, left as they were.
	Checked, Failed int
	// Paused is set when the gate is paused (before or by this sweep):
	// it changed nobody.
	Paused bool
	// Resumed is set when /gate sync found a paused gate enforceable.
	Resumed bool
}

// SyncReport is what a sweep did: one result per gate, and how many calls
// it made to the issuing service, by which plan.
type SyncReport struct {
	Results []GateResult
	// IssuerCalls is the number of calls to the issuing service; Plan is
	// PlanHolders when the gated drops' holder lists were read, PlanScans
	// when the members' addresses were scanned.
	IssuerCalls int
	Plan        string
}

// The plans of a sweep's reads.
const (
	PlanHolders = "holders"
	PlanScans   = "scans"
	PlanNone    = "none"
)

// errGatePaused stops applying a gate that paused.
var errGatePaused = errors.New("gate paused")

// trigger says why members are evaluated: by the schedule (and /gate
// sync), where a role a moderator took away is not given back, or by the
// member's own action (a join, /verify), where it is.
type trigger struct {
	reason string
	force  bool
	dry    bool
	// fresh is set when the holdings were read from the issuing service
	// for this member just now (an event, none answered by the holdings
	// cache), so a removal needs no second look.
	fresh bool
	// full sweeps every verified member of the platform, not only those
	// seen in the place: a new gate's first sync.
	full bool
}

var (
	bySchedule = trigger{reason: "sync"}
	byDryRun   = trigger{reason: "check", dry: true}
	firstSync  = trigger{reason: "new gate", full: true}
	// wholeSchedule is the schedule asking about every verified member.
	wholeSchedule = trigger{reason: "sync", full: true}
)

// fullSweepEvery is how many scheduled sweeps make one whole: daily at the
// default interval.
const fullSweepEvery = 24

// Sweep applies every gate to every member, unless another replica runs
// the scheduled sweep: the holders of every gated drop are read once for
// all places, then each place is applied under its own lock. Places whose
// lock another replica holds (a /gate sync) are left to it. The declined
// join requests older than JoinDeclineTTL are deleted then.
func (s *GateService) Sweep(ctx context.Context) (SyncReport, error) {
	var (
		report SyncReport
		err    error
	)
	// The first sweep of a process, and every fullSweepEvery-th, asks
	// about every verified member: joins missed while the bot was down,
	// and events dropped when too many waited, are caught there.
	n := s.sweeps.Add(1)
	t := bySchedule
	if n%fullSweepEvery == 1 {
		t = wholeSchedule
	}
	ran, lockErr := s.locks.TryExclusive(ctx, sweepLock, func(ctx context.Context) error {
		report, err = s.sweepAll(ctx, t)
		s.pruneDeclines(ctx)
		return nil
	})
	if lockErr != nil {
		return SyncReport{}, wrap("gate sweep", lockErr)
	}
	if !ran {
		return SyncReport{}, ErrSyncRunning
	}
	return report, err
}

func (s *GateService) sweepAll(ctx context.Context, t trigger) (SyncReport, error) {
	var (
		report SyncReport
		errs   []error
	)
	for _, p := range []Platform{Discord, Telegram, Console} {
		a := s.actionsOf(p)
		if a == nil {
			continue
		}
		gs, err := s.gates.PlatformGates(ctx, p)
		if err != nil {
			errs = append(errs, wrap("gate sweep", err))
			continue
		}
		gs = slices.DeleteFunc(gs, func(g Gate) bool { return g.Paused != "" })
		if len(gs) == 0 {
			continue
		}
		r, err := s.sweepGates(ctx, a, p, gs, t, true)
		report.Results = append(report.Results, r.Results...)
		report.IssuerCalls += r.IssuerCalls
		report.Plan = r.Plan
		if err != nil {
			errs = append(errs, err)
		}
	}
	return report, errors.Join(errs...)
}

// SyncPlace applies the place's gates to its members now, as the schedule
// would; paused gates the bot can enforce again are resumed first.
// ErrSyncRunning when the place's sweep runs already, here or on another
// replica.
func (s *GateService) SyncPlace(ctx context.Context, p Place) (SyncReport, error) {
	return s.placeSweep(ctx, p, "", bySchedule)
}

// CheckGates is /gate check: what a sweep of the place's gates (or of the
// gate on target) would change, changing nothing.
func (s *GateService) CheckGates(ctx context.Context, p Place, target string) (SyncReport, error) {
	return s.placeSweep(ctx, p, target, byDryRun)
}

func (s *GateService) placeSweep(ctx context.Context, p Place, target string, t trigger) (SyncReport, error) {
	a := s.actionsOf(p.Platform)
	if a == nil {
		return SyncReport{}, ErrNoGate
	}
	gs, err := s.Gates(ctx, p)
	if err != nil {
		return SyncReport{}, err
	}
	if target != "" {
		g, err := s.gateOf(ctx, p, target)
		if err != nil {
			return SyncReport{}, err
		}
		gs = []Gate{g}
	}
	if len(gs) == 0 {
		return SyncReport{}, ErrNoGate
	}
	if t.dry {
		return s.sweepGates(ctx, a, p.Platform, gs, t, false)
	}
	var report SyncReport
	// A sync asked for while one runs (a new gate's first, the schedule's)
	// waits for it a little rather than fail: the moderator wants the
	// place applied now, and the other one may end in a moment.
	for wait := syncRetry; ; wait *= 2 {
		ran, lockErr := s.locks.TryExclusive(ctx, placeLock(gs[0].Platform, gs[0].Place), func(ctx context.Context) error {
			tried, trial := s.tryPaused(ctx, a, gs)
			report, err = s.sweepGates(ctx, a, p.Platform, tried, t, false)
			s.resume(ctx, &report, trial)
			return nil
		})
		switch {
		case lockErr != nil && ctx.Err() != nil && wait > syncRetry:
			return SyncReport{}, ErrSyncRunning // out of time while waiting for the other sync
		case lockErr != nil:
			return SyncReport{}, wrap("gate sync", lockErr)
		case ran:
			return report, err
		case wait > maxSyncRetry:
			return SyncReport{}, ErrSyncRunning
		}
		select {
		case <-ctx.Done():
			return SyncReport{}, ErrSyncRunning
		case <-time.After(wait):
		}
	}
}

// How long /gate sync waits for a sync of the place that runs already:
// from syncRetry, doubling, until the wait would pass maxSyncRetry (about
// 6 s in all).
const (
	syncRetry    = 100 * time.Millisecond
	maxSyncRetry = 4 * time.Second
)

// tryPaused returns the gates with the paused ones the bot may enforce
// again (their platform's Check passes) to be tried, still paused in the
// store: should the platform refuse again, they stay paused and the
// moderators, told already, are not told twice.
func (s *GateService) tryPaused(ctx context.Context, a GateActions, gs []Gate) ([]Gate, map[int64]string) {
	out := slices.Clone(gs)
	trial := map[int64]string{}
	for i, g := range out {
		if g.Paused == "" {
			continue
		}
		if err := a.Check(ctx, g.Place, g.Target); err != nil {
			s.log.Info("paused gate still cannot be enforced", "gate", g.ID, "err", err)
			continue
		}
		out[i].Paused, out[i].PausedAt = "", nil
		trial[g.ID] = g.Paused
	}
	return out, trial
}

// resume clears the pause of the gates tried that the platform did not
// refuse again, in the store and in the report.
func (s *GateService) resume(ctx context.Context, r *SyncReport, trial map[int64]string) {
	for i, res := range r.Results {
		reason, tried := trial[res.Gate.ID]
		if !tried {
			continue
		}
		if res.Paused {
			r.Results[i].Gate.Paused = reason
			continue
		}
		if err := s.gates.ResumeGate(ctx, res.Gate.ID); err != nil {
			s.log.Warn("resuming a gate failed", "gate", res.Gate.ID, "err", err)
			continue
		}
		r.Results[i].Resumed = true
		s.auditGate(ctx, res.Gate, nil, AuditGateResumed)
		s.log.Info("gate resumed", "gate", res.Gate.ID)
	}
}

// sweepGates applies gates of one platform (of one place, or of every
// place when perPlace is set, each under its place's lock): it reads the
// holdings of every member concerned once for all the gates, then applies
// each gate.
func (s *GateService) sweepGates(ctx context.Context, a GateActions, p Platform, gs []Gate, t trigger, perPlace bool) (SyncReport, error) {
	// A gate never swept whole (new, or paused before its first sync
	// ended) is swept over every verified member: that is how its place
	// learns who is there.
	full := t.full || slices.ContainsFunc(gs, func(g Gate) bool { return g.SyncedAt == nil })
	members, err := s.candidates(ctx, p, gs, full)
	if err != nil {
		return SyncReport{}, err
	}
	var drops []int64
	var addrs []string
	for _, g := range gs {
		if g.Paused == "" || t.dry {
			drops = append(drops, g.DropIDs()...)
		}
	}
	for _, c := range members {
		addrs = append(addrs, c.addresses...)
	}
	idx, err := s.readHoldings(ctx, uniqueInts(drops), uniqueStrings(addrs))
	report := SyncReport{IssuerCalls: idx.calls, Plan: idx.plan}
	if err != nil {
		return report, wrap("gate sweep", err)
	}
	var errs []error
	byPlace := map[string][]Gate{}
	var places []string
	for _, g := range gs {
		if byPlace[g.Place] == nil {
			places = append(places, g.Place)
		}
		byPlace[g.Place] = append(byPlace[g.Place], g)
	}
	for _, place := range places {
		apply := func(ctx context.Context) error {
			for _, g := range byPlace[place] {
				r, err := s.applyGate(ctx, a, g, members, idx, t)
				report.Results = append(report.Results, r)
				if err != nil {
					errs = append(errs, err)
				}
			}
			return nil
		}
		if !perPlace {
			_ = apply(ctx)
			continue
		}
		first := byPlace[place][0]
		ran, err := s.locks.TryExclusive(ctx, placeLock(first.Platform, first.Place), apply)
		if err != nil {
			errs = append(errs, wrap("gate sweep", err))
		} else if !ran {
			s.log.Debug("a place's sweep left to the replica running it", "place", place)
		}
	}
	return report, errors.Join(errs...)
}

// candidate is a member a sweep evaluates: a user with their verified
// addresses, per gate their grant and pending join request, and the
// places whose place they were seen in.
type candidate struct {
	user      User
	addresses []string
	grants    map[int64]Grant
	requests  map[int64]JoinRequest
	seen      map[int64]bool
}

// member returns the platform id on one of the candidate's grants or join
// requests, or "".
func (c *candidate) member() string {
	for _, g := range c.grants {
		return g.Member
	}
	for _, r := range c.requests {
		return r.Member
	}
	return ""
}

func newCandidate(u User, addresses []string) *candidate {
	return &candidate{user: u, addresses: addresses, grants: map[int64]Grant{}, requests: map[int64]JoinRequest{}, seen: map[int64]bool{}}
}

// candidates returns the members the gates concern, by user id. For role
// gates: the users with a verified wallet seen in the gates' places (every
// one of the platform when full: a new gate's first sync, which learns
// who is where), and every member the bot granted. For group gates only
// the members the bot admitted and the pending join requests (members who
// joined otherwise are never touched).
func (s *GateService) candidates(ctx context.Context, p Platform, gs []Gate, full bool) (map[int64]*candidate, error) {
	out := map[int64]*candidate{}
	get := func(id int64, member string) *candidate {
		c := out[id]
		if c == nil {
			c = newCandidate(User{ID: id, Platform: p, ExternalID: member}, nil)
			out[id] = c
		}
		return c
	}
	roles := slices.ContainsFunc(gs, func(g Gate) bool { return g.Target.Kind != GateGroup })
	byUser := map[int64]VerifiedMember{}
	add := func(vs []VerifiedMember, place int64) {
		for _, v := range vs {
			byUser[v.User.ID] = v
			if !roles {
				continue
			}
			c := get(v.User.ID, v.User.ExternalID)
			c.user, c.addresses = v.User, v.Addresses
			if place != 0 {
				c.seen[place] = true
			}
		}
	}
	// The places' members are read in every case, so that a full sweep
	// still knows who was seen where (a gate swept whole beside gates
	// swept by their places' members).
	places := map[int64]bool{}
	for _, g := range gs {
		if places[g.PlaceID] {
			continue
		}
		places[g.PlaceID] = true
		verified, err := s.gates.PlaceVerifiedMembers(ctx, g.PlaceID)
		if err != nil {
			return nil, wrap("gate sweep", err)
		}
		add(verified, g.PlaceID)
	}
	if full {
		verified, err := s.gates.VerifiedMembers(ctx, p)
		if err != nil {
			return nil, wrap("gate sweep", err)
		}
		add(verified, 0)
	}
	for _, g := range gs {
		grants, err := s.gates.Grants(ctx, g.ID)
		if err != nil {
			return nil, wrap("gate sweep", err)
		}
		for _, gr := range grants {
			get(gr.UserID, gr.Member).grants[g.ID] = gr
		}
		if g.Target.Kind != GateGroup {
			continue
		}
		reqs, err := s.gates.JoinRequests(ctx, g.ID)
		if err != nil {
			return nil, wrap("gate sweep", err)
		}
		for _, r := range reqs {
			get(r.UserID, r.Member).requests[g.ID] = r
		}
	}
	for id, c := range out {
		if v, ok := byUser[id]; ok {
			c.user, c.addresses = v.User, v.Addresses
			continue
		}
		// Granted or asking, not seen: their addresses one by one (the
		// bot records the places of those it grants, so these are few).
		addrs, err := s.verifiedAddresses(ctx, id)
		if err != nil {
			return nil, wrap("gate sweep", err)
		}
		c.addresses = addrs
	}
	return out, nil
}

// applyGate applies one gate to the candidates, in a stable order.
func (s *GateService) applyGate(ctx context.Context, a GateActions, g Gate, members map[int64]*candidate, idx holdingIndex, t trigger) (GateResult, error) {
	r := GateResult{Gate: g, Paused: g.Paused != ""}
	if r.Paused && !t.dry {
		return r, nil
	}
	ids := make([]int64, 0, len(members))
	for id := range members {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		c := members[id]
		_, granted := c.grants[g.ID]
		_, requested := c.requests[g.ID]
		switch {
		case g.Target.Kind == GateGroup && !granted && !requested:
			continue
		case g.Target.Kind != GateGroup && !t.full && g.SyncedAt != nil && !granted && !c.seen[g.PlaceID]:
			continue // seen elsewhere: this place learns of them on join or /verify
		}
		v, wallets, ok := verdictOf(g, c.addresses, idx)
		if !ok {
			r.Failed++
			continue
		}
		r.Checked++
		change, err := s.applyMember(ctx, a, g, c, v, wallets, t)
		if errors.Is(err, errGatePaused) {
			r.Paused = true
			return r, nil
		}
		if err != nil {
			r.Failed++
			s.log.Warn("applying a gate to a member failed", "gate", g.ID, "user", c.user.ID, "err", err)
			continue
		}
		gm := GateMember{UserID: c.user.ID, Member: c.user.ExternalID, Name: c.user.Name}
		switch change {
		case ChangeGranted:
			r.Gained = append(r.Gained, gm)
		case ChangeRevoked:
			r.Lost = append(r.Lost, gm)
		case ChangeDeclined:
			r.Declined = append(r.Declined, gm)
		}
	}
	// A gate swept whole to learn who is in its place is marked synced
	// only when every member was read: otherwise the next sweep is
	// whole again.
	whole := t.full || g.SyncedAt == nil
	if !t.dry && !(whole && r.Failed > 0) {
		now := s.clock.Now()
		if err := s.gates.GateSynced(ctx, g.ID, now); err != nil {
			return r, wrap("gate sweep", err)
		}
		r.Gate.SyncedAt = &now
	}
	return r, nil
}
