package storage

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/core"
)

// buttonID returns a button id of the right shape, distinct per n.
func buttonID(n int) string { return fmt.Sprintf("B%025d", n) }

func TestDB_SaveButtonAction(t *testing.T) {
	eachDB(t, func(t *testing.T, db *DB) {
		ctx := t.Context()
		at := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
		soon, later := at.Add(time.Hour), at.Add(48*time.Hour)
		a := core.ButtonAction{ID: buttonID(1), Platform: core.Telegram, Place: "-100", Member: "42", Line: "/poaps 0xabc page:2", CreatedAt: at, ExpiresAt: &soon}
		saved, err := db.SaveButtonAction(ctx, a)
		if err != nil {
			t.Fatalf("SaveButtonAction() = %v", err)
		}
		if !cmp.Equal(saved, a) {
			t.Errorf("SaveButtonAction() = %+v, want %+v", saved, a)
		}
		got, err := db.ButtonAction(ctx, a.ID)
		if err != nil || !cmp.Equal(got, a) {
			t.Errorf("ButtonAction(%s) = %+v, %v; want %+v", a.ID, got, err, a)
		}

		// The same action again keeps its id and takes the later expiry.
		again := a
		again.ID, again.ExpiresAt = buttonID(2), &later
		saved, err = db.SaveButtonAction(ctx, again)
		if err != nil || saved.ID != a.ID || saved.ExpiresAt == nil || !saved.ExpiresAt.Equal(later) {
			t.Errorf("SaveButtonAction(same action, later) = %+v, %v; want id %s expiring %v", saved, err, a.ID, later)
		}
		again.ExpiresAt = &soon
		if saved, err = db.SaveButtonAction(ctx, again); err != nil || !saved.ExpiresAt.Equal(later) {
			t.Errorf("SaveButtonAction(same action, sooner) = %+v, %v; want the later expiry kept", saved, err)
		}
		again.ExpiresAt = nil
		if saved, err = db.SaveButtonAction(ctx, again); err != nil || saved.ExpiresAt != nil {
			t.Errorf("SaveButtonAction(same action, never) = %+v, %v; want no expiry", saved, err)
		}
		if _, err := db.ButtonAction(ctx, buttonID(2)); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("ButtonAction(the discarded id) = %v, want ErrNotFound", err)
		}

		// Another member, place or line is another action.
		for i, other := range []core.ButtonAction{
			{Platform: core.Telegram, Place: "-100", Member: "43", Line: a.Line},
			{Platform: core.Telegram, Place: "-101", Member: "42", Line: a.Line},
			{Platform: core.Discord, Place: "-100", Member: "42", Line: a.Line},
			{Platform: core.Telegram, Place: "-100", Member: "", Line: a.Line},
			{Platform: core.Telegram, Place: "-100", Member: "42", Line: "/poaps 0xabc page:3"},
		} {
			other.ID, other.CreatedAt = buttonID(10+i), at
			if saved, err := db.SaveButtonAction(ctx, other); err != nil || saved.ID != other.ID {
				t.Errorf("SaveButtonAction(%+v) = %+v, %v; want a new action", other, saved, err)
			}
		}
		if _, err := db.SaveButtonAction(ctx, core.ButtonAction{ID: buttonID(30), Platform: core.Telegram, Place: "-100"}); err == nil {
			t.Error("SaveButtonAction(no line) = nil, want an error")
		}
	})
}

// TestDB_SaveButtonAction_Concurrent: handles racing to save one action
// all get the one stored id.
func TestDB_SaveButtonAction_Concurrent(t *testing.T) {
	eachDB(t, func(t *testing.T, db *DB) {
		const n = 16
		ids := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				a := core.ButtonAction{ID: buttonID(100 + i), Platform: core.Discord, Place: "g", Line: "/claim 7"}
				saved, err := db.SaveButtonAction(t.Context(), a)
				if err != nil {
					t.Errorf("SaveButtonAction() = %v", err)
				}
				ids[i] = saved.ID
			})
		}
		wg.Wait()
		for _, id := range ids {
			if id != ids[0] {
				t.Fatalf("ids = %v, want one", ids)
			}
		}
	})
}

func TestDB_PruneButtons(t *testing.T) {
	eachDB(t, func(t *testing.T, db *DB) {
		ctx := t.Context()
		now := time.Now().UTC()
		old := now.Add(-buttonPruneAfter - time.Hour)
		recent := now.Add(-time.Hour)
		for i, exp := range []*time.Time{&old, &recent, nil} {
			a := core.ButtonAction{ID: buttonID(200 + i), Platform: core.Discord, Place: "g", Line: fmt.Sprintf("/poaps page:%d", i), CreatedAt: old, ExpiresAt: exp}
			if _, err := db.SaveButtonAction(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		// The first save pruned, before the old one was stored: take the
		// turn back and save once more.
		db.buttonsPruned.at = time.Time{}
		if _, err := db.SaveButtonAction(ctx, core.ButtonAction{ID: buttonID(210), Platform: core.Discord, Place: "g", Line: "/help"}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ButtonAction(ctx, buttonID(200)); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("the action expired long ago: %v, want ErrNotFound", err)
		}
		for _, id := range []string{buttonID(201), buttonID(202)} {
			if _, err := db.ButtonAction(ctx, id); err != nil {
				t.Errorf("ButtonAction(%s) = %v, want it kept", id, err)
			}
		}
	})
}

// TestDB_ForgetUser_Buttons: /forget deletes the member's buttons, also
// when nothing else is stored about them, and nobody else's.
func TestDB_ForgetUser_Buttons(t *testing.T) {
	eachDB(t, func(t *testing.T, db *DB) {
		ctx := t.Context()
		save := func(n int, member, line string) {
			t.Helper()
			a := core.ButtonAction{ID: buttonID(n), Platform: core.Telegram, Place: "p", Member: member, Line: line}
			if _, err := db.SaveButtonAction(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		save(1, "7", "/poaps 0xabc page:2")
		save(2, "8", "/poaps 0xdef page:2")
		save(3, "", "/claim 5")
		if _, err := db.ForgetUser(ctx, core.Telegram, "7"); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("ForgetUser(nobody stored) = %v, want ErrNotFound", err)
		}
		if _, err := db.ButtonAction(ctx, buttonID(1)); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("the forgotten member's button: %v, want ErrNotFound", err)
		}
		for _, n := range []int{2, 3} {
			if _, err := db.ButtonAction(ctx, buttonID(n)); err != nil {
				t.Errorf("button %d: %v, want it kept", n, err)
			}
		}
	})
}
