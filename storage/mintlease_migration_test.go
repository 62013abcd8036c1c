package storage

import (
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
)

// TestMigrate_MintLeases upgrades a database with a link left minting by
// the program before leases: it is attempt 1 with no lease, listed once
// MintLease has passed since it began, and settled by the reconciler.
func TestMigrate_MintLeases(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, newURL func() string) {
		databaseURL := newURL()
		old := openAt(t, databaseURL, 13)
		began := time.Now().UTC().Truncate(time.Second).Add(-time.Hour)
		exec := func(query string, args ...any) {
			t.Helper()
			if err := old.gorm.Exec(query, args...).Error; err != nil {
				t.Fatalf("%s: %v", query, err)
			}
		}
		exec(`INSERT INTO tenants (platform, external_id, name, created_at) VALUES ('discord', 'g1', '', ?)`, began)
		exec(`INSERT INTO users (platform, external_id, name, created_at, updated_at) VALUES ('discord', 'u1', '', ?, ?)`, began, began)
		exec(`INSERT INTO drops (tenant_id, event_id, edit_code, delivery, created_at)
			SELECT id, 42, ?, 'mint', ? FROM tenants`, []byte{1}, began)
		exec(`INSERT INTO mint_links (drop_id, qr_hash, state, user_id, wallet, claimed_at, updated_at)
			SELECT drops.id, 'abc123', 'minting', users.id, '0x29c76e6ad8f28bb1004902578fb108c507be341b', ?, ?
			FROM drops, users`, began, began)
		old.Close()

		db := openTest(t, databaseURL)
		pending, err := db.PendingMints(t.Context(), began.Add(core.MintLease))
		if err != nil || len(pending) != 1 || pending[0].Attempt != 1 {
			t.Fatalf("PendingMints() after the upgrade = %+v, %v, want the link, attempt 1", pending, err)
		}
		changed, err := db.SettleMint(t.Context(), pending[0].ID, pending[0].Attempt, core.MintLinkMinted, began.Add(core.MintLease))
		if err != nil || !changed {
			t.Errorf("SettleMint(minted) of the link left minting = %v, %v, want changed", changed, err)
		}
	})
}
