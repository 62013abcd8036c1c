package core_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

// dropIssuer is a core.DropIssuer in memory. Its mints
// behave as the service's: the link's status is read first, a claimed or
// inactive link is refused without a mint, a wallet holding the drop is
// refused. Knobs plan failures; calls records, per link, the order of status
// reads and mints.
type dropIssuer struct {
	mu      sync.Mutex
	events  map[int64]*issuedEvent
	links   map[string]*issuedLink
	calls   map[string][]string
	pending int
	asked   []int
	// dropNext mints are applied and then answered with
	// ErrIssuerUnavailable, as when the answer is lost.
	dropNext int
	// failMints mints are refused with ErrIssuerUnavailable before they
	// are applied.
	failMints int
	// failStatus status reads fail with ErrIssuerUnavailable.
	failStatus int
	// late mints time out before the service applies them; applyLate
	// applies them afterwards, as a queue that catches up would.
	late    int
	delayed []delayedMint
	// afterStatus runs once, after the next status read is answered.
	afterStatus func()
	// unsent makes mints and status reads fail before anything is sent,
	// as when no access token can be had: ErrNotSent with
	// ErrIssuerUnavailable.
	unsent bool
	tx     int
}

// delayedMint is a mint the service applies late.
type delayedMint struct{ hash, wallet string }

// applyLate applies the mints that timed out earlier.
func (f *dropIssuer) applyLate() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.delayed {
		f.links[m.hash].claimed, f.links[m.hash].beneficiary = true, m.wallet
	}
	f.delayed = nil
}

// holders counts the links of event id claimed for any of wallets.
func (f *dropIssuer) holders(id int64, wallets ...string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, l := range f.links {
		for _, w := range wallets {
			if l.event == id && l.claimed && strings.EqualFold(l.beneficiary, w) {
				n++
			}
		}
	}
	return n
}

// errUnsent is the failure of a call that never reached the service.
var errUnsent = fmt.Errorf("no access token: %w: %w", core.ErrNotSent, core.ErrIssuerUnavailable)

type issuedEvent struct {
	code    core.Secret
	details core.DropDetails
	hashes  []string
}

type issuedLink struct {
	event       int64
	claimed     bool
	inactive    bool
	beneficiary string
}

func newDropIssuer() *dropIssuer {
	return &dropIssuer{events: map[int64]*issuedEvent{}, links: map[string]*issuedLink{}, calls: map[string][]string{}}
}

// addEvent adds a drop with n links (hashes e<id>-<i>), the first claimed of
// them claimed by a collector outside the bot.
func (f *dropIssuer) addEvent(id int64, code core.Secret, n, claimed int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events[id] = &issuedEvent{code: code, details: core.DropDetails{
		Name: fmt.Sprintf("Drop %d", id), ImageURL: fmt.Sprintf("https://img.test/%d.png", id),
		ExpiresAt: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC),
	}}
	f.addLinksLocked(id, n, claimed)
}

func (f *dropIssuer) addLinksLocked(id int64, n, claimed int) {
	e := f.events[id]
	for i := range n {
		h := fmt.Sprintf("e%d-%d", id, len(e.hashes)+1)
		e.hashes = append(e.hashes, h)
		f.links[h] = &issuedLink{event: id}
		if i < claimed {
			f.links[h].claimed, f.links[h].beneficiary = true, "0xcollector"
		}
	}
}

// claimOutside marks the link claimed by someone outside the bot.
func (f *dropIssuer) claimOutside(hash string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.links[hash].claimed, f.links[hash].beneficiary = true, "0xoutsider"
}

// set runs change under the lock.
func (f *dropIssuer) set(change func(f *dropIssuer)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(f)
}

// mints counts the mint requests for hash.
func (f *dropIssuer) mints(hash string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls[hash] {
		if c == "mint" {
			n++
		}
	}
	return n
}

// checkNoBlindRetry fails the test when a link got two mint requests without
// a status read in between.
func (f *dropIssuer) checkNoBlindRetry(t *testing.T) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for h, calls := range f.calls {
		for i := 1; i < len(calls); i++ {
			if calls[i] == "mint" && calls[i-1] == "mint" {
				t.Errorf("link %s: two mints without a status read between: %v", h, calls)
			}
		}
	}
}

func (f *dropIssuer) ValidateEditCode(_ context.Context, id int64, code core.Secret) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e := f.events[id]
	if e == nil {
		return false, core.ErrUnknownEvent
	}
	return e.code == code, nil
}

func (f *dropIssuer) DropDetails(_ context.Context, id int64) (core.DropDetails, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e := f.events[id]; e != nil {
		return e.details, nil
	}
	return core.DropDetails{}, core.ErrUnknownEvent
}

func (f *dropIssuer) MintLinks(_ context.Context, id int64, code core.Secret) ([]core.ImportedMintLink, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e := f.events[id]
	if e == nil || e.code != code {
		return nil, core.ErrWrongEditCode
	}
	var out []core.ImportedMintLink
	for _, h := range e.hashes {
		out = append(out, core.ImportedMintLink{QRHash: h, Claimed: f.links[h].claimed})
	}
	return out, nil
}

func (f *dropIssuer) ClaimStatus(ctx context.Context, hash string) (core.MintLinkStatus, error) {
	st, err := f.status(hash)
	f.mu.Lock()
	after := f.afterStatus
	f.afterStatus = nil
	f.mu.Unlock()
	if after != nil {
		after()
	}
	return st, err
}

