package storage

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/core"
)

func TestDB_DropTenants(t *testing.T) {
	t.Parallel()
	eachMigrated(t, func(t *testing.T, newURL func() string) {
		db := openTest(t, newURL())
		var groups []core.Place
		for _, id := range []string{"-1001", "-1002", "-1003"} {
			tn, err := db.UpsertPlace(t.Context(), core.Place{Platform: core.Telegram, ExternalID: id, Name: "group " + id})
			if err != nil {
				t.Fatalf("UpsertTenant(%s) = %v", id, err)
			}
			groups = append(groups, tn)
			mustAddDrop(t, db, tn.ID, 700, nil)
		}
		guild := mustTenant(t, db, "guild")
		mustAddDrop(t, db, guild.ID, 700, nil)
		mustAddDrop(t, db, groups[0].ID, 701, nil)
		removed, err := db.DropByEvent(t.Context(), groups[1].ID, 700)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.RemoveDrop(t.Context(), removed.ID, time.Now()); err != nil {
			t.Fatal(err)
		}

		t.Run("OK", func(t *testing.T) {
			got, err := db.DropPlaces(t.Context(), core.Telegram, 700)
			if err != nil {
				t.Fatalf("DropTenants() = %v", err)
			}
			want := []core.Place{groups[0], groups[2]}
			if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
				t.Errorf("DropTenants(telegram, 700) mismatch (-want +got):\n%s", diff)
			}
		})
		t.Run("None", func(t *testing.T) {
			got, err := db.DropPlaces(t.Context(), core.Telegram, 999)
			if err != nil || len(got) != 0 {
				t.Errorf("DropTenants(telegram, 999) = %+v, %v; want none", got, err)
			}
		})
	})
}
