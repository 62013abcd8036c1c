package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// GateService owns role and group gating: the gates moderators add
// (/gate add, list, remove), their application to members when a wallet is
// verified or unlinked, when a member joins or asks to join, on a schedule
// and on /gate sync, and the explanations of /why and /gate check. It only
// ever takes back what it gave: every grant is recorded, and a role or a
// membership the bot did not give is never touched.
//
// Each platform's adapter does the platform's part (GateActions), given in
// GateServiceDeps.Actions; a place whose platform has no actions cannot be
// gated.
type GateService struct {
	base
	members  MemberStore
	gates    GateStore
	issuer   GateIssuer
	locks    Exclusive
	audit    AuditLog
	check    IssuerCheck
	interval time.Duration

	// actions are the platforms' parts, read only once built.
	actions map[Platform]GateActions

	// work tracks the evaluations started by events, so that a shutdown
	// can wait for them; slots bounds how many run at once.
	work   sync.WaitGroup
	slots  chan struct{}
	queued atomic.Int64
	// firsts bounds the first syncs of new gates at once: they ask the
	// platform about every verified member and must not hold the slots
	// of events.
	firsts chan struct{}
	sweeps atomic.Int64

	totalsMu sync.Mutex
	totals   map[int64]int
}

// GateServiceDeps are the dependencies of a GateService.
type GateServiceDeps struct {
	// All but Actions, Interval, Clock and Logger are required;
	// storage.DB is Members, Gates, Locks and Audit. Check answers /setup
	// check about the issuing service.
	Members MemberStore
	Gates   GateStore
	Issuer  GateIssuer
	Locks   Exclusive
	Audit   AuditLog
	Check   IssuerCheck
	// Actions are the platforms' adapters' parts in gating, by platform;
	// the service keeps a copy. A platform without one cannot be gated.
	Actions map[Platform]GateActions
	// Interval is how often every gate is applied to every member
	// (GATE_SYNC_INTERVAL); zero is DefaultGateInterval.
	Interval time.Duration
	// Clock defaults to the system clock, Logger to one that discards.
	Clock  Clock
	Logger *slog.Logger
	// Tally counts what the service does for the domain metrics; nil
	// counts nothing.
	Tally Tally
}

// DefaultGateInterval is how often gates are swept unless configured.
const DefaultGateInterval = time.Hour

// MaxGateDrops is the most drops one gate may name.
const MaxGateDrops = 20

// eventWorkers bounds the evaluations started by events at once: a burst
// of /verify does not open a scan per member at the same instant.
const eventWorkers = 8

// maxQueuedEvents bounds the evaluations started by events that wait for
// a slot: past it (a raid of joins), an event is left to the next sweep,
// with a log line.
const maxQueuedEvents = 10_000

// firstSyncTimeout bounds a new gate's first sync, which asks the platform
// about every verified member of it (the schedule then sweeps those seen
// in the place).
const firstSyncTimeout = 30 * time.Minute

// eventTimeout bounds one evaluation started by an event.
const eventTimeout = 2 * time.Minute

// NewGateService returns the gating service. It returns an error wrapping
// ErrMissingDependency when a required dependency is nil.
func NewGateService(d GateServiceDeps) (*GateService, error) {
	if err := missing("gate service", "Members", d.Members, "Gates", d.Gates, "Issuer", d.Issuer,
		"Locks", d.Locks, "Audit", d.Audit, "Check", d.Check); err != nil {
		return nil, err
	}
	s := &GateService{
		base:    newBase(d.Clock, d.Logger, d.Tally),
		members: d.Members, gates: d.Gates, issuer: d.Issuer, locks: d.Locks, audit: d.Audit, check: d.Check,
		interval: d.Interval,
		actions:  maps.Clone(d.Actions),
		slots:    make(chan struct{}, eventWorkers),
		firsts:   make(chan struct{}, 1),
		totals:   map[int64]int{},
	}
	if s.interval <= 0 {
		s.interval = DefaultGateInterval
	}
	return s, nil
}

// Interval returns how often gates are swept.
func (s *GateService) Interval() time.Duration { return s.interval }

// actionsOf returns the actions of platform p, or nil.
func (s *GateService) actionsOf(p Platform) GateActions { return s.actions[p] }

// GateSpec is /gate add as typed: the target (a Discord role id, a console
// role name; empty for the group the command runs in on Telegram), the
// drops (ids separated by commas or spaces) and the mode.
type GateSpec struct {
	Target  string
	Drops   string
	Mode    string
	Channel string
}

