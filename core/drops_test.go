package core_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/core"
)

func TestDropService_AddDrop(t *testing.T) {
	t.Parallel()
	starts := t0.Add(time.Hour)
	ends := t0.Add(48 * time.Hour)
	t.Run("OK", func(t *testing.T) {
		dt := newDropTest(t)
		got := dt.add(t, 12, 2, core.AddDropOptions{Method: core.ClaimMint, Starts: &starts, Ends: &ends, Codeword: " Sesame ", RequiredRole: "77"})
		want := core.Drop{
			ID: 1, PlaceID: 1, EventID: eventID, Name: "Drop 4242", ImageURL: "https://img.test/4242.png", EditCode: editCode,
			Method: core.ClaimMint, Starts: &starts, Ends: &ends, Codeword: "Sesame", RequiredRole: "77",
			ExpiresAt: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), LowStock: core.DefaultLowStock, CreatedBy: 1, CreatedAt: t0,
		}
		if diff := cmp.Diff(want, got.Drop); diff != "" {
			t.Errorf("AddDrop() drop mismatch (-want +got):\n%s", diff)
		}
		if want := (core.Stock{Total: 12, Available: 10, ClaimedElsewhere: 2}); got.Stock != want {
			t.Errorf("AddDrop() stock = %+v, want %+v", got.Stock, want)
		}
		log := dt.store.AuditLog()
		if len(log) != 1 || log[0].Action != core.AuditDropAdded || strings.Contains(log[0].Detail, editCode.Reveal()) {
			t.Errorf("audit log = %+v, want one drop added without the edit code", log)
		}
	})
	past := t0.Add(-time.Hour)
	refusals := []struct {
		name string
		code core.Secret
		opts core.AddDropOptions
		want error
	}{
		{"ErrWrongEditCode", "111111", core.AddDropOptions{}, core.ErrWrongEditCode},
		{"ErrWrongEditCode/NotDigits", "12ab", core.AddDropOptions{}, core.ErrWrongEditCode},
		{"ErrUnknownEvent", editCode, core.AddDropOptions{EventID: 999}, core.ErrUnknownEvent},
		{"ErrInvalidWindow/EndsBeforeStarts", editCode, core.AddDropOptions{Starts: &ends, Ends: &starts}, core.ErrInvalidWindow},
		{"ErrInvalidWindow/EndsInThePast", editCode, core.AddDropOptions{Ends: &past}, core.ErrInvalidWindow},
		{"ErrInvalidClaimMethod", editCode, core.AddDropOptions{Method: "post"}, core.ErrInvalidClaimMethod},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			dt := newDropTest(t)
			dt.issuer.addEvent(eventID, editCode, 5, 0)
			tt.opts.EditCode = tt.code
			if tt.opts.EventID == 0 {
				tt.opts.EventID = eventID
			}
			_, err := dt.svc.AddDrop(t.Context(), dt.mod, dt.place, tt.opts)
			var dropErr *core.DropError
			if !errors.Is(err, tt.want) || !errors.As(err, &dropErr) || dropErr.Drop.EventID != tt.opts.EventID {
				t.Fatalf("AddDrop() = %v, want a *DropError of %d with %v", err, tt.opts.EventID, tt.want)
			}
			if drops, _ := dt.store.AllDrops(t.Context()); len(drops) != 0 || len(dt.store.AuditLog()) != 0 {
				t.Errorf("after a refusal: drops %+v, audit %+v, want nothing stored", drops, dt.store.AuditLog())
			}
		})
	}
	t.Run("ErrDropExists", func(t *testing.T) {
		dt := newDropTest(t)
		dt.add(t, 3, 0, core.AddDropOptions{})
		_, err := dt.svc.AddDrop(t.Context(), dt.mod, dt.place, core.AddDropOptions{EventID: eventID, EditCode: editCode})
		if !errors.Is(err, core.ErrDropExists) {
			t.Fatalf("AddDrop() again = %v, want ErrDropExists", err)
		}
		if _, err := dt.svc.RemoveDrop(t.Context(), dt.mod, dt.place, eventID); err != nil {
			t.Fatal(err)
		}
		again, err := dt.svc.AddDrop(t.Context(), dt.mod, dt.place, core.AddDropOptions{EventID: eventID, EditCode: editCode})
		if err != nil || !again.Again || again.Drop.ID != 1 {
			t.Errorf("AddDrop() after RemoveDrop = %+v, %v, want drop #1 added again", again, err)
		}
		if log := dt.store.AuditLog(); log[len(log)-1].Action != core.AuditDropAddedAgain {
			t.Errorf("audit log = %+v, want the drop added again last", log)
		}
	})
}

