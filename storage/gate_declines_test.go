package storage

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

// decline is a declined join request of u to g at at, lacking g's first
// drop.
func decline(g core.Gate, u core.User, at time.Time) core.JoinDecline {
	return core.JoinDecline{GateID: g.ID, UserID: u.ID, Member: u.ExternalID, Reason: core.DeclineMissing,
		Missing: g.Drops[:1], RequestedAt: at.Add(-time.Minute), DeclinedAt: at}
}

// mustDecline stores d or fails the test.
func mustDecline(t *testing.T, db *DB, d core.JoinDecline) {
	t.Helper()
	if err := db.AddJoinDecline(t.Context(), d); err != nil {
		t.Fatalf("AddJoinDecline(gate #%d, user #%d) = %v", d.GateID, d.UserID, err)
	}
}

// declinesOf lists the user's declines since since, or fails the test.
func declinesOf(t *testing.T, db *DB, userID int64, since time.Time) []core.JoinDecline {
	t.Helper()
	got, err := db.UserJoinDeclines(t.Context(), userID, since)
	if err != nil {
		t.Fatalf("UserJoinDeclines(user #%d) = %v", userID, err)
	}
	return got
}

func TestDB_JoinDeclines(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "declines")
		g1, g2 := mustAddGate(t, db, newGate(tn.ID, "group-1")), mustAddGate(t, db, newGate(tn.ID, "group-2"))
		users := mustUsers(t, db, "decline", 2)
		first := decline(g1, users[0], t0)
		mustDecline(t, db, first)
		expired := core.JoinDecline{GateID: g2.ID, UserID: users[0].ID, Member: users[0].ExternalID, Reason: core.DeclineExpired,
			RequestedAt: t0, DeclinedAt: t0.Add(core.JoinRequestTTL)}
		mustDecline(t, db, expired)
		mustDecline(t, db, decline(g1, users[1], t0))
		if diff := cmp.Diff([]core.JoinDecline{first, expired}, declinesOf(t, db, users[0].ID, t0)); diff != "" {
			t.Errorf("UserJoinDeclines(since t0) (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]core.JoinDecline{expired}, declinesOf(t, db, users[0].ID, t0.Add(time.Second))); diff != "" {
			t.Errorf("UserJoinDeclines(since after the first) (-want +got):\n%s", diff)
		}

		// A later decline of the same request replaces the earlier one.
		later := decline(g1, users[0], t0.Add(48*time.Hour))
		later.Missing = g1.Drops
		mustDecline(t, db, later)
		if diff := cmp.Diff([]core.JoinDecline{expired, later}, declinesOf(t, db, users[0].ID, t0)); diff != "" {
			t.Errorf("UserJoinDeclines(after a second decline) (-want +got):\n%s", diff)
		}
	})
}

func TestDB_AddJoinDecline_Errors(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "decline errors")
		g := mustAddGate(t, db, newGate(tn.ID, "group"))
		u := mustUsers(t, db, "decline-errors", 1)[0]
		unknownGate := decline(g, u, t0)
		unknownGate.GateID = g.ID + 1000
		if err := db.AddJoinDecline(t.Context(), unknownGate); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("AddJoinDecline(unknown gate) = %v, want core.ErrNotFound", err)
		}
		bad := map[string]core.JoinDecline{"no member": decline(g, u, t0), "unknown reason": decline(g, u, t0)}
		m := bad["no member"]
		m.Member = ""
		bad["no member"] = m
		r := bad["unknown reason"]
		r.Reason = "bored"
		bad["unknown reason"] = r
		for name, d := range bad {
			if err := db.AddJoinDecline(t.Context(), d); err == nil {
				t.Errorf("AddJoinDecline(%s) = nil, want an error", name)
			}
		}
		if got := declinesOf(t, db, u.ID, time.Time{}); len(got) != 0 {
			t.Errorf("UserJoinDeclines() = %v after refused adds, want none", got)
		}
	})
}

// TestDB_PruneJoinDeclines: the schedule deletes the declines older than
// the cut-off, and only those.
func TestDB_PruneJoinDeclines(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "decline prune")
		g1, g2 := mustAddGate(t, db, newGate(tn.ID, "group-1")), mustAddGate(t, db, newGate(tn.ID, "group-2"))
		u := mustUsers(t, db, "decline-prune", 1)[0]
		old, recent := decline(g1, u, t0), decline(g2, u, t0.Add(core.JoinDeclineTTL))
		mustDecline(t, db, old)
		mustDecline(t, db, recent)
		n, err := db.PruneJoinDeclines(t.Context(), t0.Add(time.Second))
		if err != nil || n != 1 {
			t.Fatalf("PruneJoinDeclines() = %d, %v, want 1, nil", n, err)
		}
		if diff := cmp.Diff([]core.JoinDecline{recent}, declinesOf(t, db, u.ID, time.Time{})); diff != "" {
			t.Errorf("UserJoinDeclines(after pruning) (-want +got):\n%s", diff)
		}
		if n, err := db.PruneJoinDeclines(t.Context(), t0.Add(time.Second)); err != nil || n != 0 {
			t.Errorf("PruneJoinDeclines(again) = %d, %v, want 0, nil", n, err)
		}
	})
}

// TestDB_JoinDeclines_Deleted: forgetting the member deletes their
// declines; removing a gate deletes its own.
func TestDB_JoinDeclines_Deleted(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "decline deleted")
		g1, g2 := mustAddGate(t, db, newGate(tn.ID, "group-1")), mustAddGate(t, db, newGate(tn.ID, "group-2"))
		users := mustUsers(t, db, "decline-deleted", 2)
		for _, u := range users {
			mustDecline(t, db, decline(g1, u, t0))
			mustDecline(t, db, decline(g2, u, t0))
		}
		if _, err := db.ForgetUser(t.Context(), users[0].Platform, users[0].ExternalID); err != nil {
			t.Fatalf("ForgetUser() = %v", err)
		}
		if got := declinesOf(t, db, users[0].ID, time.Time{}); len(got) != 0 {
			t.Errorf("UserJoinDeclines(forgotten member) = %v, want none", got)
		}
		if err := db.RemoveGate(t.Context(), g1.ID); err != nil {
			t.Fatalf("RemoveGate() = %v", err)
		}
		if diff := cmp.Diff([]core.JoinDecline{decline(g2, users[1], t0)}, declinesOf(t, db, users[1].ID, time.Time{})); diff != "" {
			t.Errorf("UserJoinDeclines(after a gate's removal) (-want +got):\n%s", diff)
		}
		var left int64
		if err := db.gorm.Table("gate_join_declines").Count(&left).Error; err != nil || left != 1 {
			t.Errorf("rows in gate_join_declines = %d, %v, want 1", left, err)
		}
	})
}
