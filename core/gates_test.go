package core_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

// fakeActions is a platform that keeps roles (or group members) in memory
// and records what gating asked of it.
type fakeActions struct {
	mu        sync.Mutex
	kind      core.GateKind
	has       map[string]bool // member → has the target
	absent    map[string]bool // members not in any place, or "place/member" not in that place
	standings int             // Standing calls
	links     int             // invite links created
	refuse    *core.GateProblem
	forbidden bool
	// grantErr, when set, is what the next Grant answers (once), after
	// calling onGrant.
	grantErr  error
	onGrant   func()
	calls     []string
	told      []core.GateNotice
	announced []core.GateNotice
}

func newActions(kind core.GateKind) *fakeActions {
	return &fakeActions{kind: kind, has: map[string]bool{}, absent: map[string]bool{}}
}

func (a *fakeActions) record(format string, args ...any) {
	a.calls = append(a.calls, fmt.Sprintf(format, args...))
}

func (a *fakeActions) Prepare(_ context.Context, place, target string) (core.GateTarget, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.refuse != nil {
		return core.GateTarget{}, a.refuse
	}
	a.record("prepare %s", target)
	if a.kind == core.GateGroup {
		return core.GateTarget{ID: place, Name: "The Group", Kind: core.GateGroup}, nil
	}
	return core.GateTarget{ID: target, Name: "Role " + target, Kind: core.GateRole}, nil
}

// groupActions are fakeActions of a platform whose gates are entered
// through invite links (a core.GateInviter), as Telegram's groups are.
type groupActions struct{ *fakeActions }

// CreateInviteLink makes the group's invite links, numbered.
func (a groupActions) CreateInviteLink(_ context.Context, _ string, _ core.GateTarget) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.links++
	a.record("invite link %d", a.links)
	return fmt.Sprintf("https://t.me/+join%d", a.links), nil
}

func (a *fakeActions) Check(context.Context, string, core.GateTarget) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.forbidden {
		return &core.GateProblem{Reason: "no rights", Forbidden: true}
	}
	return nil
}

func (a *fakeActions) Standing(_ context.Context, place string, _ core.GateTarget, member string) (core.Standing, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.standings++
	if a.absent[member] || a.absent[place+"/"+member] {
		return core.Standing{}, nil
	}
	if a.kind == core.GateGroup {
		return core.Standing{InPlace: a.has[member], Has: a.has[member]}, nil
	}
	return core.Standing{InPlace: true, Has: a.has[member]}, nil
}

func (a *fakeActions) change(verb, member string, has bool) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.forbidden {
		a.record("forbidden %s %s", verb, member)
		return &core.GateProblem{Reason: "Missing Permissions", Fix: "give the bot Manage Roles", Forbidden: true}
	}
	a.record("%s %s", verb, member)
	a.has[member] = has
	return nil
}

func (a *fakeActions) Grant(_ context.Context, _ string, _ core.GateTarget, member string) error {
	a.mu.Lock()
	err, hook := a.grantErr, a.onGrant
	a.grantErr, a.onGrant = nil, nil
	a.mu.Unlock()
	if hook != nil {
		hook()
	}
	if err != nil {
		a.mu.Lock()
		a.record("failed grant %s", member)
		a.mu.Unlock()
		return err
	}
	return a.change("grant", member, true)
}

// failGrant makes the next Grant fail with err, calling hook first.
func (a *fakeActions) failGrant(err error, hook func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.grantErr, a.onGrant = err, hook
}

func (a *fakeActions) Revoke(_ context.Context, _ string, _ core.GateTarget, member string) error {
	return a.change("revoke", member, false)
}

func (a *fakeActions) Decline(_ context.Context, _ string, _ core.GateTarget, member string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.record("decline %s", member)
	return nil
}

func (a *fakeActions) Tell(_ context.Context, member string, n core.GateNotice) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.record("tell %s %d", member, n.Kind)
	a.told = append(a.told, n)
	return nil
}

