package storage

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/poapbot/poapbot/core"
)

// mustUpsertUser creates a user of the platform or fails the test.
func mustUpsertUser(t *testing.T, db *DB, p core.Platform, externalID, name string) core.User {
	t.Helper()
	u, err := db.UpsertUser(t.Context(), core.User{Platform: p, ExternalID: externalID, Name: name})
	if err != nil {
		t.Fatalf("UpsertUser(%s %s) = %v", p, externalID, err)
	}
	return u
}

func TestDB_UpsertUser(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		t.Run("Create", func(t *testing.T) {
			at := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.FixedZone("CET", 3600))
			in := core.User{Platform: core.Discord, ExternalID: "create", Name: "Alice", CreatedAt: at}
			got, err := db.UpsertUser(t.Context(), in)
			want := core.User{Platform: core.Discord, ExternalID: "create", Name: "Alice",
				CreatedAt: time.Date(2026, 1, 2, 2, 4, 5, 123456000, time.UTC)}
			if err != nil || got.ID == 0 || !cmp.Equal(got, want, cmpopts.IgnoreFields(core.User{}, "ID")) {
				t.Errorf("UpsertUser(%+v) = %+v, %v, want %+v", in, got, err, want)
			}
		})
		t.Run("RefreshesName", func(t *testing.T) {
			first := mustUpsertUser(t, db, core.Discord, "refresh", "old")
			got := mustUpsertUser(t, db, core.Discord, "refresh", "new")
			want := first
			want.Name = "new"
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("UpsertUser(new name) mismatch (-want +got):\n%s", diff)
			}
		})
		t.Run("EmptyNameKeepsName", func(t *testing.T) {
			first := mustUpsertUser(t, db, core.Telegram, "keep", "kept")
			got := mustUpsertUser(t, db, core.Telegram, "keep", "")
			if diff := cmp.Diff(first, got); diff != "" {
				t.Errorf("UpsertUser(empty name) mismatch (-want +got):\n%s", diff)
			}
		})
		t.Run("SameIDOtherPlatform", func(t *testing.T) {
			d := mustUpsertUser(t, db, core.Discord, "42", "d")
			tg := mustUpsertUser(t, db, core.Telegram, "42", "t")
			if d.ID == tg.ID {
				t.Errorf("UpsertUser(discord 42).ID = UpsertUser(telegram 42).ID = %d, want different users", d.ID)
			}
		})
		t.Run("UnknownPlatform", func(t *testing.T) {
			in := core.User{Platform: "irc", ExternalID: "1"}
			if _, err := db.UpsertUser(t.Context(), in); err == nil {
				t.Errorf("UpsertUser(%+v) = nil error, want one", in)
			}
		})
		t.Run("Concurrent", func(t *testing.T) {
			const n = 30
			ids := make([]int64, n)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					<-start
					u, err := db.UpsertUser(t.Context(), core.User{Platform: core.Discord, ExternalID: "storm", Name: fmt.Sprint("n", i)})
					if err != nil {
						t.Errorf("UpsertUser #%d = %v", i, err)
					}
					ids[i] = u.ID
				})
			}
			close(start)
			wg.Wait()
			var rows int64
			if err := db.gorm.Model(&userRow{}).Where("external_id = ?", "storm").Count(&rows).Error; err != nil || rows != 1 {
				t.Errorf("rows for the user = %d, %v, want 1", rows, err)
			}
			for i, id := range ids {
				if id != ids[0] {
					t.Errorf("UpsertUser #%d returned id %d, #0 returned %d, want the same user", i, id, ids[0])
				}
			}
		})
	})
}

func TestDB_UpsertTenant(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		first, err := db.UpsertPlace(t.Context(), core.Place{Platform: core.Telegram, ExternalID: "-100", Name: "Group"})
		if err != nil || first.ID == 0 || first.CreatedAt.IsZero() {
			t.Fatalf("UpsertTenant() = %+v, %v, want a stored tenant", first, err)
		}
		got, err := db.UpsertPlace(t.Context(), core.Place{Platform: core.Telegram, ExternalID: "-100", Name: "Renamed"})
		want := first
		want.Name = "Renamed"
		if err != nil || !cmp.Equal(got, want) {
			t.Errorf("UpsertTenant(renamed) = %+v, %v, want %+v", got, err, want)
		}
	})
}

