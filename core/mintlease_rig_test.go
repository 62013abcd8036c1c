package core_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/storage"
)

// heldIssuer is a dropIssuer whose mints, once they reach it, wait for
// the test: a mint in flight for as long as the test wants it.
type heldIssuer struct {
	*dropIssuer
	// hold runs when a mint arrives, before (landFirst false) or after
	// (true) the service applies it; the mint is answered when it returns.
	hold      func(ctx context.Context, hash string) error
	landFirst func(hash string) bool
}

func (h *heldIssuer) Mint(ctx context.Context, hash, wallet string) (string, error) {
	if h.landFirst != nil && h.landFirst(hash) {
		tx, err := h.dropIssuer.Mint(ctx, hash, wallet)
		if herr := h.hold(ctx, hash); herr != nil {
			return "", herr
		}
		return tx, err
	}
	if err := h.hold(ctx, hash); err != nil {
		return "", err
	}
	return h.dropIssuer.Mint(ctx, hash, wallet)
}

// linkNumber finds the link's number in an audit detail.
var linkNumber = regexp.MustCompile(`link #(\d+)`)

// count counts the entries of action per link id, across taps.
func auditCount(action string, taps ...*auditTap) map[int64]int {
	out := map[int64]int{}
	for _, a := range taps {
		a.mu.Lock()
		for _, e := range a.entries {
			if e.Action != action {
				continue
			}
			if m := linkNumber.FindStringSubmatch(e.Detail); m != nil {
				id, _ := strconv.ParseInt(m[1], 10, 64)
				out[id]++
			}
		}
		a.mu.Unlock()
	}
	return out
}

// replica is one process's drop service on a database handle.
type replica struct {
	svc   *core.DropService
	links *core.MintLinkService
	db    *storage.DB
	audit *auditTap
	clock *coretest.Clock
}

func newReplica(t *testing.T, db *storage.DB, issuer core.DropIssuer, clock *coretest.Clock) *replica {
	t.Helper()
	tap := &auditTap{AuditLog: db}
	s := wiring{store: db, audit: tap, issuer: issuer, mintURL: "https://mint.test/", clock: clock}.build(t)
	return &replica{svc: s.drops, links: s.links, db: db, audit: tap, clock: clock}
}

// mintPlace is where the lease tests' drop lives.
var mintPlace = core.Place{Platform: core.Console, ExternalID: "guild", Name: "Guild"}

// addMintDrop adds eventID, minted directly, with n links.
func (r *replica) addMintDrop(t *testing.T, issuer *dropIssuer, n int) core.Drop {
	t.Helper()
	issuer.addEvent(eventID, editCode, n, 0)
	st, err := r.svc.AddDrop(t.Context(), core.Member{Platform: core.Console, ExternalID: "mod", Name: "Mod"}, mintPlace,
		core.AddDropOptions{EventID: eventID, EditCode: editCode, Method: core.ClaimMint})
	if err != nil {
		t.Fatalf("AddDrop() = %v", err)
	}
	return st.Drop
}

// member returns console member who with wallet linked.
func (r *replica) member(t *testing.T, who, wallet string) (core.Member, core.User) {
	t.Helper()
	u, err := r.db.UpsertUser(t.Context(), core.User{Platform: core.Console, ExternalID: who, Name: who})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.db.AddWallet(t.Context(), core.Wallet{UserID: u.ID, Kind: core.KindAddress, Value: wallet}); err != nil {
		t.Fatal(err)
	}
	return core.Member{Platform: core.Console, ExternalID: who, Name: who}, u
}

// deadMint begins a mint of a link of the drop for a new member, as a
// process that then died would have: recorded minting, never finished.
// landed says whether its request reached the service.
func (r *replica) deadMint(t *testing.T, issuer *dropIssuer, d core.Drop, who, wallet string, landed bool) core.MintLink {
	t.Helper()
	_, u := r.member(t, who, wallet)
	l, _, err := r.db.ClaimMintLink(t.Context(), d.ID, u.ID, wallet, r.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if l, err = r.db.BeginMint(t.Context(), l.ID, wallet, r.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if landed {
		issuer.set(func(f *dropIssuer) { f.links[l.QRHash].claimed, f.links[l.QRHash].beneficiary = true, wallet })
	}
	return l
}

// claimed is a member's claim's answer.
type claimed struct {
	who string
	res core.ClaimResult
	err error
}

// checkMinted checks that every member told "Minted" has their link
// recorded minted and audited "minted" exactly once, over every replica's
// audit, and that no link is audited "minted" twice.
func checkMinted(t *testing.T, db *storage.DB, d core.Drop, results []claimed, taps ...*auditTap) {
	t.Helper()
	minted := auditCount(core.AuditMinted, taps...)
	for id, n := range minted {
		if n != 1 {
			t.Errorf("link #%d audited %q %d times, want once", id, core.AuditMinted, n)
		}
	}
	for _, c := range results {
		if c.err != nil || c.res.Outcome != core.ResultMinted {
			t.Errorf("%s's claim = %+v, %v, want minted", c.who, c.res, c.err)
			continue
		}
		if s := linkState(t, db, d, c.res.MintLink.QRHash); s != core.MintLinkMinted {
			t.Errorf("%s was told Minted; link #%d is %s", c.who, c.res.MintLink.ID, s)
		}
		if minted[c.res.MintLink.ID] != 1 {
			t.Errorf("%s was told Minted; link #%d audited %q %d times", c.who, c.res.MintLink.ID, core.AuditMinted, minted[c.res.MintLink.ID])
		}
	}
}

// linkState reads the state of the drop's link hash from the store.
func linkState(t *testing.T, db *storage.DB, d core.Drop, hash string) core.MintLinkState {
	t.Helper()
	rows, err := db.ExportMintLinks(t.Context(), d.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.QRHash == hash {
			return r.State
		}
	}
	return core.MintLinkAvailable
}

// openKeyed opens the database at url with a key, closed when the test
// ends.
func openKeyed(t *testing.T, url string) *storage.DB {
	t.Helper()
	key, err := storage.ParseKey(strings.Repeat("ab", 32))
	if err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(context.Background(), url, storage.WithKey(key))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// passes counts a reconciler's completed passes, for mints that wait
// until the reconciler has looked at them.
type passes struct {
	mu   sync.Mutex
	next chan struct{} // closed when the pass under way completes
}

func newPasses() *passes { return &passes{next: make(chan struct{})} }

// done marks a pass complete.
func (p *passes) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	close(p.next)
	p.next = make(chan struct{})
}

// full waits until a whole pass begun after the call completed: the one
// under way at the call, then the next.
func (p *passes) full(ctx context.Context) error {
	for range 2 {
		p.mu.Lock()
		ch := p.next
		p.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ctx.Err(), core.ErrIssuerUnavailable)
		}
	}
	return nil
}