func (a *fakeActions) Announce(_ context.Context, _, channel string, n core.GateNotice) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.record("announce %s", channel)
	a.announced = append(a.announced, n)
	return nil
}

func (a *fakeActions) Setup(context.Context, string) []core.SetupLine {
	return []core.SetupLine{{Check: "fake rights", OK: true}}
}

func (a *fakeActions) set(member string, has bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.has[member] = has
}

func (a *fakeActions) hasRole(member string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.has[member]
}

func (a *fakeActions) log() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.calls)
}

// holdersFake knows which drops addresses hold and counts its calls.
type holdersFake struct {
	mu      sync.Mutex
	held    map[string][]int64 // address → drops
	extra   map[int64]int      // drop → holders beyond the known addresses
	scans   int
	pages   int
	failing bool
}

func newHoldersFake() *holdersFake {
	return &holdersFake{held: map[string][]int64{}, extra: map[int64]int{}}
}

func (f *holdersFake) give(addr string, drops ...int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.held[addr] = append(f.held[addr], drops...)
}

func (f *holdersFake) take(addr string, drop int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.held[addr] = slices.DeleteFunc(f.held[addr], func(d int64) bool { return d == drop })
}

func (f *holdersFake) Holdings(_ context.Context, addr string) ([]core.Holding, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scans++
	if f.failing {
		return nil, core.ErrIssuerUnavailable
	}
	var out []core.Holding
	for _, d := range f.held[addr] {
		out = append(out, core.Holding{DropID: d, Owner: addr})
	}
	return out, nil
}

func (f *holdersFake) DropHolders(_ context.Context, drop int64, offset int) (core.HolderPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pages++
	if f.failing {
		return core.HolderPage{}, core.ErrIssuerUnavailable
	}
	var all []string
	for a, ds := range f.held {
		if slices.Contains(ds, drop) {
			all = append(all, a)
		}
	}
	slices.Sort(all)
	for i := range f.extra[drop] {
		all = append(all, fmt.Sprintf("0xffff%036d", i))
	}
	page := core.HolderPage{Total: len(all)}
	if offset < len(all) {
		page.Addresses = all[offset:min(len(all), offset+core.HoldersPageSize)]
	}
	return page, nil
}

func (f *holdersFake) DropDetails(_ context.Context, id int64) (core.DropDetails, error) {
	if id >= 900 {
		return core.DropDetails{}, core.ErrUnknownEvent
	}
	return core.DropDetails{Name: fmt.Sprintf("Drop %d", id)}, nil
}

func (f *holdersFake) counts() (scans, pages int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.scans, f.pages
}

type issuerLines struct{}

func (issuerLines) CheckIssuer(context.Context) []core.SetupLine {
	return []core.SetupLine{{Check: "issuing service", OK: true}}
}

// ctxStore is a MemStore whose gate writes fail once their context is
// done, as a database's do.
type ctxStore struct{ *coretest.MemStore }

func (s ctxStore) ClaimGrant(ctx context.Context, g core.Grant) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return s.MemStore.ClaimGrant(ctx, g)
}

func (s ctxStore) SetGrant(ctx context.Context, g core.Grant) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.MemStore.SetGrant(ctx, g)
}

func (s ctxStore) DropGrant(ctx context.Context, gateID, userID int64) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return s.MemStore.DropGrant(ctx, gateID, userID)
}

func (s ctxStore) AddJoinRequest(ctx context.Context, r core.JoinRequest) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return s.MemStore.AddJoinRequest(ctx, r)
}

func (s ctxStore) DropJoinRequest(ctx context.Context, gateID, userID int64) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return s.MemStore.DropJoinRequest(ctx, gateID, userID)
}

// gateEnv is a gate service over a MemStore, a fake platform and a fake
// issuing service.
type gateEnv struct {
	t       *testing.T
	store   *coretest.MemStore
	issuer  *holdersFake
	actions *fakeActions
	clock   *coretest.Clock
	svc     *core.GateService
	place   core.Place
	mod     core.Member
}

