package core_test

import (
	"cmp"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/storage"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

// TestGateService_Minted_OnlyVerifiedWallets: a mint to a wallet the
// member has not verified (an address, an e-mail) re-evaluates nothing
// and scans nothing; one to a verified wallet grants the role from one
// scan.
func TestGateService_Minted_OnlyVerifiedWallets(t *testing.T) {
	t.Parallel()
	e := newGateEnv(t, core.Discord, core.GateRole)
	e.add("r1", "12", "")
	u := e.member("m1", "v:"+addrA, "u:"+addrB)
	at := e.clock.Now()
	if _, err := e.store.AddWallet(t.Context(), core.Wallet{UserID: u.ID, Platform: u.Platform, Kind: core.KindEmail,
		Value: "m1@example.com", VerifiedAt: &at}); err != nil {
		t.Fatal(err)
	}
	e.issuer.give(addrA, 12)
	e.issuer.give(addrB, 12)
	scans, pages := e.issuer.counts()
	for _, w := range []string{addrB, "m1@example.com", addrC} {
		e.svc.Minted(t.Context(), u, w)
		e.wait()
		if e.actions.hasRole("m1") {
			t.Fatalf("Minted(%s), a wallet not verified: role granted; calls %v", w, e.actions.log())
		}
		if s, p := e.issuer.counts(); s != scans || p != pages {
			t.Fatalf("Minted(%s), a wallet not verified: %d scans, %d pages, want none", w, s-scans, p-pages)
		}
	}
	e.svc.Minted(t.Context(), u, addrA)
	e.wait()
	if !e.actions.hasRole("m1") {
		t.Errorf("Minted(verified wallet): no role; calls %v", e.actions.log())
	}
	if s, p := e.issuer.counts(); s-scans != 1 || p != pages {
		t.Errorf("Minted(verified wallet): %d scans, %d pages, want 1 scan", s-scans, p-pages)
	}
}

// followEvent is the drop the follow tests mint and gate on.
const followEvent = 77

// mintTap passes MintEvents on to the gate service and tells the test of
// each.
type mintTap struct {
	next  core.MintEvents
	heard chan core.User
}

func (m *mintTap) Minted(ctx context.Context, user core.User, wallet string) {
	m.next.Minted(ctx, user, wallet)
	m.heard <- user
}

// websiteFake is a website claim of event (followEvent when 0) that mints
// at once; what it mints shows in the holders' scans, when there are
// holders. Tests steer the next mint: onMint runs as it starts (outside
// the lock), and next, when set, is what it answers instead of minting.
type websiteFake struct {
	holders *holdersFake
	event   int64
	mu      sync.Mutex
	minted  map[string]bool
	onMint  func()
	next    error
}

func (w *websiteFake) Website(_ context.Context, name string) (core.WebsiteStatus, error) {
	return core.WebsiteStatus{Name: name, EventID: cmp.Or(w.event, followEvent), Active: true}, nil
}
func (w *websiteFake) RequestWebsite(context.Context, core.WebsiteRequest) error { return nil }
func (w *websiteFake) PendingWebsiteRequests(context.Context, int64) (int, error) {
	return 0, nil
}
func (w *websiteFake) MintWebsite(_ context.Context, _, wallet string) (core.WebsiteMint, error) {
	runHook(&w.mu, &w.onMint)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.next; err != nil {
		w.next = nil
		return core.WebsiteMint{}, err
	}
	if w.minted[wallet] {
		return core.WebsiteMint{}, core.ErrWalletHoldsDrop
	}
	w.minted[wallet] = true
	if w.holders != nil {
		w.holders.give(wallet, followEvent)
	}
	return core.WebsiteMint{QRHash: "web-" + wallet}, nil
}
func (w *websiteFake) Holds(_ context.Context, wallet string, _ int64) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.minted[wallet], nil
}

// set changes the fake under its lock.
func (w *websiteFake) set(change func(w *websiteFake)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	change(w)
}

// runHook runs the hook in *h once: taken and cleared under mu, run
// outside it (a hook may hold the request until the test lets it go).
func runHook(mu *sync.Mutex, h *func()) {
	mu.Lock()
	during := *h
	*h = nil
	mu.Unlock()
	if during != nil {
		during()
	}
}

// followRig is a drop service whose MintEvents is a gate service, over
// one database, with a role of the place gated on followEvent.
type followRig struct {
	db       *storage.DB
	drops    *core.DropService
	links    *core.MintLinkService
	websites *core.WebsiteService
	gates    *core.GateService
	issuer   *dropIssuer
	holders  *holdersFake
	actions  *fakeActions
	clock    *coretest.Clock
	tap      *mintTap
	place    core.Place
	mod      core.Member
}

