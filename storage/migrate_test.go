package storage

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestLoadMigrations(t *testing.T) {
	t.Parallel()
	file := func(body string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(body)} }
	got, err := loadMigrations(fstest.MapFS{
		"d/0002_more.sql": file("B"),
		"d/0001_init.sql": file("A"),
		"d/0010_x.sql":    nil,
	}, "d")
	if err == nil {
		t.Errorf("loadMigrations(gap from 2 to 10) = %v, want an error", got)
	}
	got, err = loadMigrations(fstest.MapFS{"d/0002_more.sql": file("B"), "d/0001_init.sql": file("A")}, "d")
	want := []migration{{1, "init", "A"}, {2, "more", "B"}}
	if err != nil || !cmp.Equal(got, want, cmp.AllowUnexported(migration{})) {
		t.Errorf("loadMigrations() = %+v, %v, want %+v", got, err, want)
	}
	for _, bad := range []string{"init.sql", "0000_zero.sql", "0001.sql", "x1_a.sql"} {
		if got, err := loadMigrations(fstest.MapFS{"d/" + bad: file("A")}, "d"); err == nil {
			t.Errorf("loadMigrations(%s) = %+v, want an error", bad, got)
		}
	}
	if got, err := loadMigrations(fstest.MapFS{"d/0001_a.sql": file("A"), "d/01_b.sql": file("B")}, "d"); err == nil {
		t.Errorf("loadMigrations(two version 1) = %+v, want an error", got)
	}
}

// TestSchema_Checks checks that the database itself refuses rows the
// application never writes, on both dialects.
func TestSchema_Checks(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		u := mustUpsertUser(t, db, "discord", "checks", "")
		insertWallet := `INSERT INTO wallets (user_id, platform, kind, value, address, verified_at, is_primary, created_at)
			VALUES (?, 'discord', ?, ?, ?, ?, FALSE, CURRENT_TIMESTAMP)`
		at := now()
		tests := []struct {
			name string
			sql  string
			args []any
		}{
			{"unknown platform", "INSERT INTO users (platform, external_id, created_at, updated_at) VALUES ('irc', '1', ?, ?)", []any{at, at}},
			{"empty external id", "INSERT INTO tenants (platform, external_id, created_at) VALUES ('discord', '', ?)", []any{at}},
			{"unknown kind", insertWallet, []any{u.ID, "iban", "x", nil, nil}},
			{"verified without address", insertWallet, []any{u.ID, "ens", "a.eth", nil, at}},
			{"address without verification", insertWallet, []any{u.ID, "ens", "b.eth", addr(1), nil}},
			{"address in upper case", insertWallet, []any{u.ID, "address", "c", "0x" + strings.Repeat("AB", 20), at}},
			{"address too short", insertWallet, []any{u.ID, "address", "d", "0xab", at}},
			{"empty audit action", "INSERT INTO audit_log (action, created_at) VALUES ('', ?)", []any{at}},
		}
		for _, tt := range tests {
			if err := db.gorm.Exec(tt.sql, tt.args...).Error; err == nil {
				t.Errorf("insert with %s = nil error, want a constraint violation", tt.name)
			}
		}
		if err := db.gorm.Exec(insertWallet, u.ID, "address", addr(1), addr(1), at).Error; err != nil {
			t.Errorf("insert of a valid verified wallet = %v, want nil", err)
		}
	})
}