func newGateEnv(t *testing.T, platform core.Platform, kind core.GateKind) *gateEnv {
	t.Helper()
	e := &gateEnv{t: t, store: coretest.NewMemStore(), issuer: newHoldersFake(), actions: newActions(kind),
		clock: coretest.NewClock(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)),
		place: core.Place{Platform: platform, ExternalID: "place1", Name: "Place"},
		mod:   core.Member{Platform: platform, ExternalID: "mod", Name: "Mod"}}
	if kind == core.GateGroup {
		e.use(groupActions{e.actions})
	} else {
		e.use(e.actions)
	}
	return e
}

// use builds the service anew with a as the actions of the place's
// platform.
func (e *gateEnv) use(a core.GateActions) {
	e.t.Helper()
	svc, err := core.NewGateService(core.GateServiceDeps{Members: e.store, Gates: ctxStore{e.store}, Issuer: e.issuer,
		Locks: coretest.NewLocks(), Audit: e.store, Check: issuerLines{}, Clock: e.clock,
		Actions: map[core.Platform]core.GateActions{e.place.Platform: a}})
	if err != nil {
		e.t.Fatal(err)
	}
	e.svc = svc
}

// member creates a user with wallets: "v:0x.." verified, "u:0x.." unverified.
func (e *gateEnv) member(id string, wallets ...string) core.User {
	e.t.Helper()
	ctx := context.Background()
	u, err := e.store.UpsertUser(ctx, core.User{Platform: e.place.Platform, ExternalID: id, Name: "name-" + id})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, w := range wallets {
		kind, addr, _ := strings.Cut(w, ":")
		wal := core.Wallet{UserID: u.ID, Platform: u.Platform, Kind: core.KindAddress, Value: addr, Address: addr}
		if kind == "v" {
			at := e.clock.Now()
			wal.VerifiedAt = &at
		}
		if _, err := e.store.AddWallet(ctx, wal); err != nil {
			e.t.Fatal(err)
		}
	}
	return u
}

func (e *gateEnv) add(target, drops, mode string) core.Gate {
	e.t.Helper()
	g, err := e.svc.AddGate(context.Background(), e.mod, e.place, core.GateSpec{Target: target, Drops: drops, Mode: mode, Channel: "chan1"})
	if err != nil {
		e.t.Fatal(err)
	}
	e.wait()
	return g
}

func (e *gateEnv) wait() {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.svc.Wait(ctx); err != nil {
		e.t.Fatal(err)
	}
}

func (e *gateEnv) sync() core.SyncReport {
	e.t.Helper()
	r, err := e.svc.SyncPlace(context.Background(), e.place)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

const (
	addrA = "0xaaaa000000000000000000000000000000000001"
	addrB = "0xbbbb000000000000000000000000000000000002"
	addrC = "0xcccc000000000000000000000000000000000003"
)

func TestAddGate_Refusals(t *testing.T) {
	tests := []struct {
		name, drops, mode string
		refuse            *core.GateProblem
		want              error
	}{
		{name: "not a drop id", drops: "12,abc", want: core.ErrBadGateDrops},
		{name: "no drops", drops: " , ", want: core.ErrBadGateDrops},
		{name: "unknown drop", drops: "12,901", want: core.ErrBadGateDrops},
		{name: "mode beyond the drops", drops: "12,13", mode: "atleast:3", want: core.ErrBadGateMode},
		{name: "unknown mode", drops: "12", mode: "most", want: core.ErrBadGateMode},
		{name: "cannot enforce", drops: "12", refuse: &core.GateProblem{Reason: "the role is above the bot's", Fix: "move it"}, want: core.ErrCannotEnforce},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newGateEnv(t, core.Discord, core.GateRole)
			e.actions.refuse = tt.refuse
			_, err := e.svc.AddGate(context.Background(), e.mod, e.place, core.GateSpec{Target: "r1", Drops: tt.drops, Mode: tt.mode})
			if !errors.Is(err, tt.want) {
				t.Fatalf("AddGate = %v, want %v", err, tt.want)
			}
			gs, err := e.svc.Gates(context.Background(), e.place)
			if err != nil || len(gs) != 0 {
				t.Fatalf("gates after a refusal = %v, %v; want none stored", gs, err)
			}
		})
	}
	t.Run("exists", func(t *testing.T) {
		e := newGateEnv(t, core.Discord, core.GateRole)
		e.add("r1", "12", "")
		_, err := e.svc.AddGate(context.Background(), e.mod, e.place, core.GateSpec{Target: "r1", Drops: "13"})
		if !errors.Is(err, core.ErrGateExists) {
			t.Fatalf("second AddGate = %v, want ErrGateExists", err)
		}
	})
}

