package core_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/storage"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

// chainIssuer is a core.NetworkIssuer in memory: one drop, eventID, with an
// edit code and a network.
type chainIssuer struct {
	mu    sync.Mutex
	code  core.Secret
	chain int64
	// answer, when not zero, is the chain SetNetwork answers, whatever it
	// set.
	answer int64
	// down fails every call with ErrIssuerUnavailable.
	down bool
	sets int
}

// check refuses a call, with f.mu held, as the service would.
func (f *chainIssuer) check(id int64, code core.Secret) error {
	switch {
	case f.down:
		return core.ErrIssuerUnavailable
	case id != eventID:
		return core.ErrUnknownEvent
	case code != f.code:
		return core.ErrWrongEditCode
	}
	return nil
}

func (f *chainIssuer) Network(_ context.Context, id int64, code core.Secret) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(id, code); err != nil {
		return 0, err
	}
	if f.chain == 0 {
		return core.DefaultChain, nil
	}
	return f.chain, nil
}

func (f *chainIssuer) SetNetwork(_ context.Context, id int64, code core.Secret, chain int64) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(id, code); err != nil {
		return 0, err
	}
	if _, ok := core.ChainName(chain); !ok {
		return 0, core.ErrUnknownChain
	}
	f.sets++
	f.chain = chain
	if f.answer != 0 {
		return f.answer, nil
	}
	return chain, nil
}

func (f *chainIssuer) set(change func(f *chainIssuer)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(f)
}

// setCalls counts the networks set.
func (f *chainIssuer) setCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sets
}

// networkTest is a drop service over a database, with a dropIssuer for the
// drop and a chainIssuer for its network.
type networkTest struct {
	services
	svc    *core.DropService
	audit  *auditTap
	issuer *dropIssuer
	chains *chainIssuer
	place  core.Place
	mod    core.Member
}

// newNetworkTest builds the services over db, in the place named place;
// deps, when not nil, wires the other services.
func newNetworkTest(t *testing.T, db *storage.DB, place string, deps func(*wiring, *chainIssuer)) *networkTest {
	t.Helper()
	nt := &networkTest{
		audit: &auditTap{AuditLog: db}, issuer: newDropIssuer(), chains: &chainIssuer{code: editCode},
		place: core.Place{Platform: core.Console, ExternalID: place, Name: place},
		mod:   core.Member{Platform: core.Console, ExternalID: "mod", Name: "Mod"},
	}
	w := wiring{store: db, audit: nt.audit, issuer: nt.issuer, clock: coretest.NewClock(t0)}
	if deps != nil {
		deps(&w, nt.chains)
	}
	nt.services = w.build(t)
	nt.svc = nt.drops
	return nt
}

// withNetworks gives the service the chainIssuer and db as its networks.
func withNetworks(db *storage.DB) func(*wiring, *chainIssuer) {
	return func(w *wiring, c *chainIssuer) { w.networks, w.networkStore = c, db }
}

// eachNetworkDB runs f on a new database of each dialect.
func eachNetworkDB(t *testing.T, f func(t *testing.T, db *storage.DB)) {
	t.Helper()
	key, err := storage.ParseKey(strings.Repeat("ab", 32))
	if err != nil {
		t.Fatal(err)
	}
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		db, err := storage.Open(t.Context(), newURL(), storage.WithKey(key))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		f(t, db)
	})
}

// add registers the drop with two links.
func (nt *networkTest) add(t *testing.T) core.Drop {
	t.Helper()
	nt.issuer.addEvent(eventID, editCode, 2, 0)
	st, err := nt.svc.AddDrop(t.Context(), nt.mod, nt.place, core.AddDropOptions{EventID: eventID, EditCode: editCode})
	if err != nil {
		t.Fatalf("AddDrop() = %v", err)
	}
	return st.Drop
}

// stored returns the drop's chain as stored.
func (nt *networkTest) stored(t *testing.T) int64 {
	t.Helper()
	st, err := nt.svc.DropInfo(t.Context(), nt.place, eventID)
	if err != nil {
		t.Fatalf("DropInfo() = %v", err)
	}
	return st.Drop.Chain
}

// auditTap is an audit log that keeps a copy of the entries it writes.
type auditTap struct {
	core.AuditLog
	mu      sync.Mutex
	entries []core.AuditEntry
}

func (a *auditTap) Audit(ctx context.Context, e core.AuditEntry) error {
	a.mu.Lock()
	a.entries = append(a.entries, e)
	a.mu.Unlock()
	return a.AuditLog.Audit(ctx, e)
}

// audited returns the audit entries of action.
func (nt *networkTest) audited(action string) []core.AuditEntry {
	nt.audit.mu.Lock()
	defer nt.audit.mu.Unlock()
	var out []core.AuditEntry
	for _, e := range nt.audit.entries {
		if e.Action == action {
			out = append(out, e)
		}
	}
	return out
}

// network runs /drop network as the moderator.
func (nt *networkTest) network(t *testing.T, chain string) (core.NetworkResult, error) {
	t.Helper()
	return nt.networks.Network(t.Context(), nt.mod, nt.place, eventID, chain)
}

// wantDropError fails the test unless err is a *DropError of the drop
// matching want.
func wantDropError(t *testing.T, err, want error) {
	t.Helper()
	var de *core.DropError
	if !errors.Is(err, want) || !errors.As(err, &de) || de.Drop.EventID != eventID {
		t.Errorf("Network() = %v, want a *DropError of %d with %v", err, eventID, want)
	}
}

// failingChains records no network.
type failingChains struct{}

func (failingChains) SetDropChain(context.Context, int64, int64) error {
	return core.ErrStoreUnavailable
}