// AddGate gates a role (or the group) of the place on the drops of spec.
// It refuses, storing nothing: ErrBadGateDrops (as *GateDropsError) and
// ErrBadGateMode for what was typed, ErrGateExists when the target is gated
// already (also for the second of two moderators adding it at once, which
// creates no invite link), ErrCannotEnforce (as *GateProblem, with the
// fix) when the bot could not enforce the gate, ErrUnknownEvent as a
// GateDropsError for a drop the issuing service does not know. Once
// stored, the gate gets its invite link on platforms that have one
// (GateInviter), and is applied to the place's members in the background.
func (s *GateService) AddGate(ctx context.Context, m Member, p Place, spec GateSpec) (Gate, error) {
	ids, err := ParseGateDrops(spec.Drops)
	if err != nil {
		return Gate{}, err
	}
	mode, err := ParseGateMode(spec.Mode, len(ids))
	if err != nil {
		return Gate{}, fmt.Errorf("%w: %w", ErrBadGateMode, err)
	}
	a := s.actionsOf(p.Platform)
	if a == nil {
		return Gate{}, &GateProblem{Reason: "gating is not available on " + p.Platform.Title() + " in this process",
			Fix: "run the bot with the " + p.Platform.Title() + " adapter enabled"}
	}
	target := strings.TrimSpace(spec.Target)
	key := target
	if key == "" {
		key = p.ExternalID
	}
	place, err := s.members.UpsertPlace(ctx, p.stored())
	if err != nil {
		return Gate{}, wrap("add gate", err)
	}
	if _, err := s.gates.GateByTarget(ctx, place.ID, key); err == nil {
		return Gate{}, ErrGateExists
	} else if !errors.Is(err, ErrNotFound) {
		return Gate{}, wrap("add gate", err)
	}
	drops := make([]GateDrop, len(ids))
	for i, id := range ids {
		d, err := s.issuer.DropDetails(ctx, id)
		if errors.Is(err, ErrUnknownEvent) {
			return Gate{}, &GateDropsError{Unknown: id, Reason: fmt.Sprintf("the issuing service knows no drop %d", id)}
		}
		if err != nil {
			return Gate{}, wrap("add gate", err)
		}
		drops[i] = GateDrop{ID: id, Name: clip(d.Name, MaxNameLen)}
	}
	t, err := a.Prepare(ctx, p.ExternalID, target)
	if err != nil {
		return Gate{}, err
	}
	user, err := s.members.UpsertUser(ctx, m.user())
	if err != nil {
		return Gate{}, wrap("add gate", err)
	}
	// The target's name is the platform's (a role's, a group's title): it goes
	// into replies.
	t.Name = StripDirectionControls(t.Name)
	g, err := s.gates.AddGate(ctx, Gate{PlaceID: place.ID, Target: t, Drops: drops, Mode: mode,
		Channel: spec.Channel, CreatedBy: user.ID, CreatedAt: s.clock.Now()})
	if errors.Is(err, ErrGateExists) {
		// Another moderator's gate was stored first: the same answer as
		// for a gate added before, not a clash to try again.
		return Gate{}, ErrGateExists
	}
	if err != nil {
		return Gate{}, wrap("add gate", err)
	}
	if g, err = s.invite(ctx, a, p, g); err != nil {
		return Gate{}, err
	}
	s.auditGate(ctx, g, &user.ID, AuditGateAdded)
	s.work.Add(1)
	go func() {
		defer s.work.Done()
		s.firsts <- struct{}{}
		defer func() { <-s.firsts }()
		ctx, cancel := context.WithTimeout(context.Background(), firstSyncTimeout)
		defer cancel()
		if _, err := s.placeSweep(ctx, p, "", firstSync); err != nil && !errors.Is(err, ErrSyncRunning) {
			s.log.Warn("first sync of a new gate failed; the next sweep is whole again", "gate", g.ID, "err", err)
		}
	}()
	return g, nil
}

// invite creates the stored gate's invite link, on platforms whose gates
// have one, and records it. When either step fails the gate is removed
// again, as a gate nobody can ask to join through is none; a link created
// whose recording failed stays with the platform, unused.
func (s *GateService) invite(ctx context.Context, a GateActions, p Place, g Gate) (Gate, error) {
	inv, ok := a.(GateInviter)
	if !ok {
		return g, nil
	}
	link, err := inv.CreateInviteLink(ctx, p.ExternalID, g.Target)
	if err == nil {
		if err = s.gates.SetGateInviteLink(ctx, g.ID, link); err != nil {
			err = wrap("add gate", err)
		}
	}
	if err != nil {
		if rerr := s.gates.RemoveGate(context.WithoutCancel(ctx), g.ID); rerr != nil {
			s.log.Warn("a gate without its invite link could not be removed", "gate", g.ID, "err", rerr)
		}
		return Gate{}, err
	}
	g.Target.InviteLink = link
	return g, nil
}