func TestDropService_ListDrops(t *testing.T) {
	t.Parallel()
	dt := newDropTest(t)
	dt.add(t, 4, 1, core.AddDropOptions{})
	if _, err := dt.claim(t, dt.member(t, "alice", ""), core.ClaimOptions{}); err != nil {
		t.Fatal(err)
	}
	drops, err := dt.svc.ListDrops(t.Context(), dt.place)
	if err != nil || len(drops) != 1 {
		t.Fatalf("ListDrops() = %+v, %v, want one drop", drops, err)
	}
	if want := (core.Stock{Total: 4, Available: 2, HandedOut: 1, ClaimedElsewhere: 1}); drops[0].Stock != want {
		t.Errorf("ListDrops() stock = %+v, want %+v", drops[0].Stock, want)
	}
	other, err := dt.svc.ListDrops(t.Context(), core.Place{Platform: core.Console, ExternalID: "elsewhere"})
	if err != nil || len(other) != 0 {
		t.Errorf("ListDrops(other place) = %+v, %v, want none", other, err)
	}
}

func TestDropService_RemoveDrop(t *testing.T) {
	t.Parallel()
	dt := newDropTest(t)
	dt.add(t, 4, 0, core.AddDropOptions{})
	if _, err := dt.svc.RemoveDrop(t.Context(), dt.mod, dt.place, 1); !errors.Is(err, core.ErrNoSuchDrop) {
		t.Errorf("RemoveDrop(unknown) = %v, want ErrNoSuchDrop", err)
	}
	d, err := dt.svc.RemoveDrop(t.Context(), dt.mod, dt.place, eventID)
	if err != nil || d.RemovedAt == nil {
		t.Fatalf("RemoveDrop() = %+v, %v", d, err)
	}
	if _, err := dt.claim(t, dt.member(t, "alice", ""), core.ClaimOptions{}); !errors.Is(err, core.ErrNoSuchDrop) {
		t.Errorf("Claim() after RemoveDrop = %v, want ErrNoSuchDrop", err)
	}
	if _, err := dt.svc.RemoveDrop(t.Context(), dt.mod, dt.place, eventID); !errors.Is(err, core.ErrNoSuchDrop) {
		t.Errorf("RemoveDrop() twice = %v, want ErrNoSuchDrop", err)
	}
	if drops, _ := dt.svc.ListDrops(t.Context(), dt.place); len(drops) != 0 {
		t.Errorf("ListDrops() after RemoveDrop = %+v, want none", drops)
	}
	if last := dt.store.AuditLog(); last[len(last)-1].Action != core.AuditDropRemoved {
		t.Errorf("audit log = %+v, want the removal last", last)
	}
}

func TestDropService_TopUpRefresh(t *testing.T) {
	t.Parallel()
	dt := newDropTest(t)
	dt.add(t, 2, 0, core.AddDropOptions{})
	if _, n, err := dt.svc.TopUp(t.Context(), dt.mod, dt.place, eventID, 0); err != nil || n != core.DefaultTopUp {
		t.Fatalf("TopUp() = %d, %v, want %d links asked", n, err, core.DefaultTopUp)
	}
	if _, _, err := dt.svc.TopUp(t.Context(), dt.mod, dt.place, eventID, 5); !errors.Is(err, core.ErrTopUpPending) {
		t.Errorf("TopUp() while pending = %v, want ErrTopUpPending", err)
	}
	if _, _, err := dt.svc.TopUp(t.Context(), dt.mod, dt.place, eventID, -1); !errors.Is(err, core.ErrInvalidTopUp) {
		t.Errorf("TopUp(-1) = %v, want ErrInvalidTopUp", err)
	}
	dt.issuer.approve(eventID)
	dt.issuer.claimOutside("e4242-1")
	r, err := dt.svc.RefreshDrop(t.Context(), dt.mod, dt.place, eventID)
	if err != nil || r.Added != core.DefaultTopUp || r.Marked != 1 {
		t.Fatalf("RefreshDrop() = %+v, %v, want %d added, 1 marked", r, err, core.DefaultTopUp)
	}
	if want := (core.Stock{Total: 52, Available: 51, ClaimedElsewhere: 1}); r.Stock != want {
		t.Errorf("RefreshDrop() stock = %+v, want %+v", r.Stock, want)
	}
	dt.issuer.set(func(f *dropIssuer) { f.addLinksLocked(eventID, 3, 0) })
	if err := dt.svc.RefreshAll(t.Context()); err != nil {
		t.Fatalf("RefreshAll() = %v", err)
	}
	if got := dt.stock(t).Total; got != 55 {
		t.Errorf("after RefreshAll, total = %d, want 55", got)
	}
}

func TestDropService_Export(t *testing.T) {
	t.Parallel()
	dt := newDropTest(t)
	dt.add(t, 3, 0, core.AddDropOptions{})
	if _, err := dt.claim(t, dt.member(t, "alice", ""), core.ClaimOptions{}); err != nil {
		t.Fatal(err)
	}
	d, rows, err := dt.svc.Export(t.Context(), dt.mod, dt.place, eventID)
	if err != nil || d.EventID != eventID || len(rows) != 1 {
		t.Fatalf("Export() = %+v, %+v, %v, want alice's row", d, rows, err)
	}
	if rows[0].QRHash != "e4242-1" || rows[0].State != core.MintLinkHandedOut || rows[0].Member == "" || rows[0].Member == "alice" {
		t.Errorf("Export() row = %+v", rows[0])
	}
}