func (f *dropIssuer) status(hash string) (core.MintLinkStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.unsent {
		return core.MintLinkStatus{}, errUnsent
	}
	if f.failStatus > 0 {
		f.failStatus--
		return core.MintLinkStatus{}, core.ErrIssuerUnavailable
	}
	f.calls[hash] = append(f.calls[hash], "status")
	l := f.links[hash]
	return core.MintLinkStatus{Claimed: l.claimed, Active: !l.inactive, Beneficiary: l.beneficiary}, nil
}

func (f *dropIssuer) Mint(_ context.Context, hash, wallet string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.unsent {
		return "", errUnsent
	}
	f.calls[hash] = append(f.calls[hash], "status")
	l := f.links[hash]
	switch {
	case l.claimed:
		return "", core.ErrMintLinkClaimed
	case l.inactive:
		return "", core.ErrMintLinkExpired
	}
	for _, other := range f.links {
		if other.event == l.event && other.claimed && strings.EqualFold(other.beneficiary, wallet) {
			return "", core.ErrWalletHoldsDrop
		}
	}
	f.calls[hash] = append(f.calls[hash], "mint")
	if f.failMints > 0 {
		f.failMints--
		return "", fmt.Errorf("503: %w", core.ErrIssuerUnavailable)
	}
	if f.late > 0 {
		f.late--
		f.delayed = append(f.delayed, delayedMint{hash, wallet})
		return "", fmt.Errorf("timeout: %w", core.ErrIssuerUnavailable)
	}
	l.claimed, l.beneficiary = true, wallet
	if f.dropNext > 0 {
		f.dropNext--
		return "", fmt.Errorf("connection reset: %w", core.ErrIssuerUnavailable)
	}
	f.tx++
	return fmt.Sprint(f.tx), nil
}

func (f *dropIssuer) RequestMintLinks(_ context.Context, id int64, code core.Secret, count int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.events[id].code != code {
		return core.ErrWrongEditCode
	}
	f.pending++
	f.asked = append(f.asked, count)
	return nil
}

func (f *dropIssuer) PendingMintLinkRequests(context.Context, int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pending, nil
}

// approve adds the pending requests' links.
func (f *dropIssuer) approve(id int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range f.asked {
		f.addLinksLocked(id, n, 0)
	}
	f.asked, f.pending = nil, 0
}

// dropTest is a service over a MemStore and a dropIssuer.
type dropTest struct {
	svc    *core.DropService
	links  *core.MintLinkService
	store  *coretest.MemStore
	issuer *dropIssuer
	clock  *coretest.Clock
	place  core.Place
	mod    core.Member
}

const (
	eventID  = 4242
	editCode = core.Secret("482913")
)

// t0 is when drop tests start.
var t0 = time.Date(2026, 11, 22, 17, 0, 0, 0, time.UTC)

func newDropTest(t *testing.T) *dropTest {
	t.Helper()
	dt := &dropTest{
		store: coretest.NewMemStore(), issuer: newDropIssuer(), clock: coretest.NewClock(t0),
		place: core.Place{Platform: core.Console, ExternalID: "guild", Name: "Guild"},
		mod:   core.Member{Platform: core.Console, ExternalID: "mod", Name: "Mod"},
	}
	s := wiring{store: dt.store, issuer: dt.issuer, mintURL: "https://mint.test/", clock: dt.clock}.build(t)
	dt.svc, dt.links = s.drops, s.links
	return dt
}

// add registers eventID with n links (claimed of them claimed outside).
func (dt *dropTest) add(t *testing.T, n, claimed int, opts core.AddDropOptions) core.DropStatus {
	t.Helper()
	dt.issuer.addEvent(eventID, editCode, n, claimed)
	opts.EventID, opts.EditCode = eventID, editCode
	st, err := dt.svc.AddDrop(t.Context(), dt.mod, dt.place, opts)
	if err != nil {
		t.Fatalf("AddDrop() = %v", err)
	}
	return st
}

// member returns the console member who, with a wallet linked when wallet
// is not empty.
func (dt *dropTest) member(t *testing.T, who, wallet string) core.Member {
	t.Helper()
	m := core.Member{Platform: core.Console, ExternalID: who, Name: who}
	if wallet != "" {
		u, _ := dt.store.UpsertUser(t.Context(), core.User{Platform: m.Platform, ExternalID: who, Name: who})
		if _, err := dt.store.AddWallet(t.Context(), core.Wallet{UserID: u.ID, Kind: core.KindAddress, Value: wallet}); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// claim claims eventID as m.
func (dt *dropTest) claim(t *testing.T, m core.Member, opts core.ClaimOptions) (core.ClaimResult, error) {
	t.Helper()
	if opts.EventID == 0 {
		opts.EventID = eventID
	}
	return dt.svc.Claim(t.Context(), m, dt.place, opts)
}

// claimAfterStatus claims eventID as m, running hook right after the
// claim's first status read is answered.
func (dt *dropTest) claimAfterStatus(t *testing.T, m core.Member, hook func()) (core.ClaimResult, error) {
	t.Helper()
	dt.issuer.set(func(f *dropIssuer) { f.afterStatus = hook })
	return dt.claim(t, m, core.ClaimOptions{})
}

// stock reads the stock of the test's drop.
func (dt *dropTest) stock(t *testing.T) core.Stock {
	t.Helper()
	st, err := dt.svc.DropInfo(t.Context(), dt.place, eventID)
	if err != nil {
		t.Fatal(err)
	}
	return st.Stock
}

// wallet returns a distinct test address.
func wallet(i int) string { return fmt.Sprintf("0x%040x", i+1) }
