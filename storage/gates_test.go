package storage

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

// newGate returns an unsaved role gate of the tenant on target, with two
// drops, added at t0.
func newGate(tenantID int64, target string) core.Gate {
	return core.Gate{
		PlaceID:   tenantID,
		Target:    core.GateTarget{ID: target, Name: "name of " + target, Kind: core.GateRole},
		Drops:     []core.GateDrop{{ID: 11, Name: "Eleven"}, {ID: 12}},
		Mode:      core.GateAny,
		Channel:   "channel-1",
		CreatedAt: t0,
	}
}

// mustAddGate adds g or fails the test.
func mustAddGate(t *testing.T, db *DB, g core.Gate) core.Gate {
	t.Helper()
	out, err := db.AddGate(t.Context(), g)
	if err != nil {
		t.Fatalf("AddGate(%s) = %v", g.Target.ID, err)
	}
	return out
}

// mustClaim claims a grant of the gate to u at t0, or fails the test.
func mustClaim(t *testing.T, db *DB, gateID int64, u core.User) {
	t.Helper()
	g := core.Grant{GateID: gateID, UserID: u.ID, Member: u.ExternalID, Reason: "sync", State: core.GrantActive, GrantedAt: t0}
	if ok, err := db.ClaimGrant(t.Context(), g); err != nil || !ok {
		t.Fatalf("ClaimGrant(gate #%d, user #%d) = %v, %v, want claimed", gateID, u.ID, ok, err)
	}
}

// mustRequest stores a join request of u to the gate at at, or fails the
// test.
func mustRequest(t *testing.T, db *DB, gateID int64, u core.User, at time.Time) {
	t.Helper()
	r := core.JoinRequest{GateID: gateID, UserID: u.ID, Member: u.ExternalID, RequestedAt: at}
	if ok, err := db.AddJoinRequest(t.Context(), r); err != nil || !ok {
		t.Fatalf("AddJoinRequest(gate #%d, user #%d) = %v, %v, want added", gateID, u.ID, ok, err)
	}
}

func TestDB_AddGate(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "gates")
		mod := mustUpsertUser(t, db, core.Discord, "mod", "Mod")
		t.Run("OK", func(t *testing.T) {
			in := newGate(tn.ID, "role-1")
			in.CreatedBy = mod.ID
			got := mustAddGate(t, db, in)
			want := in
			want.ID, want.Platform, want.Place = got.ID, core.Discord, "gates"
			if got.ID == 0 || !cmp.Equal(got, want) {
				t.Errorf("AddGate() = %+v, want %+v", got, want)
			}
			read, err := db.GateByTarget(t.Context(), tn.ID, "role-1")
			if err != nil || !cmp.Equal(read, want) {
				t.Errorf("GateByTarget() = %+v, %v, want %+v", read, err, want)
			}
		})
		t.Run("ErrGateExists", func(t *testing.T) {
			before, err := db.GateByTarget(t.Context(), tn.ID, "role-1")
			if err != nil {
				t.Fatal(err)
			}
			again := newGate(tn.ID, "role-1")
			again.Drops, again.Mode, again.Channel = []core.GateDrop{{ID: 99}}, core.GateAll, "elsewhere"
			_, err = db.AddGate(t.Context(), again)
			if !errors.Is(err, core.ErrGateExists) || !errors.Is(err, core.ErrConflict) {
				t.Errorf("AddGate(same target) = %v, want %v and %v", err, core.ErrGateExists, core.ErrConflict)
			}
			after, err := db.GateByTarget(t.Context(), tn.ID, "role-1")
			if err != nil || !cmp.Equal(after, before) {
				t.Errorf("GateByTarget(after the refusal) = %+v, %v, want %+v unchanged", after, err, before)
			}
			if n := count(t, db, "gates", "tenant_id = ?", tn.ID); n != 1 {
				t.Errorf("gates of the tenant = %d, want 1", n)
			}
		})
		t.Run("ErrNotFound", func(t *testing.T) {
			if _, err := db.AddGate(t.Context(), newGate(tn.ID+1000, "role-x")); !errors.Is(err, core.ErrNotFound) {
				t.Errorf("AddGate(unknown tenant) = %v, want %v", err, core.ErrNotFound)
			}
			if _, err := db.GateByTarget(t.Context(), tn.ID, "role-x"); !errors.Is(err, core.ErrNotFound) {
				t.Errorf("GateByTarget(no gate) = %v, want %v", err, core.ErrNotFound)
			}
		})
		t.Run("ErrBadGateMode", func(t *testing.T) {
			g := newGate(tn.ID, "role-bad")
			g.Mode = core.GateMode{AtLeast: 3}
			if _, err := db.AddGate(t.Context(), g); !errors.Is(err, core.ErrBadGateMode) {
				t.Errorf("AddGate(atleast:3 of 2 drops) = %v, want %v", err, core.ErrBadGateMode)
			}
		})
	})
}