// ParseGateDrops reads drop ids separated by commas or spaces: each a
// positive number, none repeated, at most MaxGateDrops.
func ParseGateDrops(s string) ([]int64, error) {
	words := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == ';' })
	if len(words) == 0 {
		return nil, &GateDropsError{Reason: "name at least one drop id, like 12345 or 12345,67890"}
	}
	if len(words) > MaxGateDrops {
		return nil, &GateDropsError{Reason: fmt.Sprintf("a gate names at most %d drops", MaxGateDrops)}
	}
	ids := make([]int64, 0, len(words))
	for _, w := range words {
		id, err := strconv.ParseInt(strings.TrimPrefix(w, "#"), 10, 64)
		if err != nil || id <= 0 {
			return nil, &GateDropsError{Input: w, Reason: fmt.Sprintf("%s is not a drop id (a drop id is a number, like 12345)", quote(w))}
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// Gates lists the place's gates, oldest first.
func (s *GateService) Gates(ctx context.Context, p Place) ([]Gate, error) {
	place, err := s.members.UpsertPlace(ctx, p.stored())
	if err != nil {
		return nil, wrap("gates", err)
	}
	gs, err := s.gates.PlaceGates(ctx, place.ID)
	if err != nil {
		return nil, wrap("gates", err)
	}
	return gs, nil
}

// gateOf returns the place's gate on target (the place itself when target
// is empty), or ErrNoGate.
func (s *GateService) gateOf(ctx context.Context, p Place, target string) (Gate, error) {
	gs, err := s.Gates(ctx, p)
	if err != nil {
		return Gate{}, err
	}
	key := strings.TrimSpace(target)
	if key == "" {
		key = p.ExternalID
	}
	for _, g := range gs {
		if g.Target.ID == key || (p.Platform == Console && strings.EqualFold(g.Target.Name, key)) {
			return g, nil
		}
	}
	if target == "" && len(gs) == 1 {
		return gs[0], nil
	}
	return Gate{}, ErrNoGate
}

// RemoveGate deletes the place's gate on target. What the gate gave stays
// with the members: the bot forgets the grants, so it neither takes them
// back nor gives them again. ErrNoGate when there is no such gate.
func (s *GateService) RemoveGate(ctx context.Context, m Member, p Place, target string) (Gate, error) {
	g, err := s.gateOf(ctx, p, target)
	if err != nil {
		return Gate{}, err
	}
	if err := s.gates.RemoveGate(ctx, g.ID); err != nil {
		return Gate{}, wrap("remove gate", err)
	}
	var uid *int64
	if u, err := s.members.FindUser(ctx, m.Platform, m.ExternalID); err == nil {
		uid = &u.ID
	}
	s.auditGate(ctx, g, uid, AuditGateRemoved)
	return g, nil
}

// auditGate writes an audit entry about g; a failure is logged, not
// returned: the gate's change is made.
func (s *GateService) auditGate(ctx context.Context, g Gate, userID *int64, action string) {
	detail := fmt.Sprintf("gate %d on %s %s: drops %v, mode %s", g.ID, g.Target.Kind, g.Target.ID, g.DropIDs(), g.Mode)
	if g.Paused != "" {
		detail += ": " + g.Paused
	}
	tid := g.PlaceID
	if err := s.audit.Audit(ctx, AuditEntry{PlaceID: &tid, UserID: userID, Action: action, Detail: detail, CreatedAt: s.clock.Now()}); err != nil {
		s.log.Warn("audit of a gate failed", "gate", g.ID, "action", action, "err", err)
	}
}

// background runs fn outside the caller's command, bounded by
// eventWorkers at once and by eventTimeout; Wait waits for it.
func (s *GateService) background(fn func(ctx context.Context)) {
	if n := s.queued.Add(1); n > maxQueuedEvents {
		s.queued.Add(-1)
		s.log.Warn("too many gate evaluations waiting: this one is left to the next sweep", "waiting", n-1)
		return
	}
	s.work.Add(1)
	go func() {
		defer s.queued.Add(-1)
		defer s.work.Done()
		s.slots <- struct{}{}
		defer func() { <-s.slots }()
		ctx, cancel := context.WithTimeout(context.Background(), eventTimeout)
		defer cancel()
		fn(ctx)
	}()
}

// Wait blocks until the evaluations started by events have finished, or
// ctx is done.
func (s *GateService) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { s.work.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