func newFollowRig(t *testing.T, url string, websiteWait time.Duration) *followRig {
	t.Helper()
	r := &followRig{db: openKeyed(t, url), issuer: newDropIssuer(), holders: newHoldersFake(), actions: newActions(core.GateRole),
		clock: coretest.NewClock(t0), place: mintPlace, mod: core.Member{Platform: core.Console, ExternalID: "mod", Name: "Mod"}}
	gates, err := core.NewGateService(core.GateServiceDeps{Members: r.db, Gates: r.db, Issuer: r.holders,
		Locks: coretest.NewLocks(), Audit: r.db, Check: issuerLines{}, Clock: r.clock,
		Actions: map[core.Platform]core.GateActions{core.Console: r.actions}})
	if err != nil {
		t.Fatal(err)
	}
	r.gates = gates
	r.tap = &mintTap{next: gates, heard: make(chan core.User, 16)}
	s := wiring{store: r.db, issuer: r.issuer, mintURL: "https://mint.test/",
		website: &websiteFake{holders: r.holders, minted: map[string]bool{}}, websiteStore: r.db, websiteWait: websiteWait,
		mints: r.tap, clock: r.clock}.build(t)
	r.drops, r.links, r.websites = s.drops, s.links, s.websites
	return r
}

// addDrop adds followEvent with delivery (and the website claim for
// ClaimWebsite), then gates role r1 of the place on it.
func (r *followRig) addDrop(t *testing.T, delivery core.ClaimMethod) core.Drop {
	t.Helper()
	r.issuer.addEvent(followEvent, editCode, 3, 0)
	opts := core.AddDropOptions{EventID: followEvent, EditCode: editCode, Method: delivery}
	if delivery == core.ClaimWebsite {
		opts.Website = "follow"
	}
	st, err := r.drops.AddDrop(t.Context(), r.mod, r.place, opts)
	if err != nil {
		t.Fatalf("AddDrop() = %v", err)
	}
	if _, err := r.gates.AddGate(t.Context(), r.mod, r.place, core.GateSpec{Target: "r1", Drops: "77", Channel: "chan1"}); err != nil {
		t.Fatalf("AddGate() = %v", err)
	}
	r.wait(t)
	return st.Drop
}

// member returns console member who with addr linked and verified.
func (r *followRig) member(t *testing.T, who, addr string) core.Member {
	t.Helper()
	u, err := r.db.UpsertUser(t.Context(), core.User{Platform: core.Console, ExternalID: who, Name: who})
	if err != nil {
		t.Fatal(err)
	}
	at := r.clock.Now()
	if _, err := r.db.AddWallet(t.Context(), core.Wallet{UserID: u.ID, Kind: core.KindAddress, Value: addr, Address: addr, VerifiedAt: &at}); err != nil {
		t.Fatal(err)
	}
	return core.Member{Platform: core.Console, ExternalID: who, Name: who}
}

func (r *followRig) claim(t *testing.T, m core.Member) core.ClaimResult {
	t.Helper()
	res, err := r.drops.Claim(t.Context(), m, r.place, core.ClaimOptions{EventID: followEvent})
	if err != nil {
		t.Fatalf("Claim() = %v", err)
	}
	return res
}

func (r *followRig) wait(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := r.gates.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

// heard waits for the next MintEvent, and fails the test when none comes.
func (r *followRig) heard(t *testing.T) core.User {
	t.Helper()
	select {
	case u := <-r.tap.heard:
		return u
	case <-time.After(10 * time.Second):
		t.Fatal("no MintEvent")
	}
	return core.User{}
}

// quiet checks no MintEvent is left unheard.
func (r *followRig) quiet(t *testing.T) {
	t.Helper()
	select {
	case u := <-r.tap.heard:
		t.Errorf("a MintEvent too many, for %s", u.ExternalID)
	default:
	}
}

// scans is how many wallets the gate service has scanned.
func (r *followRig) scans() int {
	s, _ := r.holders.counts()
	return s
}

// TestMintLinkService_ReconcileMints_Follows: a mint the reconciler records
// re-evaluates the member's gates once, from one scan; a link the sender
// recorded first (a sender that outlived its lease) is not told again.
func TestMintLinkService_ReconcileMints_Follows(t *testing.T) {
	t.Parallel()
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		t.Run("Settled", func(t *testing.T) {
			r := newFollowRig(t, newURL(), 0)
			r.addDrop(t, core.ClaimMint)
			alice := r.member(t, "alice", wallet(1))
			// The mint went through; its answer was lost and the status
			// not read: the claim is pending.
			r.issuer.set(func(f *dropIssuer) { f.dropNext, f.failStatus = 1, 1 })
			if res := r.claim(t, alice); res.Outcome != core.ResultMintPending {
				t.Fatalf("Claim() = %+v, want pending", res)
			}
			r.wait(t)
			r.quiet(t)
			r.holders.give(wallet(1), followEvent)
			before := r.scans()
			if n, err := r.links.ReconcileMints(t.Context()); err != nil || n != 1 {
				t.Fatalf("ReconcileMints() = %d, %v, want 1 settled", n, err)
			}
			if u := r.heard(t); u.ExternalID != "alice" || u.Platform != core.Console {
				t.Errorf("MintEvent for %+v, want alice on the console", u)
			}
			r.wait(t)
			if !r.actions.hasRole("alice") {
				t.Errorf("no role after the reconciler recorded the mint; calls %v", r.actions.log())
			}
			if n := r.scans() - before; n != 1 {
				t.Errorf("%d scans after the reconciler recorded the mint, want 1", n)
			}
			if n, err := r.links.ReconcileMints(t.Context()); err != nil || n != 0 {
				t.Errorf("ReconcileMints() again = %d, %v, want nothing", n, err)
			}
			if res := r.claim(t, alice); res.Outcome != core.ResultMinted || !res.Again {
				t.Errorf("Claim() after = %+v, want minted before", res)
			}
			r.wait(t)
			r.quiet(t)
		})
		t.Run("SenderFirst", func(t *testing.T) {
			r := newFollowRig(t, newURL(), 0)
			d := r.addDrop(t, core.ClaimMint)
			link := r.deadLink(t, d, "bob", wallet(2))
			r.holders.give(wallet(2), followEvent)
			before := r.scans()
			// The reconciler reads the status; before it records, the
			// sender, alive after all, records the mint.
			var recorded bool
			r.issuer.set(func(f *dropIssuer) {
				f.afterStatus = func() {
					recorded = true
					if _, err := r.db.FinishMint(context.Background(), link.ID, link.Attempt, core.MintLinkMinted, "0xtx", r.clock.Now()); err != nil {
						t.Errorf("FinishMint() = %v", err)
					}
				}
			})
			if _, err := r.links.ReconcileMints(t.Context()); err != nil || !recorded {
				t.Fatalf("ReconcileMints() = %v, status read %v, want the link read", err, recorded)
			}
			r.wait(t)
			r.quiet(t)
			if n := r.scans() - before; n != 0 || r.actions.hasRole("bob") {
				t.Errorf("a link the sender recorded: %d scans, role %v, want nothing from the reconciler", n, r.actions.hasRole("bob"))
			}
		})
	})
}