func TestGate_OnlyVerifiedWalletsCount(t *testing.T) {
	e := newGateEnv(t, core.Discord, core.GateRole)
	e.member("holder", "v:"+addrA)
	e.member("unverified", "u:"+addrB)
	e.issuer.give(addrA, 12)
	e.issuer.give(addrB, 12)
	e.add("r1", "12", "")
	if !e.actions.hasRole("holder") {
		t.Errorf("the verified holder has no role after the gate's first sync; calls %v", e.actions.log())
	}
	e.sync()
	if e.actions.hasRole("unverified") {
		t.Errorf("an unverified wallet holding the drop got the role")
	}
}

func TestGate_VerifyGrantsAndUnlinkRevokes(t *testing.T) {
	e := newGateEnv(t, core.Discord, core.GateRole)
	e.add("r1", "12,13", "all")
	u := e.member("m1", "v:"+addrA)
	e.issuer.give(addrA, 12, 13)
	e.svc.WalletVerified(context.Background(), u, core.Wallet{}, nil)
	e.wait()
	if !e.actions.hasRole("m1") {
		t.Fatalf("no role after /verify; calls %v", e.actions.log())
	}
	e.issuer.take(addrA, 13)
	e.svc.WalletUnlinked(context.Background(), u, nil)
	e.wait()
	if e.actions.hasRole("m1") {
		t.Fatalf("role kept after the member no longer holds all drops")
	}
}

func TestGate_HandSetRoleSurvivesAndRemovedRoleStaysRemoved(t *testing.T) {
	e := newGateEnv(t, core.Discord, core.GateRole)
	e.member("byhand", "v:"+addrB) // holds nothing
	e.actions.set("byhand", true)
	u := e.member("holder", "v:"+addrA)
	e.issuer.give(addrA, 12)
	e.add("r1", "12", "")
	e.sync()
	if !e.actions.hasRole("byhand") {
		t.Errorf("a role set by hand on a non-holder was removed")
	}
	if !e.actions.hasRole("holder") {
		t.Fatalf("holder has no role")
	}
	e.actions.set("holder", false) // a moderator takes it away
	e.sync()
	e.sync()
	if e.actions.hasRole("holder") {
		t.Errorf("the schedule gave back a role a moderator removed")
	}
	e.svc.WalletVerified(context.Background(), u, core.Wallet{}, nil)
	e.wait()
	if !e.actions.hasRole("holder") {
		t.Errorf("the member's /verify did not give the role back")
	}
}

func TestGate_MovedPOAPRevokedAtSync_OtherWalletKeeps(t *testing.T) {
	e := newGateEnv(t, core.Discord, core.GateRole)
	e.member("one", "v:"+addrA)
	e.member("two", "v:"+addrB, "v:"+addrC)
	e.issuer.give(addrA, 12)
	e.issuer.give(addrB, 12)
	e.issuer.give(addrC, 12)
	e.add("r1", "12", "")
	e.issuer.take(addrA, 12)
	e.issuer.take(addrB, 12)
	r := e.sync()
	if e.actions.hasRole("one") {
		t.Errorf("role kept after the POAP moved away")
	}
	if !e.actions.hasRole("two") {
		t.Errorf("member lost the role though another verified wallet holds the drop")
	}
	if len(r.Results) != 1 || len(r.Results[0].Lost) != 1 {
		t.Errorf("report = %+v, want one lost", r.Results)
	}
}