func TestDB_FindUser(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		t.Run("OK", func(t *testing.T) {
			want := mustUpsertUser(t, db, core.Discord, "find", "Finder")
			got, err := db.FindUser(t.Context(), core.Discord, "find")
			if err != nil || !cmp.Equal(got, want) {
				t.Errorf("FindUser(discord, find) = %+v, %v, want %+v", got, err, want)
			}
		})
		t.Run("ErrNotFound", func(t *testing.T) {
			mustUpsertUser(t, db, core.Discord, "elsewhere", "")
			_, err := db.FindUser(t.Context(), core.Telegram, "elsewhere")
			if !errors.Is(err, core.ErrNotFound) {
				t.Errorf("FindUser(telegram, elsewhere) = %v, want %v", err, core.ErrNotFound)
			}
		})
	})
}

func TestDB_UserByID(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		t.Run("OK", func(t *testing.T) {
			want := mustUpsertUser(t, db, core.Telegram, "byid", "By Id")
			mustUpsertUser(t, db, core.Telegram, "other", "Other")
			got, err := db.UserByID(t.Context(), want.ID)
			if err != nil || !cmp.Equal(got, want) {
				t.Errorf("UserByID(%d) = %+v, %v, want %+v", want.ID, got, err, want)
			}
		})
		t.Run("ErrNotFound", func(t *testing.T) {
			_, err := db.UserByID(t.Context(), 1<<40)
			if !errors.Is(err, core.ErrNotFound) {
				t.Errorf("UserByID(unknown) = %v, want %v", err, core.ErrNotFound)
			}
		})
	})
}

func TestDB_FindUserByName(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		alice := mustUpsertUser(t, db, core.Discord, "1", "Alice")
		mustUpsertUser(t, db, core.Telegram, "2", "Bob")
		t.Run("IgnoresCase", func(t *testing.T) {
			got, err := db.FindUserByName(t.Context(), core.Discord, "aLICE")
			if err != nil || !cmp.Equal(got, alice) {
				t.Errorf("FindUserByName(discord, aLICE) = %+v, %v, want %+v", got, err, alice)
			}
		})
		t.Run("MostRecentWins", func(t *testing.T) {
			mustUpsertUser(t, db, core.Console, "old", "Twin")
			recent := mustUpsertUser(t, db, core.Console, "recent", "twin")
			got, err := db.FindUserByName(t.Context(), core.Console, "TWIN")
			if err != nil || !cmp.Equal(got, recent) {
				t.Errorf("FindUserByName(console, TWIN) = %+v, %v, want %+v", got, err, recent)
			}
		})
		for _, name := range []string{"Bob", "Carol", ""} {
			t.Run("ErrNotFound/"+name, func(t *testing.T) {
				_, err := db.FindUserByName(t.Context(), core.Discord, name)
				if !errors.Is(err, core.ErrNotFound) {
					t.Errorf("FindUserByName(discord, %q) = %v, want %v", name, err, core.ErrNotFound)
				}
			})
		}
	})
}

func TestDB_Audit(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tenant, err := db.UpsertPlace(t.Context(), core.Place{Platform: core.Discord, ExternalID: "g1"})
		if err != nil {
			t.Fatal(err)
		}
		user := mustUpsertUser(t, db, core.Discord, "u1", "")
		t.Run("OK", func(t *testing.T) {
			in := core.AuditEntry{PlaceID: &tenant.ID, UserID: &user.ID, Action: "link", Detail: "0xabc"}
			if err := db.Audit(t.Context(), in); err != nil {
				t.Fatalf("Audit(%+v) = %v", in, err)
			}
			var got auditRow
			if err := db.gorm.Where("action = ?", "link").Take(&got).Error; err != nil {
				t.Fatal(err)
			}
			if *got.TenantID != tenant.ID || *got.UserID != user.ID || got.Detail != "0xabc" || got.CreatedAt.IsZero() {
				t.Errorf("stored audit row = %+v, want tenant %d, user %d, detail 0xabc, a time", got, tenant.ID, user.ID)
			}
		})
		t.Run("UnknownTenant", func(t *testing.T) {
			missing := tenant.ID + 1000
			err := db.Audit(t.Context(), core.AuditEntry{PlaceID: &missing, Action: "x"})
			if !errors.Is(err, core.ErrConflict) {
				t.Errorf("Audit(unknown tenant) = %v, want %v", err, core.ErrConflict)
			}
		})
		t.Run("OutlivesUser", func(t *testing.T) {
			gone := mustUpsertUser(t, db, core.Discord, "gone", "")
			if err := db.Audit(t.Context(), core.AuditEntry{UserID: &gone.ID, Action: "forget"}); err != nil {
				t.Fatal(err)
			}
			if err := db.gorm.Exec("DELETE FROM users WHERE id = ?", gone.ID).Error; err != nil {
				t.Fatal(err)
			}
			var got auditRow
			if err := db.gorm.Where("action = ?", "forget").Take(&got).Error; err != nil || got.UserID != nil {
				t.Errorf("audit row after the user was deleted = %+v, %v, want user_id NULL", got, err)
			}
		})
	})
}
