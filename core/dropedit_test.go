package core_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
)

func TestDropService_EditDrop(t *testing.T) {
	t.Parallel()
	starts, ends := t0.Add(time.Hour), t0.Add(48*time.Hour)
	past, early := t0.Add(-time.Hour), t0.Add(30*time.Minute)
	refusals := []struct {
		name string
		edit core.DropEdit
		want error
	}{
		{"ErrInvalidWindow/StartsAfterEnds", core.DropEdit{Starts: core.Change[*time.Time]{Set: true, To: &ends}}, core.ErrInvalidWindow},
		{"ErrInvalidWindow/EndsBeforeStarts", core.DropEdit{Ends: core.Change[*time.Time]{Set: true, To: &early}}, core.ErrInvalidWindow},
		{"ErrInvalidWindow/EndsInThePast", core.DropEdit{Starts: core.Change[*time.Time]{Set: true}, Ends: core.Change[*time.Time]{Set: true, To: &past}}, core.ErrInvalidWindow},
		{"ErrInvalidClaimMethod", core.DropEdit{Method: core.Change[core.ClaimMethod]{Set: true, To: "post"}}, core.ErrInvalidClaimMethod},
		{"ErrNoWebsite", core.DropEdit{Method: core.Change[core.ClaimMethod]{Set: true, To: core.ClaimWebsite}}, core.ErrNoWebsite},
		{"ErrInvalidWebsiteName", core.DropEdit{Method: core.Change[core.ClaimMethod]{Set: true, To: core.ClaimWebsite}, Website: "a/b"}, core.ErrInvalidWebsiteName},
		{"ErrNoSuchDrop", core.DropEdit{EventID: 999, Codeword: core.Change[string]{Set: true}}, core.ErrNoSuchDrop},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			dt := newDropTest(t)
			added := dt.add(t, 3, 0, core.AddDropOptions{Starts: &starts, Ends: &ends, Codeword: "moon"})
			if tt.edit.EventID == 0 {
				tt.edit.EventID = eventID
			}
			_, err := dt.svc.EditDrop(t.Context(), dt.mod, dt.place, tt.edit)
			var de *core.DropError
			if !errors.Is(err, tt.want) || !errors.As(err, &de) || de.Drop.EventID != tt.edit.EventID {
				t.Errorf("EditDrop() = %v, want a *DropError of %d with %v", err, tt.edit.EventID, tt.want)
			}
			if got, _ := dt.svc.DropInfo(t.Context(), dt.place, eventID); got.Drop.Codeword != "moon" || !got.Drop.Ends.Equal(*added.Drop.Ends) || !got.Drop.Starts.Equal(starts) {
				t.Errorf("after a refusal the drop is %+v, want it unchanged", got.Drop)
			}
		})
	}
	t.Run("OK", func(t *testing.T) {
		dt := newDropTest(t)
		dt.add(t, 3, 0, core.AddDropOptions{Starts: &starts, Ends: &ends, Codeword: "moon"})
		later := ends.Add(time.Hour)
		c, err := dt.svc.EditDrop(t.Context(), dt.mod, dt.place, core.DropEdit{
			EventID: eventID, Ends: core.Change[*time.Time]{Set: true, To: &later}, Codeword: core.Change[string]{Set: true, To: " "},
			LowStock: core.Change[int]{Set: true, To: -1}, Method: core.Change[core.ClaimMethod]{Set: true, To: core.ClaimAuto},
		})
		if err != nil {
			t.Fatalf("EditDrop() = %v", err)
		}
		if got, want := c.Changed(), []string{"ends", "codeword", "low_stock"}; !slices.Equal(got, want) {
			t.Errorf("Changed() = %v, want %v", got, want)
		}
		if !c.After.Ends.Equal(later) || c.After.Codeword != "" || c.After.LowStock != 0 || c.Before.Codeword != "moon" {
			t.Errorf("EditDrop() = %+v, want ends later, no codeword, no low-stock notice", c)
		}
		if log := dt.store.AuditLog(); log[len(log)-1].Action != core.AuditDropEdited {
			t.Errorf("audit log = %+v, want the edit last", log)
		}
		same, err := dt.svc.EditDrop(t.Context(), dt.mod, dt.place, core.DropEdit{EventID: eventID, Codeword: core.Change[string]{Set: true}})
		if err != nil || len(same.Changed()) != 0 {
			t.Errorf("EditDrop(same) = %v, %v, want nothing changed", same.Changed(), err)
		}
	})
}
