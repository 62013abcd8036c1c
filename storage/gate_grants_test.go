package storage

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

// mustVerified links a verified wallet of kind with that value and address
// to the user, or fails the test.
func mustVerified(t *testing.T, db *DB, userID int64, kind core.WalletKind, value, address string) {
	t.Helper()
	w := core.Wallet{UserID: userID, Kind: kind, Value: value, Address: address, VerifiedAt: &t0}
	if _, err := db.AddWallet(t.Context(), w); err != nil {
		t.Fatalf("AddWallet(user #%d, %s) = %v", userID, value, err)
	}
}

func TestDB_ClaimGrant(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "grants")
		g := mustAddGate(t, db, newGate(tn.ID, "role"))
		users := mustUsers(t, db, "grant", 2)
		first := core.Grant{
			GateID: g.ID, UserID: users[0].ID, Member: users[0].ExternalID,
			Wallets: []string{addr(1), addr(2)}, Reason: "verify", State: core.GrantActive, GrantedAt: t0,
		}
		if ok, err := db.ClaimGrant(t.Context(), first); err != nil || !ok {
			t.Fatalf("ClaimGrant() = %v, %v, want claimed", ok, err)
		}
		second := first
		second.Reason, second.Wallets, second.GrantedAt = "join", nil, t0.Add(time.Hour)
		if ok, err := db.ClaimGrant(t.Context(), second); err != nil || ok {
			t.Errorf("ClaimGrant(again) = %v, %v, want false, nil", ok, err)
		}
		got, err := db.Grants(t.Context(), g.ID)
		if diff := cmp.Diff([]core.Grant{first}, got); err != nil || diff != "" {
			t.Errorf("Grants() = %v, diff (-want +got):\n%s", err, diff)
		}

		other := core.Grant{GateID: g.ID, UserID: users[1].ID, Member: users[1].ExternalID, Reason: "sync", State: core.GrantActive, GrantedAt: t0.Add(time.Minute)}
		if ok, err := db.ClaimGrant(t.Context(), other); err != nil || !ok {
			t.Fatalf("ClaimGrant(other member) = %v, %v, want claimed", ok, err)
		}
		set := first
		set.State, set.Reason, set.Wallets, set.GrantedAt = core.GrantWithdrawn, "withdrawn by hand", []string{addr(3)}, t0.Add(2*time.Hour)
		if err := db.SetGrant(t.Context(), set); err != nil {
			t.Fatalf("SetGrant() = %v", err)
		}
		got, err = db.Grants(t.Context(), g.ID)
		if diff := cmp.Diff([]core.Grant{other, set}, got); err != nil || diff != "" {
			t.Errorf("Grants(after SetGrant) = %v, diff (-want +got):\n%s", err, diff)
		}

		if ok, err := db.DropGrant(t.Context(), g.ID, users[0].ID); err != nil || !ok {
			t.Errorf("DropGrant() = %v, %v, want true, nil", ok, err)
		}
		if ok, err := db.DropGrant(t.Context(), g.ID, users[0].ID); err != nil || ok {
			t.Errorf("DropGrant(again) = %v, %v, want false, nil", ok, err)
		}
		if err := db.SetGrant(t.Context(), set); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("SetGrant(dropped) = %v, want %v", err, core.ErrNotFound)
		}
		got, err = db.Grants(t.Context(), g.ID)
		if diff := cmp.Diff([]core.Grant{other}, got); err != nil || diff != "" {
			t.Errorf("Grants(after DropGrant) = %v, diff (-want +got):\n%s", err, diff)
		}

		unknown := first
		unknown.UserID = users[1].ID + 1000
		if _, err := db.ClaimGrant(t.Context(), unknown); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("ClaimGrant(unknown user) = %v, want %v", err, core.ErrNotFound)
		}
		unknown = first
		unknown.GateID = g.ID + 1000
		if _, err := db.ClaimGrant(t.Context(), unknown); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("ClaimGrant(unknown gate) = %v, want %v", err, core.ErrNotFound)
		}
		bad := first
		bad.State = ""
		if _, err := db.ClaimGrant(t.Context(), bad); err == nil {
			t.Error("ClaimGrant(no state) = nil error, want an error")
		}
	})
}