func TestGate_ForbiddenPausesAndTellsOnce(t *testing.T) {
	e := newGateEnv(t, core.Discord, core.GateRole)
	for _, id := range []string{"a", "b"} {
		e.member(id, "v:0x00000000000000000000000000000000000000a"+id)
		e.issuer.give("0x00000000000000000000000000000000000000a"+id, 12)
	}
	e.actions.mu.Lock()
	e.actions.forbidden = true
	e.actions.mu.Unlock()
	g := e.add("r1", "12", "") // its first sync pauses it
	r, err := e.svc.SyncPlace(context.Background(), e.place)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 1 || !r.Results[0].Paused {
		t.Fatalf("results = %+v, want the gate paused", r.Results)
	}
	if n := len(e.actions.announced); n != 1 {
		t.Fatalf("moderators told %d times, want once", n)
	}
	gs, _ := e.svc.Gates(context.Background(), e.place)
	if gs[0].Paused == "" || gs[0].ID != g.ID {
		t.Fatalf("gate list shows %+v, want paused", gs[0])
	}
	forbidden := 0
	for _, c := range e.actions.log() {
		if strings.HasPrefix(c, "forbidden") {
			forbidden++
		}
	}
	if forbidden != 1 {
		t.Errorf("%d refused calls, want 1: a paused gate stops trying (%v)", forbidden, e.actions.log())
	}
	e.actions.mu.Lock()
	e.actions.forbidden = false
	e.actions.mu.Unlock()
	r = e.sync()
	if r.Results[0].Paused || !e.actions.hasRole("a") || !e.actions.hasRole("b") {
		t.Errorf("after the permission is back, /gate sync: %+v, roles a=%v b=%v", r.Results[0], e.actions.hasRole("a"), e.actions.hasRole("b"))
	}
}

func TestGate_SweepPlan(t *testing.T) {
	e := newGateEnv(t, core.Discord, core.GateRole)
	for i := range 10 {
		addr := fmt.Sprintf("0x%040d", i+1)
		e.member(fmt.Sprintf("m%d", i), "v:"+addr)
		e.issuer.give(addr, 12)
	}
	e.issuer.extra[12] = 640 // 650 holders: 3 pages
	e.add("r1", "12", "")
	s0, p0 := e.issuer.counts()
	r := e.sync()
	s1, p1 := e.issuer.counts()
	if r.Plan != core.PlanHolders || p1-p0 != 3 || s1 != s0 || r.IssuerCalls != 3 {
		t.Errorf("10 members, 650 holders: plan %s, %d pages, %d scans, %d calls; want 3 holder pages",
			r.Plan, p1-p0, s1-s0, r.IssuerCalls)
	}
	e.issuer.extra[12] = 6000 // 21 pages: 10 scans are cheaper
	e.sync()                  // learns the count
	s0, p0 = e.issuer.counts()
	r = e.sync()
	s1, p1 = e.issuer.counts()
	if r.Plan != core.PlanScans || s1-s0 != 10 || p1 != p0 {
		t.Errorf("10 members, 6010 holders: plan %s, %d scans, %d pages; want 10 scans", r.Plan, s1-s0, p1-p0)
	}
}

