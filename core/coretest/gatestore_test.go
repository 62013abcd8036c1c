package coretest

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

// t0 is when the test gates are added.
var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// gateFixture is a MemStore with a Discord place, two members and a gate.
type gateFixture struct {
	s     *MemStore
	place core.Place
	users []core.User
	gate  core.Gate
}

func newGateFixture(t *testing.T) gateFixture {
	t.Helper()
	s := NewMemStore()
	f := gateFixture{s: s}
	var err error
	if f.place, err = s.UpsertPlace(t.Context(), core.Place{Platform: core.Discord, ExternalID: "guild"}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"alice", "bob"} {
		u, err := s.UpsertUser(t.Context(), core.User{Platform: core.Discord, ExternalID: id})
		if err != nil {
			t.Fatal(err)
		}
		f.users = append(f.users, u)
	}
	f.gate, err = s.AddGate(t.Context(), core.Gate{
		PlaceID: f.place.ID, Target: core.GateTarget{ID: "role", Kind: core.GateRole},
		Drops: []core.GateDrop{{ID: 1, Name: "One"}, {ID: 2}}, Mode: core.GateMode{AtLeast: 2}, CreatedAt: t0,
	})
	if err != nil {
		t.Fatalf("AddGate() = %v", err)
	}
	return f
}

func TestMemStore_AddGate(t *testing.T) {
	f := newGateFixture(t)
	if f.gate.ID == 0 || f.gate.Platform != core.Discord || f.gate.Place != "guild" {
		t.Errorf("AddGate() = %+v, want an id, platform discord and place guild", f.gate)
	}
	again := f.gate
	again.Mode = core.GateAll
	if _, err := f.s.AddGate(t.Context(), again); !errors.Is(err, core.ErrGateExists) {
		t.Errorf("AddGate(same target) = %v, want %v", err, core.ErrGateExists)
	}
	if got, err := f.s.GateByTarget(t.Context(), f.place.ID, "role"); err != nil || !cmp.Equal(got, f.gate) {
		t.Errorf("GateByTarget() = %+v, %v, want %+v", got, err, f.gate)
	}
	if got, err := f.s.PlatformGates(t.Context(), core.Telegram); err != nil || len(got) != 0 {
		t.Errorf("PlatformGates(telegram) = %+v, %v, want none", got, err)
	}
	bad := f.gate
	bad.Target.ID, bad.Mode = "other", core.GateMode{AtLeast: 3}
	if _, err := f.s.AddGate(t.Context(), bad); !errors.Is(err, core.ErrBadGateMode) {
		t.Errorf("AddGate(atleast:3 of 2) = %v, want %v", err, core.ErrBadGateMode)
	}
}

func TestMemStore_PauseGate(t *testing.T) {
	f := newGateFixture(t)
	var firsts atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if first, err := f.s.PauseGate(t.Context(), f.gate.ID, "missing Manage Roles", t0); err != nil {
				t.Error(err)
			} else if first {
				firsts.Add(1)
			}
		})
	}
	wg.Wait()
	if n := firsts.Load(); n != 1 {
		t.Errorf("8 racing pauses: %d first, want 1", n)
	}
	if err := f.s.ResumeGate(t.Context(), f.gate.ID); err != nil {
		t.Fatal(err)
	}
	if first, err := f.s.PauseGate(t.Context(), f.gate.ID, "again", t0); err != nil || !first {
		t.Errorf("PauseGate(resumed) = %v, %v, want true, nil", first, err)
	}
	if err := f.s.GateSynced(t.Context(), f.gate.ID+1, t0); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("GateSynced(unknown) = %v, want %v", err, core.ErrNotFound)
	}
}