// TestDB_ClaimGrant_Race: replicas handling the same event claim the same
// grant at once; one claims it, and of racing drops one drops it.
func TestDB_ClaimGrant_Race(t *testing.T) {
	t.Parallel()
	eachMigrated(t, func(t *testing.T, newURL func() string) {
		dbs := replicas(t, newURL(), 4)
		g := mustAddGate(t, dbs[0], newGate(mustTenant(t, dbs[0], "race").ID, "role"))
		u := mustUpsertUser(t, dbs[0], core.Discord, "racer", "")
		race := func(f func(db *DB) (bool, error)) int32 {
			var wins atomic.Int32
			var wg sync.WaitGroup
			for i := range 20 {
				wg.Go(func() {
					ok, err := f(dbs[i%len(dbs)])
					if err != nil {
						t.Error(err)
					}
					if ok {
						wins.Add(1)
					}
				})
			}
			wg.Wait()
			return wins.Load()
		}
		for round := range 3 {
			claims := race(func(db *DB) (bool, error) {
				return db.ClaimGrant(t.Context(), core.Grant{
					GateID: g.ID, UserID: u.ID, Member: u.ExternalID, Reason: "join", State: core.GrantActive, GrantedAt: t0,
				})
			})
			if claims != 1 {
				t.Errorf("round %d: 20 racing claims: %d claimed, want 1", round, claims)
			}
			drops := race(func(db *DB) (bool, error) { return db.DropGrant(t.Context(), g.ID, u.ID) })
			if drops != 1 {
				t.Errorf("round %d: 20 racing drops: %d dropped, want 1", round, drops)
			}
		}
	})
}

func TestDB_JoinRequests(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "requests")
		users := mustUsers(t, db, "requester", 2)
		g1 := mustAddGate(t, db, newGate(tn.ID, "group-1"))
		g2 := mustAddGate(t, db, newGate(tn.ID, "group-2"))
		mustRequest(t, db, g1.ID, users[1], t0)
		mustRequest(t, db, g1.ID, users[0], t0.Add(time.Minute))
		mustRequest(t, db, g2.ID, users[0], t0.Add(-time.Minute))

		again := core.JoinRequest{GateID: g1.ID, UserID: users[0].ID, Member: users[0].ExternalID, RequestedAt: t0.Add(time.Hour)}
		if ok, err := db.AddJoinRequest(t.Context(), again); err != nil || ok {
			t.Errorf("AddJoinRequest(again) = %v, %v, want false, nil", ok, err)
		}
		req := func(g core.Gate, u core.User, at time.Time) core.JoinRequest {
			return core.JoinRequest{GateID: g.ID, UserID: u.ID, Member: u.ExternalID, RequestedAt: at}
		}
		got, err := db.JoinRequests(t.Context(), g1.ID)
		want := []core.JoinRequest{req(g1, users[1], t0), req(g1, users[0], t0.Add(time.Minute))}
		if diff := cmp.Diff(want, got); err != nil || diff != "" {
			t.Errorf("JoinRequests(g1) = %v, diff (-want +got):\n%s", err, diff)
		}
		got, err = db.UserJoinRequests(t.Context(), users[0].ID)
		want = []core.JoinRequest{req(g2, users[0], t0.Add(-time.Minute)), req(g1, users[0], t0.Add(time.Minute))}
		if diff := cmp.Diff(want, got); err != nil || diff != "" {
			t.Errorf("UserJoinRequests() = %v, diff (-want +got):\n%s", err, diff)
		}

		if ok, err := db.DropJoinRequest(t.Context(), g1.ID, users[0].ID); err != nil || !ok {
			t.Errorf("DropJoinRequest() = %v, %v, want true, nil", ok, err)
		}
		if ok, err := db.DropJoinRequest(t.Context(), g1.ID, users[0].ID); err != nil || ok {
			t.Errorf("DropJoinRequest(again) = %v, %v, want false, nil", ok, err)
		}
		got, err = db.JoinRequests(t.Context(), g1.ID)
		if diff := cmp.Diff([]core.JoinRequest{req(g1, users[1], t0)}, got); err != nil || diff != "" {
			t.Errorf("JoinRequests(after the drop) = %v, diff (-want +got):\n%s", err, diff)
		}
		unknown := req(g1, users[0], t0)
		unknown.GateID += 1000
		if _, err := db.AddJoinRequest(t.Context(), unknown); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("AddJoinRequest(unknown gate) = %v, want %v", err, core.ErrNotFound)
		}
	})
}

