package core_test

import (
	"errors"
	"testing"

	"github.com/poapbot/poapbot/core"
)

func TestDropService_Distribute(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		dt := newDropTest(t)
		dt.add(t, 5, 1, core.AddDropOptions{})
		got, err := dt.svc.Distribute(t.Context(), dt.mod, dt.place, 0)
		if err != nil {
			t.Fatalf("Distribute(no id) = %v", err)
		}
		if got.Drop.EventID != eventID || got.Stock.Available != 4 {
			t.Errorf("Distribute(no id) = event %d, %d available, want event %d, 4", got.Drop.EventID, got.Stock.Available, eventID)
		}
		log := dt.store.AuditLog()
		if last := log[len(log)-1]; last.Action != core.AuditDropDistributed {
			t.Errorf("last audit entry = %+v, want %q", last, core.AuditDropDistributed)
		}
	})
	t.Run("ErrNoSuchDrop", func(t *testing.T) {
		dt := newDropTest(t)
		if _, err := dt.svc.Distribute(t.Context(), dt.mod, dt.place, 404); !errors.Is(err, core.ErrNoSuchDrop) {
			t.Errorf("Distribute(404) = %v, want ErrNoSuchDrop", err)
		}
		if _, err := dt.svc.Distribute(t.Context(), dt.mod, dt.place, 0); !errors.Is(err, core.ErrNoActiveDrop) {
			t.Errorf("Distribute(no id, no drop) = %v, want ErrNoActiveDrop", err)
		}
	})
	t.Run("ErrDropRemoved", func(t *testing.T) {
		dt := newDropTest(t)
		dt.add(t, 5, 0, core.AddDropOptions{})
		if _, err := dt.svc.RemoveDrop(t.Context(), dt.mod, dt.place, eventID); err != nil {
			t.Fatal(err)
		}
		// The store finds no drop of a removed event, as for an unknown one.
		if _, err := dt.svc.Distribute(t.Context(), dt.mod, dt.place, eventID); !errors.Is(err, core.ErrNoSuchDrop) && !errors.Is(err, core.ErrDropRemoved) {
			t.Errorf("Distribute(removed) = %v, want ErrNoSuchDrop or ErrDropRemoved", err)
		}
	})
}

func TestSubjectDrop(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{core.DropSubject(42), 42, true},
		{"drop:0", 0, false},
		{"drop:x", 0, false},
		{"gate:1", 0, false},
	}
	for _, tt := range tests {
		if got, ok := core.SubjectDrop(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("SubjectDrop(%q) = %d, %t, want %d, %t", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