func TestMemStore_Grants(t *testing.T) {
	f := newGateFixture(t)
	g := core.Grant{GateID: f.gate.ID, UserID: f.users[0].ID, Member: "alice", Reason: "verify", State: core.GrantActive, GrantedAt: t0}
	if ok, err := f.s.ClaimGrant(t.Context(), g); err != nil || !ok {
		t.Fatalf("ClaimGrant() = %v, %v, want true, nil", ok, err)
	}
	if ok, err := f.s.ClaimGrant(t.Context(), g); err != nil || ok {
		t.Errorf("ClaimGrant(again) = %v, %v, want false, nil", ok, err)
	}
	g.State = core.GrantWithdrawn
	if err := f.s.SetGrant(t.Context(), g); err != nil {
		t.Fatal(err)
	}
	if got, err := f.s.Grants(t.Context(), f.gate.ID); err != nil || !cmp.Equal(got, []core.Grant{g}) {
		t.Errorf("Grants() = %+v, %v, want %+v", got, err, g)
	}
	r := core.JoinRequest{GateID: f.gate.ID, UserID: f.users[1].ID, Member: "bob", RequestedAt: t0}
	if ok, err := f.s.AddJoinRequest(t.Context(), r); err != nil || !ok {
		t.Fatalf("AddJoinRequest() = %v, %v, want true, nil", ok, err)
	}
	if ok, err := f.s.AddJoinRequest(t.Context(), r); err != nil || ok {
		t.Errorf("AddJoinRequest(again) = %v, %v, want false, nil", ok, err)
	}
	if got, err := f.s.UserJoinRequests(t.Context(), f.users[1].ID); err != nil || !cmp.Equal(got, []core.JoinRequest{r}) {
		t.Errorf("UserJoinRequests() = %+v, %v, want %+v", got, err, r)
	}
	if err := f.s.RemoveGate(t.Context(), f.gate.ID); err != nil {
		t.Fatal(err)
	}
	if ok, _ := f.s.DropGrant(t.Context(), f.gate.ID, f.users[0].ID); ok {
		t.Error("DropGrant(after RemoveGate) = true, want the grant gone with the gate")
	}
	if ok, _ := f.s.DropJoinRequest(t.Context(), f.gate.ID, f.users[1].ID); ok {
		t.Error("DropJoinRequest(after RemoveGate) = true, want the request gone with the gate")
	}
	unknown := core.Grant{GateID: f.gate.ID, UserID: f.users[0].ID, Member: "alice", State: core.GrantActive}
	if _, err := f.s.ClaimGrant(t.Context(), unknown); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("ClaimGrant(removed gate) = %v, want %v", err, core.ErrNotFound)
	}
}

func TestMemStore_VerifiedMembers(t *testing.T) {
	f := newGateFixture(t)
	carol, err := f.s.UpsertUser(t.Context(), core.User{Platform: core.Telegram, ExternalID: "carol"})
	if err != nil {
		t.Fatal(err)
	}
	at := t0
	wallets := []core.Wallet{
		{UserID: f.users[0].ID, Kind: core.KindAddress, Value: OtherAddress, Address: OtherAddress, VerifiedAt: &at},
		{UserID: f.users[0].ID, Kind: core.KindENS, Value: "alice.eth", Address: "0x29C76E6AD8F28BB1004902578FB108C507BE341B", VerifiedAt: &at},
		{UserID: f.users[0].ID, Kind: core.KindAddress, Value: TestAddress, Address: TestAddress, VerifiedAt: &at},
		{UserID: f.users[1].ID, Kind: core.KindAddress, Value: TestAddress},
		{UserID: f.users[1].ID, Kind: core.KindEmail, Value: "bob@example.com", Address: OtherAddress, VerifiedAt: &at},
		{UserID: carol.ID, Kind: core.KindAddress, Value: TestAddress, Address: TestAddress, VerifiedAt: &at},
	}
	for _, w := range wallets {
		if _, err := f.s.AddWallet(t.Context(), w); err != nil {
			t.Fatal(err)
		}
	}
	got, err := f.s.VerifiedMembers(t.Context(), core.Discord)
	want := []core.VerifiedMember{{User: f.users[0], Addresses: []string{TestAddress, OtherAddress}}}
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("VerifiedMembers(discord) = %v, diff (-want +got):\n%s", err, diff)
	}
}