// TestDB_ForgetUser_Gates: forgetting a member deletes their grants and
// join requests, and leaves the gates they added without a creator.
func TestDB_ForgetUser_Gates(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "forget-gates")
		users := mustUsers(t, db, "forget-gate", 2)
		in := newGate(tn.ID, "role")
		in.CreatedBy = users[0].ID
		g := mustAddGate(t, db, in)
		for _, u := range users {
			mustClaim(t, db, g.ID, u)
			mustRequest(t, db, g.ID, u, t0)
		}
		if _, err := db.ForgetUser(t.Context(), core.Discord, users[0].ExternalID); err != nil {
			t.Fatal(err)
		}
		grants, err := db.Grants(t.Context(), g.ID)
		if err != nil || len(grants) != 1 || grants[0].UserID != users[1].ID {
			t.Errorf("Grants(after forget) = %+v, %v, want the other member's only", grants, err)
		}
		reqs, err := db.JoinRequests(t.Context(), g.ID)
		if err != nil || len(reqs) != 1 || reqs[0].UserID != users[1].ID {
			t.Errorf("JoinRequests(after forget) = %+v, %v, want the other member's only", reqs, err)
		}
		if got := mustGateByTarget(t, db, g); got.CreatedBy != 0 {
			t.Errorf("GateByTarget(after forget) = created by #%d, want nobody", got.CreatedBy)
		}
	})
}

// TestDB_VerifiedMembers: verified addresses only, of the platform's
// members, each member once.
func TestDB_VerifiedMembers(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		alice := mustUpsertUser(t, db, core.Discord, "alice", "Alice")
		bob := mustUpsertUser(t, db, core.Discord, "bob", "Bob")
		carol := mustUpsertUser(t, db, core.Telegram, "carol", "Carol")
		dave := mustUpsertUser(t, db, core.Discord, "dave", "Dave")
		mustUpsertUser(t, db, core.Discord, "erin", "Erin") // no wallet at all

		mustVerified(t, db, alice.ID, core.KindAddress, addr(2), addr(2))
		mustVerified(t, db, alice.ID, core.KindENS, "alice.eth", addr(1))
		mustAddWallet(t, db, alice.ID, addr(3)) // unverified
		mustAddWallet(t, db, bob.ID, addr(4))   // unverified
		if _, err := db.AddWallet(t.Context(), core.Wallet{UserID: bob.ID, Kind: core.KindEmail, Value: "bob@example.com"}); err != nil {
			t.Fatal(err)
		}
		// An e-mail cannot be verified; should one carry an address, it
		// still does not count.
		mustVerified(t, db, bob.ID, core.KindEmail, "bob2@example.com", addr(7))
		mustVerified(t, db, carol.ID, core.KindAddress, addr(5), addr(5))
		mustVerified(t, db, dave.ID, core.KindAddress, addr(6), addr(6))

		got, err := db.VerifiedMembers(t.Context(), core.Discord)
		want := []core.VerifiedMember{
			{User: alice, Addresses: []string{addr(1), addr(2)}},
			{User: dave, Addresses: []string{addr(6)}},
		}
		if diff := cmp.Diff(want, got); err != nil || diff != "" {
			t.Errorf("VerifiedMembers(discord) = %v, diff (-want +got):\n%s", err, diff)
		}
		got, err = db.VerifiedMembers(t.Context(), core.Telegram)
		if diff := cmp.Diff([]core.VerifiedMember{{User: carol, Addresses: []string{addr(5)}}}, got); err != nil || diff != "" {
			t.Errorf("VerifiedMembers(telegram) = %v, diff (-want +got):\n%s", err, diff)
		}

		// The schema keeps a verified address to one wallet per platform;
		// without that index, a repeated address is still listed once.
		if err := db.gorm.Exec(`DROP INDEX wallets_verified_address`).Error; err != nil {
			t.Fatal(err)
		}
		mustVerified(t, db, dave.ID, core.KindENS, "dave.eth", addr(6))
		got, err = db.VerifiedMembers(t.Context(), core.Discord)
		if diff := cmp.Diff(want, got); err != nil || diff != "" {
			t.Errorf("VerifiedMembers(a repeated address) = %v, diff (-want +got):\n%s", err, diff)
		}
	})
}

