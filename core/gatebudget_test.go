package core_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

// newCachedGateEnv is newGateEnv with the gate service reading through a
// holdings cache over the fake issuer, on the env's clock.
func newCachedGateEnv(t *testing.T, platform core.Platform, kind core.GateKind) *gateEnv {
	t.Helper()
	e := newGateEnv(t, platform, kind)
	cache, err := core.NewHoldingsCache(core.HoldingsCacheDeps{Issuer: e.issuer, Clock: e.clock})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := core.NewGateService(core.GateServiceDeps{Members: e.store, Gates: ctxStore{e.store}, Issuer: cache,
		Locks: coretest.NewLocks(), Audit: e.store, Check: issuerLines{}, Clock: e.clock,
		Actions: map[core.Platform]core.GateActions{platform: e.actions}})
	if err != nil {
		t.Fatal(err)
	}
	e.svc = svc
	return e
}

// verify stores a verified wallet of addr for u and sends the event of its
// verification, then waits for the evaluation; it returns the scans the
// evaluation made.
func (e *gateEnv) verify(u core.User, addr string) int {
	e.t.Helper()
	before, _ := e.issuer.counts()
	w, err := e.store.AddWallet(context.Background(), core.Wallet{UserID: u.ID, Platform: u.Platform, Kind: core.KindAddress,
		Value: addr, Address: addr, VerifiedAt: ptr(e.clock.Now())})
	if err != nil {
		e.t.Fatal(err)
	}
	e.svc.WalletVerified(context.Background(), u, w, nil)
	e.wait()
	after, _ := e.issuer.counts()
	return after - before
}

// walletAddr is the i-th address of a member with many wallets.
func walletAddr(i int) string { return fmt.Sprintf("0xdddd%036d", i) }

// TestGate_VerifyScansTheNewAddressOnly: a member verifying 20 wallets one
// after another costs one scan per verification (the others are cached),
// not one per wallet verified so far; the role the first gave is kept;
// /why then reads nothing, until the cached reads are older than the TTL.
func TestGate_VerifyScansTheNewAddressOnly(t *testing.T) {
	e := newCachedGateEnv(t, core.Discord, core.GateRole)
	e.add("r1", "12", "")
	u := e.member("m1")
	e.issuer.give(walletAddr(0), 12)
	for i := range 20 {
		if scans := e.verify(u, walletAddr(i)); scans != 1 {
			t.Errorf("verifying wallet %d cost %d scans, want 1", i+1, scans)
		}
		if !e.actions.hasRole("m1") {
			t.Fatalf("no role after verifying wallet %d; calls %v", i+1, e.actions.log())
		}
	}
	m := core.Member{Platform: core.Discord, ExternalID: "m1"}
	why := func() int {
		t.Helper()
		before, _ := e.issuer.counts()
		entries, err := e.svc.Why(context.Background(), m, e.place, core.WhyQuery{})
		if err != nil || len(entries) != 1 || !entries[0].Verdict.Qualifies || len(entries[0].Wallets) != 20 {
			t.Fatalf("Why = %+v, %v; want one gate, qualified, 20 wallets", entries, err)
		}
		after, _ := e.issuer.counts()
		return after - before
	}
	if scans := why(); scans != 0 {
		t.Errorf("/why right after the verifications cost %d scans, want 0", scans)
	}
	e.clock.Add(core.HoldingsTTL)
	if scans := why(); scans != 20 {
		t.Errorf("/why after the TTL cost %d scans, want 20", scans)
	}
}

// TestGate_NothingTakenOnCachedReads: a member moves their POAP from one
// of their wallets to another. Re-verifying the first reads it afresh
// (empty now) while the second's cached read, older than the move, says
// empty too: before the role is taken back the second is read again
// (once for every gate), and the role stays. Once the POAP is really gone, the role goes.
func TestGate_NothingTakenOnCachedReads(t *testing.T) {
	e := newCachedGateEnv(t, core.Discord, core.GateRole)
	e.add("r1", "12", "")
	u := e.member("m1")
	e.issuer.give(addrA, 12)
	e.verify(u, addrA)
	e.verify(u, addrB) // cached: holds nothing
	if !e.actions.hasRole("m1") {
		t.Fatalf("no role; calls %v", e.actions.log())
	}
	e.issuer.take(addrA, 12)
	e.issuer.give(addrB, 12)
	before, _ := e.issuer.counts()
	e.svc.WalletVerified(context.Background(), u, core.Wallet{UserID: u.ID, Address: addrA, Value: addrA}, nil)
	e.wait()
	if !e.actions.hasRole("m1") {
		t.Fatalf("role taken back on a cached read older than the move; calls %v", e.actions.log())
	}
	if after, _ := e.issuer.counts(); after-before != 2 {
		t.Errorf("re-verifying cost %d scans, want 2: the address verified, and the cached one once more", after-before)
	}
	e.issuer.take(addrB, 12)
	e.sync()
	if e.actions.hasRole("m1") {
		t.Errorf("role kept after the POAP left both wallets")
	}
}

// TestGate_JoinRequestNotDeclinedOnCachedReads: a verified member whose
// wallet was read (cached) before the POAP reached it asks to join: the
// wallet is read again before a decline, and the request is approved.
func TestGate_JoinRequestNotDeclinedOnCachedReads(t *testing.T) {
	ctx := context.Background()
	e := newCachedGateEnv(t, core.Telegram, core.GateGroup)
	e.add("", "12", "")
	u := e.member("m1")
	e.verify(u, addrA) // cached: holds nothing
	e.issuer.give(addrA, 12)
	e.svc.JoinRequested(ctx, core.Telegram, e.place.ExternalID, core.Member{Platform: core.Telegram, ExternalID: "m1"})
	e.wait()
	if !e.actions.hasRole("m1") {
		t.Fatalf("request not approved: calls %v, told %+v", e.actions.log(), e.actions.told)
	}
}