func TestGate_FailedReadsChangeNobody(t *testing.T) {
	for _, members := range []int{1, 3} { // 1: scans (counted as failed), 3: holder pages (the sweep fails)
		t.Run(fmt.Sprintf("%d members", members), func(t *testing.T) {
			e := newGateEnv(t, core.Discord, core.GateRole)
			for i := range members {
				addr := fmt.Sprintf("0x%040d", i+1)
				e.member(fmt.Sprintf("m%d", i), "v:"+addr)
				e.issuer.give(addr, 12)
			}
			e.add("r1", "12", "")
			e.issuer.mu.Lock()
			e.issuer.failing = true
			e.issuer.mu.Unlock()
			for i := range members {
				e.issuer.take(fmt.Sprintf("0x%040d", i+1), 12)
			}
			r, err := e.svc.SyncPlace(context.Background(), e.place)
			if members == 1 && (err != nil || len(r.Results) != 1 || r.Results[0].Failed != 1) {
				t.Errorf("sync with the scan failing = %+v, %v; want the member counted as failed", r.Results, err)
			}
			if members > 1 && !errors.Is(err, core.ErrIssuerUnavailable) {
				t.Errorf("sync with the holder pages failing = %v, want ErrIssuerUnavailable", err)
			}
			for i := range members {
				if !e.actions.hasRole(fmt.Sprintf("m%d", i)) {
					t.Errorf("m%d lost the role on a failed read", i)
				}
			}
		})
	}
}