// TestDB_VerifiedMembers_Many reads ten thousand members with one query.
func TestDB_VerifiedMembers_Many(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		const n = 10000
		mustManyVerified(t, db, n)
		got, err := db.VerifiedMembers(t.Context(), core.Discord)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Fatalf("VerifiedMembers() = %d members, want %d", len(got), n)
		}
		for i, m := range got {
			want := []string{addr(i + 1)}
			if m.User.ExternalID != "many-"+addr(i+1) || !cmp.Equal(m.Addresses, want) {
				t.Fatalf("VerifiedMembers()[%d] = %s %v, want many-%s %v", i, m.User.ExternalID, m.Addresses, addr(i+1), want)
			}
		}
	})
}

// mustManyVerified stores n Discord members many-<addr(i)>, i from 1 to n,
// each with the verified address addr(i), and every other one with an
// unverified ENS name too. It inserts them set-wise: row by row through
// gorm takes a minute under the race detector.
func mustManyVerified(t *testing.T, db *DB, n int) {
	t.Helper()
	address := "printf('0x%040x', i)"
	if db.Dialect() == DialectPostgres {
		address = "'0x' || lpad(to_hex(i), 40, '0')"
	}
	statements := []string{`
		INSERT INTO users (platform, external_id, name, created_at, updated_at)
		WITH RECURSIVE seq (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
		SELECT 'discord', 'many-' || ` + address + `, '', ?, ? FROM seq`, `
		INSERT INTO wallets (user_id, platform, kind, value, address, verified_at, is_primary, created_at)
		SELECT id, platform, 'address', substr(external_id, 6), substr(external_id, 6), ?, TRUE, ?
		FROM users WHERE external_id LIKE 'many-%'`, `
		INSERT INTO wallets (user_id, platform, kind, value, address, verified_at, is_primary, created_at)
		SELECT id, platform, 'ens', external_id || '.eth', NULL, NULL, FALSE, ?
		FROM users WHERE external_id LIKE 'many-%' AND id % 2 = 0`,
	}
	args := [][]any{{n, t0, t0}, {t0, t0}, {t0}}
	for i, statement := range statements {
		if err := db.gorm.Exec(statement, args[i]...).Error; err != nil {
			t.Fatalf("insert members: %v", err)
		}
	}
}

// TestDB_PlaceVerifiedMembers: the verified members seen in a place, not
// those of the platform's other places; seeing twice changes nothing,
// unseeing removes, and removing the user removes their places.
func TestDB_PlaceVerifiedMembers(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		ctx := t.Context()
		here, there := mustTenant(t, db, "here"), mustTenant(t, db, "there")
		alice := mustUpsertUser(t, db, core.Discord, "alice", "Alice")
		bob := mustUpsertUser(t, db, core.Discord, "bob", "Bob")
		carol := mustUpsertUser(t, db, core.Discord, "carol", "Carol") // unverified
		mustVerified(t, db, alice.ID, core.KindAddress, addr(1), addr(1))
		mustVerified(t, db, bob.ID, core.KindAddress, addr(2), addr(2))
		mustAddWallet(t, db, carol.ID, addr(3))
		for _, s := range []struct{ tenant, user int64 }{{here.ID, alice.ID}, {here.ID, alice.ID}, {here.ID, carol.ID}, {there.ID, bob.ID}} {
			if err := db.SeeMember(ctx, s.tenant, s.user, t0); err != nil {
				t.Fatalf("SeeMember(%d, %d) = %v", s.tenant, s.user, err)
			}
		}
		got, err := db.PlaceVerifiedMembers(ctx, here.ID)
		want := []core.VerifiedMember{{User: alice, Addresses: []string{addr(1)}}}
		if diff := cmp.Diff(want, got); err != nil || diff != "" {
			t.Errorf("PlaceVerifiedMembers(here) = %v, diff (-want +got):\n%s", err, diff)
		}
		if err := db.UnseeMember(ctx, here.ID, alice.ID); err != nil {
			t.Fatal(err)
		}
		if got, err := db.PlaceVerifiedMembers(ctx, here.ID); err != nil || len(got) != 0 {
			t.Errorf("PlaceVerifiedMembers(here) after alice left = %v, %v; want none", got, err)
		}
		if _, err := db.ForgetUser(ctx, core.Discord, "bob"); err != nil {
			t.Fatal(err)
		}
		if got, err := db.PlaceVerifiedMembers(ctx, there.ID); err != nil || len(got) != 0 {
			t.Errorf("PlaceVerifiedMembers(there) after bob was forgotten = %v, %v; want none", got, err)
		}
		if err := db.SeeMember(ctx, here.ID, 999999, t0); err == nil {
			t.Errorf("SeeMember of an unknown user = nil, want an error")
		}
	})
}
