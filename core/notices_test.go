package core_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

func TestDropService_LowStockNotices(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		dt := newDropTest(t)
		dt.add(t, 4, 0, core.AddDropOptions{LowStock: 3})
		refs := []core.PostRef{
			{Platform: core.Console, Place: "guild", Channel: "c1", Message: "m1"},
			{Platform: core.Console, Place: "guild", Channel: "c1", Message: "m2"},
			{Platform: core.Console, Place: "guild", Channel: "c2", Message: "m3"},
		}
		for _, ref := range refs {
			if err := dt.svc.RecordPost(t.Context(), ref, eventID, ""); err != nil {
				t.Fatalf("RecordPost(%+v) = %v", ref, err)
			}
		}
		if _, err := dt.claim(t, dt.member(t, "a", ""), core.ClaimOptions{}); err != nil {
			t.Fatal(err)
		}
		if got, err := dt.svc.LowStockNotices(t.Context()); err != nil || len(got) != 0 {
			t.Errorf("LowStockNotices(3 left, threshold 3) = %+v, %v; want none", got, err)
		}
		if _, err := dt.claim(t, dt.member(t, "b", ""), core.ClaimOptions{}); err != nil {
			t.Fatal(err)
		}
		got, err := dt.svc.LowStockNotices(t.Context())
		if err != nil {
			t.Fatalf("LowStockNotices() = %v", err)
		}
		var where []core.PostRef
		for _, n := range got {
			where = append(where, n.Ref)
			if n.Drop.EventID != eventID || n.Stock.Available != 2 {
				t.Errorf("notice = event %d, %d available; want event %d, 2", n.Drop.EventID, n.Stock.Available, eventID)
			}
		}
		// One notice per channel: m2 shares m1's.
		if diff := cmp.Diff([]core.PostRef{refs[0], refs[2]}, where); diff != "" {
			t.Errorf("LowStockNotices() places (-want +got):\n%s", diff)
		}
		if got, err := dt.svc.LowStockNotices(t.Context()); err != nil || len(got) != 0 {
			t.Errorf("LowStockNotices(again) = %+v, %v; want none", got, err)
		}
	})
}