// deadLink begins a mint of a link for a new verified member, landed at
// the service, as a sender whose lease ran out would have left it.
func (r *followRig) deadLink(t *testing.T, d core.Drop, who, addr string) core.MintLink {
	t.Helper()
	r.member(t, who, addr)
	u, err := r.db.FindUser(t.Context(), core.Console, who)
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := r.db.ClaimMintLink(t.Context(), d.ID, u.ID, addr, r.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if l, err = r.db.BeginMint(t.Context(), l.ID, addr, r.clock.Now()); err != nil {
		t.Fatal(err)
	}
	r.issuer.set(func(f *dropIssuer) { f.links[l.QRHash].claimed, f.links[l.QRHash].beneficiary = true, addr })
	r.clock.Add(core.MintLease)
	return l
}

// TestWebsiteService_RunWebsiteClaims_Follows: a website claim the
// dispatcher mints after the member stopped waiting re-evaluates their
// gates once, from one scan; one minted while they wait is told once too.
func TestWebsiteService_RunWebsiteClaims_Follows(t *testing.T) {
	t.Parallel()
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		t.Run("Late", func(t *testing.T) {
			r := newFollowRig(t, newURL(), time.Nanosecond)
			r.addDrop(t, core.ClaimWebsite)
			alice := r.member(t, "alice", wallet(1))
			if res := r.claim(t, alice); res.Outcome != core.ResultWebsiteQueued {
				t.Fatalf("Claim() with no dispatcher = %+v, want queued", res)
			}
			before := r.scans()
			stop := r.dispatch(t)
			if u := r.heard(t); u.ExternalID != "alice" {
				t.Errorf("MintEvent for %+v, want alice", u)
			}
			stop()
			r.wait(t)
			if !r.actions.hasRole("alice") {
				t.Errorf("no role after the late website mint; calls %v", r.actions.log())
			}
			if n := r.scans() - before; n != 1 {
				t.Errorf("%d scans after the late website mint, want 1", n)
			}
			if res := r.claim(t, alice); res.Outcome != core.ResultWebsiteMinted || !res.Again {
				t.Errorf("Claim() after = %+v, want minted before", res)
			}
			r.wait(t)
			r.quiet(t)
		})
		t.Run("Waited", func(t *testing.T) {
			r := newFollowRig(t, newURL(), time.Minute)
			r.addDrop(t, core.ClaimWebsite)
			alice := r.member(t, "alice", wallet(1))
			stop := r.dispatch(t)
			if res := r.claim(t, alice); res.Outcome != core.ResultWebsiteMinted {
				t.Fatalf("Claim() with the dispatcher running = %+v, want minted", res)
			}
			r.heard(t)
			stop()
			r.wait(t)
			r.quiet(t)
			if !r.actions.hasRole("alice") {
				t.Errorf("no role after the website mint; calls %v", r.actions.log())
			}
		})
	})
}

// dispatch runs the rig's website dispatcher until the returned stop.
func (r *followRig) dispatch(t *testing.T) (stop func()) {
	t.Helper()
	return dispatchWebsite(t, r.websites)
}

// dispatchWebsite runs the website dispatcher of s until the returned
// stop, which waits for it (and its sends) to end.
func dispatchWebsite(t *testing.T, s *core.WebsiteService) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.RunWebsiteClaims(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("RunWebsiteClaims() = %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}