// TestDB_AddGate_RoundTrip: modes, drops with and without names, and a
// group's invite link read back as written.
func TestDB_AddGate_RoundTrip(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "modes")
		drops := []core.GateDrop{{ID: 1, Name: "One"}, {ID: 2, Name: `Two "quoted", ünïcode`}, {ID: 3}}
		for _, mode := range []core.GateMode{core.GateAny, core.GateAll, {AtLeast: 2}, {AtLeast: 3}} {
			t.Run(mode.String(), func(t *testing.T) {
				in := newGate(tn.ID, "group-"+mode.String())
				in.Target.Kind, in.Target.InviteLink = core.GateGroup, "https://t.me/+abc"
				in.Drops, in.Mode = drops, mode
				want := mustAddGate(t, db, in)
				got, err := db.GateByTarget(t.Context(), tn.ID, in.Target.ID)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("GateByTarget() differs from AddGate() (-added +read):\n%s", diff)
				}
				if got.Mode != mode || !cmp.Equal(got.Drops, drops) || got.Target != in.Target {
					t.Errorf("GateByTarget() = mode %v, drops %+v, target %+v; want %v, %+v, %+v",
						got.Mode, got.Drops, got.Target, mode, drops, in.Target)
				}
			})
		}
	})
}

func TestDB_TenantGates(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		a, b := mustTenant(t, db, "a"), mustTenant(t, db, "b")
		chat, err := db.UpsertPlace(t.Context(), core.Place{Platform: core.Telegram, ExternalID: "-100"})
		if err != nil {
			t.Fatal(err)
		}
		late := newGate(a.ID, "late")
		late.CreatedAt = t0.Add(time.Hour)
		gLate := mustAddGate(t, db, late)
		gEarly := mustAddGate(t, db, newGate(a.ID, "early"))
		gB := mustAddGate(t, db, newGate(b.ID, "other"))
		group := newGate(chat.ID, "-100")
		group.Target.Kind = core.GateGroup
		gChat := mustAddGate(t, db, group)

		got, err := db.PlaceGates(t.Context(), a.ID)
		if diff := cmp.Diff([]core.Gate{gEarly, gLate}, got); err != nil || diff != "" {
			t.Errorf("TenantGates(a) = %v, diff (-want +got):\n%s", err, diff)
		}
		got, err = db.PlatformGates(t.Context(), core.Discord)
		if diff := cmp.Diff([]core.Gate{gEarly, gB, gLate}, got); err != nil || diff != "" {
			t.Errorf("PlatformGates(discord) = %v, diff (-want +got):\n%s", err, diff)
		}
		got, err = db.PlatformGates(t.Context(), core.Telegram)
		if diff := cmp.Diff([]core.Gate{gChat}, got); err != nil || diff != "" {
			t.Errorf("PlatformGates(telegram) = %v, diff (-want +got):\n%s", err, diff)
		}
		if gChat.Platform != core.Telegram || gChat.Place != "-100" {
			t.Errorf("AddGate(telegram) = platform %q, place %q; want telegram, -100", gChat.Platform, gChat.Place)
		}
		if got, err := db.PlaceGates(t.Context(), 999999); err != nil || len(got) != 0 {
			t.Errorf("TenantGates(unknown) = %v, %v, want none", got, err)
		}
	})
}

// TestDB_RemoveGate: the gate goes with its grants and join requests, and
// so does every gate of a tenant that goes.
func TestDB_RemoveGate(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "remove")
		users := mustUsers(t, db, "remove", 2)
		g := mustAddGate(t, db, newGate(tn.ID, "role"))
		kept := mustAddGate(t, db, newGate(tn.ID, "kept"))
		for _, id := range []int64{g.ID, kept.ID} {
			mustClaim(t, db, id, users[0])
			mustRequest(t, db, id, users[1], t0)
		}
		if err := db.RemoveGate(t.Context(), g.ID); err != nil {
			t.Fatalf("RemoveGate() = %v", err)
		}
		if _, err := db.GateByTarget(t.Context(), tn.ID, "role"); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("GateByTarget(removed) = %v, want %v", err, core.ErrNotFound)
		}
		for _, table := range []string{"gate_grants", "gate_join_requests"} {
			if n := count(t, db, table, "gate_id = ?", g.ID); n != 0 {
				t.Errorf("%s of the removed gate = %d, want 0", table, n)
			}
			if n := count(t, db, table, "gate_id = ?", kept.ID); n != 1 {
				t.Errorf("%s of the other gate = %d, want 1", table, n)
			}
		}
		if reqs, err := db.UserJoinRequests(t.Context(), users[1].ID); err != nil || len(reqs) != 1 || reqs[0].GateID != kept.ID {
			t.Errorf("UserJoinRequests() = %+v, %v, want the other gate's only", reqs, err)
		}
		if err := db.RemoveGate(t.Context(), g.ID); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("RemoveGate(again) = %v, want %v", err, core.ErrNotFound)
		}

		if err := db.gorm.Exec(`DELETE FROM tenants WHERE id = ?`, tn.ID).Error; err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{"gates", "gate_grants", "gate_join_requests"} {
			if n := count(t, db, table, "1 = 1"); n != 0 {
				t.Errorf("%s after the tenant went = %d, want 0", table, n)
			}
		}
	})
}