func TestGateCheck_ChangesNothing(t *testing.T) {
	e := newGateEnv(t, core.Discord, core.GateRole)
	e.member("m1", "v:"+addrA)
	e.add("r1", "12", "")
	e.issuer.give(addrA, 12)
	r, err := e.svc.CheckGates(context.Background(), e.place, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 1 || len(r.Results[0].Gained) != 1 || r.Results[0].Gained[0].Member != "m1" {
		t.Fatalf("check = %+v, want m1 would gain", r.Results)
	}
	if e.actions.hasRole("m1") {
		t.Errorf("/gate check changed a role")
	}
}

func TestGate_Forget(t *testing.T) {
	e := newGateEnv(t, core.Discord, core.GateRole)
	u := e.member("m1", "v:"+addrA)
	e.issuer.give(addrA, 12)
	g := e.add("r1", "12", "")
	if !e.actions.hasRole("m1") {
		t.Fatal("no role")
	}
	e.svc.MemberForgotten(context.Background(), core.Forgotten{User: u, Grants: []core.Grant{{GateID: g.ID, UserID: u.ID, Member: "m1"}}})
	e.wait()
	if e.actions.hasRole("m1") {
		t.Errorf("role kept after /forget")
	}
}

func TestGate_JoinRequests(t *testing.T) {
	ctx := context.Background()
	e := newGateEnv(t, core.Telegram, core.GateGroup)
	g := e.add("", "12", "")
	if g.Target.InviteLink == "" || g.Target.Kind != core.GateGroup {
		t.Fatalf("group gate = %+v", g.Target)
	}
	newbie := core.Member{Platform: core.Telegram, ExternalID: "new", Name: "New"}

	// No verified wallet: pending, told how to verify; approved on /verify.
	e.svc.JoinRequested(ctx, core.Telegram, e.place.ExternalID, newbie)
	e.wait()
	if len(e.actions.told) != 1 || e.actions.told[0].Kind != core.NoticeJoinPending {
		t.Fatalf("told %+v, want the pending notice", e.actions.told)
	}
	u, _ := e.store.FindUser(ctx, core.Telegram, "new")
	e.store.AddWallet(ctx, core.Wallet{UserID: u.ID, Platform: core.Telegram, Kind: core.KindAddress, Value: addrA, Address: addrA, VerifiedAt: ptr(e.clock.Now())})
	e.issuer.give(addrA, 12)
	e.svc.WalletVerified(ctx, u, core.Wallet{}, nil)
	e.wait()
	if !e.actions.hasRole("new") {
		t.Fatalf("pending request not approved after /verify: %v", e.actions.log())
	}

	// Verified without the POAP: declined with the missing drop.
	e.member("lacks", "v:"+addrB)
	e.svc.JoinRequested(ctx, core.Telegram, e.place.ExternalID, core.Member{Platform: core.Telegram, ExternalID: "lacks"})
	e.wait()
	last := e.actions.told[len(e.actions.told)-1]
	if last.Kind != core.NoticeJoinDeclined || len(last.Missing) != 1 || last.Missing[0].ID != 12 {
		t.Fatalf("last notice %+v, want declined with drop 12 missing", last)
	}

	// Never verifies: declined after 24 hours, at a sweep.
	e.svc.JoinRequested(ctx, core.Telegram, e.place.ExternalID, core.Member{Platform: core.Telegram, ExternalID: "late"})
	e.wait()
	e.clock.Add(core.JoinRequestTTL)
	e.sync()
	last = e.actions.told[len(e.actions.told)-1]
	if last.Kind != core.NoticeJoinExpired || !slices.Contains(e.actions.log(), "decline late") {
		t.Fatalf("after 24 h: %v, last notice %+v", e.actions.log(), last)
	}

	// A member who joined otherwise is never touched; an admitted one who
	// no longer qualifies is removed and told.
	e.member("other", "v:"+addrC)
	e.actions.set("other", true)
	e.issuer.take(addrA, 12)
	e.sync()
	if e.actions.hasRole("new") || !e.actions.hasRole("other") {
		t.Fatalf("after the POAP moved: new in group %v (want removed), other %v (want untouched)", e.actions.hasRole("new"), e.actions.hasRole("other"))
	}
	last = e.actions.told[len(e.actions.told)-1]
	if last.Kind != core.NoticeRemoved {
		t.Errorf("removed member told %+v", last)
	}
}

func ptr[T any](v T) *T { return &v }

// TestGate_FailedGrantIsNotAWithdrawal: a grant the platform did not
// confirm (an error, the command's context ending on the way) is undone,
// not left to pass for a role a moderator took away: the next sync gives
// the role.
func TestGate_FailedGrantIsNotAWithdrawal(t *testing.T) {
	e := newGateEnv(t, core.Discord, core.GateRole)
	g := e.add("r1", "12", "")
	u := e.member("m1", "v:"+addrA) // in the place, as a join or a /verify would have recorded
	if err := e.store.SeeMember(context.Background(), g.PlaceID, u.ID, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	e.issuer.give(addrA, 12)
	ctx, cancel := context.WithCancel(context.Background())
	e.actions.failGrant(context.Canceled, cancel)
	if _, err := e.svc.SyncPlace(ctx, e.place); err != nil {
		t.Fatal(err)
	}
	if e.actions.hasRole("m1") {
		t.Fatal("the failed grant gave the role")
	}
	// The grant stays pending (the answer may have been lost), left to
	// the pass that claimed it for a while, then asked again.
	e.sync()
	if e.actions.hasRole("m1") {
		t.Fatal("a pending grant was asked again at once")
	}
	e.clock.Add(10 * time.Minute)
	e.sync()
	if !e.actions.hasRole("m1") {
		t.Errorf("the sync after a failed grant did not give the role: %v", e.actions.log())
	}
}

// TestGate_JoinRequestSurvivesAFailedAnswer: an approval the platform
// failed puts the request back, decided at the next sweep; a request
// answered elsewhere (ErrJoinRequestGone) records no grant and tells
// nobody they were let in.
func TestGate_JoinRequestSurvivesAFailedAnswer(t *testing.T) {
	ctx := context.Background()
	e := newGateEnv(t, core.Telegram, core.GateGroup)
	e.add("", "12", "")
	e.member("m1", "v:"+addrA)
	e.issuer.give(addrA, 12)
	e.actions.failGrant(errors.New("502 Bad Gateway"), nil)
	e.svc.JoinRequested(ctx, core.Telegram, e.place.ExternalID, core.Member{Platform: core.Telegram, ExternalID: "m1"})
	e.wait()
	if e.actions.hasRole("m1") {
		t.Fatal("admitted though the approval failed")
	}
	e.sync()
	if !e.actions.hasRole("m1") {
		t.Fatalf("the request was lost after a failed approval: %v", e.actions.log())
	}

	e.member("m2", "v:"+addrB)
	e.issuer.give(addrB, 12)
	e.actions.failGrant(fmt.Errorf("approve: %w", core.ErrJoinRequestGone), nil)
	e.svc.JoinRequested(ctx, core.Telegram, e.place.ExternalID, core.Member{Platform: core.Telegram, ExternalID: "m2"})
	e.wait()
	u, _ := e.store.FindUser(ctx, core.Telegram, "m2")
	if gs, _ := e.store.UserGrants(ctx, u.ID); len(gs) != 0 {
		t.Errorf("a request answered elsewhere left grants %+v: the bot did not admit m2", gs)
	}
	for _, n := range e.actions.told {
		if n.Kind == core.NoticeJoinApproved && slices.Contains(e.actions.log(), "tell m2 2") {
			t.Errorf("m2 was told they were approved")
		}
	}
}

// TestGate_ScheduleSweepsTheMembersOfThePlace: a new gate's first sync asks
// about every verified member of the platform and learns who is in its
// place; the schedule then asks only about those, not about the members of
// the bot's other servers.
func TestGate_ScheduleSweepsTheMembersOfThePlace(t *testing.T) {
	e := newGateEnv(t, core.Discord, core.GateRole)
	for i := range 5 {
		addr := fmt.Sprintf("0x%040d", i+1)
		e.member(fmt.Sprintf("m%d", i), "v:"+addr)
		e.issuer.give(addr, 12)
		e.actions.absent[fmt.Sprintf("other/m%d", i)] = true
	}
	e.add("r1", "12", "")
	other := core.Place{Platform: core.Discord, ExternalID: "other", Name: "Other server"}
	if _, err := e.svc.AddGate(context.Background(), e.mod, other, core.GateSpec{Target: "r2", Drops: "12"}); err != nil {
		t.Fatal(err)
	}
	e.wait()
	e.actions.mu.Lock()
	e.actions.standings = 0
	e.actions.mu.Unlock()
	if _, err := e.svc.SyncPlace(context.Background(), other); err != nil {
		t.Fatal(err)
	}
	if n := e.actions.standings; n != 0 {
		t.Errorf("the schedule of a server none of the 5 members is in asked about %d of them, want 0", n)
	}
	e.sync()
	if n := e.actions.standings; n != 5 {
		t.Errorf("the schedule of the members' server asked about %d members, want 5", n)
	}
}

// TestGate_VerifyDuringOutageIsSweptLater: a member who verifies while the
// issuing service is down is still recorded in the place, so the next
// sweep gives them the role.
func TestGate_VerifyDuringOutageIsSweptLater(t *testing.T) {
	e := newGateEnv(t, core.Discord, core.GateRole)
	e.add("r1", "12", "")
	u := e.member("m1", "v:"+addrA)
	e.issuer.give(addrA, 12)
	e.issuer.mu.Lock()
	e.issuer.failing = true
	e.issuer.mu.Unlock()
	e.svc.WalletVerified(context.Background(), u, core.Wallet{}, nil)
	e.wait()
	e.issuer.mu.Lock()
	e.issuer.failing = false
	e.issuer.mu.Unlock()
	e.sync()
	if !e.actions.hasRole("m1") {
		t.Errorf("a member who verified during an outage was never swept: %v", e.actions.log())
	}
}

// TestGate_WholeSweepKeepsThePlacesMembers: a sweep that is whole for one
// gate (never synced) still evaluates the members seen in the other gates'
// places.
func TestGate_WholeSweepKeepsThePlacesMembers(t *testing.T) {
	ctx := context.Background()
	e := newGateEnv(t, core.Discord, core.GateRole)
	g := e.add("r1", "12", "")
	u := e.member("m1", "v:"+addrA)
	if err := e.store.SeeMember(ctx, g.PlaceID, u.ID, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	e.issuer.give(addrA, 12)
	r, err := e.svc.Sweep(ctx) // the process's first: whole
	if err != nil {
		t.Fatal(err)
	}
	if !e.actions.hasRole("m1") || len(r.Results) != 1 || r.Results[0].Checked != 1 {
		t.Errorf("whole sweep: %+v, role %v", r.Results, e.actions.hasRole("m1"))
	}
}