// TestDB_PauseGate: of racing pauses one is first; the first reason
// stays until the gate resumes.
func TestDB_PauseGate(t *testing.T) {
	t.Parallel()
	eachMigrated(t, func(t *testing.T, newURL func() string) {
		dbs := replicas(t, newURL(), 4)
		db := dbs[0]
		g := mustAddGate(t, db, newGate(mustTenant(t, db, "pause").ID, "role"))
		var firsts atomic.Int32
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Go(func() {
				first, err := dbs[i%len(dbs)].PauseGate(t.Context(), g.ID, "missing Manage Roles", t0)
				if err != nil {
					t.Errorf("PauseGate() = %v", err)
				}
				if first {
					firsts.Add(1)
				}
			})
		}
		wg.Wait()
		if n := firsts.Load(); n != 1 {
			t.Errorf("16 racing pauses: %d first, want 1", n)
		}
		if first, err := db.PauseGate(t.Context(), g.ID, "another reason", t0.Add(time.Hour)); err != nil || first {
			t.Errorf("PauseGate(paused) = %v, %v, want false, nil", first, err)
		}
		got := mustGateByTarget(t, db, g)
		if got.Paused != "missing Manage Roles" || got.PausedAt == nil || !got.PausedAt.Equal(t0) {
			t.Errorf("GateByTarget() = paused %q at %v, want the first pause at %v", got.Paused, got.PausedAt, t0)
		}

		if err := db.ResumeGate(t.Context(), g.ID); err != nil {
			t.Fatalf("ResumeGate() = %v", err)
		}
		if got := mustGateByTarget(t, db, g); got.Paused != "" || got.PausedAt != nil {
			t.Errorf("GateByTarget(resumed) = paused %q at %v, want neither", got.Paused, got.PausedAt)
		}
		if first, err := db.PauseGate(t.Context(), g.ID, "again", t0.Add(2*time.Hour)); err != nil || !first {
			t.Errorf("PauseGate(resumed) = %v, %v, want true, nil", first, err)
		}
		if _, err := db.PauseGate(t.Context(), g.ID, "", t0); err == nil {
			t.Error("PauseGate(empty reason) = nil error, want an error")
		}
		if _, err := db.PauseGate(t.Context(), g.ID+100, "x", t0); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("PauseGate(unknown) = %v, want %v", err, core.ErrNotFound)
		}
		if err := db.ResumeGate(t.Context(), g.ID+100); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("ResumeGate(unknown) = %v, want %v", err, core.ErrNotFound)
		}
	})
}

// mustGateByTarget reads g back or fails the test.
func mustGateByTarget(t *testing.T, db *DB, g core.Gate) core.Gate {
	t.Helper()
	got, err := db.GateByTarget(t.Context(), g.PlaceID, g.Target.ID)
	if err != nil {
		t.Fatalf("GateByTarget(%s) = %v", g.Target.ID, err)
	}
	return got
}

func TestDB_GateSynced(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		g := mustAddGate(t, db, newGate(mustTenant(t, db, "synced").ID, "role"))
		if g.SyncedAt != nil {
			t.Errorf("AddGate() = synced at %v, want never", g.SyncedAt)
		}
		at := time.Date(2026, 11, 23, 9, 30, 0, 123456000, time.FixedZone("CET", 3600))
		if err := db.GateSynced(t.Context(), g.ID, at); err != nil {
			t.Fatalf("GateSynced() = %v", err)
		}
		got := mustGateByTarget(t, db, g)
		if got.SyncedAt == nil || !got.SyncedAt.Equal(at) || got.SyncedAt.Location() != time.UTC {
			t.Errorf("GateByTarget() = synced at %v, want %v in UTC", got.SyncedAt, at)
		}
		if err := db.GateSynced(t.Context(), g.ID+100, at); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("GateSynced(unknown) = %v, want %v", err, core.ErrNotFound)
		}
	})
}

func TestDB_SetGateInviteLink(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		g := newGate(mustTenant(t, db, "invite").ID, "-100123")
		g.Target.Kind = core.GateGroup
		g = mustAddGate(t, db, g)
		if g.Target.InviteLink != "" {
			t.Fatalf("AddGate() = invite link %q, want none yet", g.Target.InviteLink)
		}
		const link = "https://t.me/+AbC-123_x"
		if err := db.SetGateInviteLink(t.Context(), g.ID, link); err != nil {
			t.Fatalf("SetGateInviteLink() = %v", err)
		}
		if got := mustGateByTarget(t, db, g); got.Target.InviteLink != link {
			t.Errorf("GateByTarget() = invite link %q, want %q", got.Target.InviteLink, link)
		}
		if err := db.SetGateInviteLink(t.Context(), g.ID+100, link); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("SetGateInviteLink(unknown) = %v, want %v", err, core.ErrNotFound)
		}
	})
}
