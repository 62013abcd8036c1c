package storage

import (
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
)

// On PostgreSQL, claims that run while a transaction of the test holds a
// link of the drop: the claim's one statement does not see that
// transaction's write, so it has to wait for it, and what it answers
// depends on how the transaction ends.
func TestDB_ClaimMintLink_Blocked(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		if db.dialect != DialectPostgres {
			t.Skip("SQLite runs one writer at a time: no claim runs beside another transaction's write")
		}
		tn := mustTenant(t, db, "blocked")
		users := mustUsers(t, db, "blocked", 2)
		alice, bob := users[0].ID, users[1].ID

		// The member's link, handed out by a transaction that commits
		// while the claim runs: the look-up misses it, the unique index
		// on (drop_id, user_id) refuses another, and it is read back.
		t.Run("SameMember", func(t *testing.T) {
			d := mustAddDrop(t, db, tn.ID, 1401, importedLinks(1401, 3))
			tx, held := handOutInTx(t, db, d.ID, alice, "")
			r := claimBlocked(t, db, tx, tx.Commit, d.ID, alice, "")
			if r.err != nil || !r.again || r.link.ID != held {
				t.Errorf("ClaimMintLink() = link %d, again %v, %v, want link %d again", r.link.ID, r.again, r.err, held)
			}
			if s := mustStock(t, db, d.ID); s.HandedOut != 1 || s.Available != 2 {
				t.Errorf("Stock() = %+v, want 1 handed out, 2 available", s)
			}
		})
		// Another member's link with the wallet: the wallet's unique index
		// refuses the hand-out.
		t.Run("ErrWalletClaimed", func(t *testing.T) {
			d := mustAddDrop(t, db, tn.ID, 1402, importedLinks(1402, 3))
			tx, _ := handOutInTx(t, db, d.ID, alice, addr(3))
			r := claimBlocked(t, db, tx, tx.Commit, d.ID, bob, addr(3))
			if !errors.Is(r.err, core.ErrWalletClaimed) {
				t.Errorf("ClaimMintLink(wallet taken meanwhile) = %+v, %v, want %v", r.link, r.err, core.ErrWalletClaimed)
			}
			if n := count(t, db, "mint_links", "drop_id = ? AND user_id = ?", d.ID, bob); n != 0 {
				t.Errorf("links of the refused member = %d, want 0", n)
			}
		})
		// The drop's only link, locked by a hand-out that rolls back: SKIP
		// LOCKED finds none, and the re-check waits and takes it.
		t.Run("RolledBack", func(t *testing.T) {
			d := mustAddDrop(t, db, tn.ID, 1403, importedLinks(1403, 1))
			tx, held := handOutInTx(t, db, d.ID, alice, "")
			r := claimBlocked(t, db, tx, tx.Rollback, d.ID, bob, "")
			if r.err != nil || r.again || r.link.ID != held || r.link.UserID == nil || *r.link.UserID != bob {
				t.Errorf("ClaimMintLink() = %+v, again %v, %v, want link %d handed out to %d", r.link, r.again, r.err, held, bob)
			}
		})
		// The same, committed: none left.
		t.Run("ErrNoMintLinksLeft", func(t *testing.T) {
			d := mustAddDrop(t, db, tn.ID, 1404, importedLinks(1404, 1))
			tx, _ := handOutInTx(t, db, d.ID, alice, "")
			r := claimBlocked(t, db, tx, tx.Commit, d.ID, bob, "")
			if !errors.Is(r.err, core.ErrNoMintLinksLeft) {
				t.Errorf("ClaimMintLink(last link taken meanwhile) = %+v, %v, want %v", r.link, r.err, core.ErrNoMintLinksLeft)
			}
		})
	})
}

// handOutInTx hands the drop's first available link to the user, with
// wallet if not empty, in a transaction it leaves open (rolled back at
// the end of the test if still open), and returns the transaction and
// the link's id.
func handOutInTx(t *testing.T, db *DB, dropID, userID int64, wallet string) (*sql.Tx, int64) {
	t.Helper()
	tx, err := db.sql.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback() })
	var id int64
	err = tx.QueryRowContext(t.Context(), `
		UPDATE mint_links SET state = 'handed_out', user_id = $1, wallet = $2, claimed_at = now(), updated_at = now()
		WHERE id = (SELECT min(id) FROM mint_links WHERE drop_id = $3 AND state = 'available')
		RETURNING id`, userID, nullString(wallet), dropID).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return tx, id
}

// waitBlockedBy returns once a statement waits for the session pid
// (blocked true), or once none does (false); until then it calls check,
// if not nil, which fails the test if the statement ended too soon.
func waitBlockedBy(t *testing.T, db *DB, pid int, blocked bool, check func()) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var waiting int
		err := db.sql.QueryRowContext(t.Context(),
			`SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))`, pid).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		if (waiting > 0) == blocked {
			return
		}
		if check != nil {
			check()
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s, statements waiting for the open transaction: %d", waiting)
		}
	}
}

// claimBlocked starts a claim, waits until it waits for tx, ends tx with
// end (Commit or Rollback), and returns what the claim answered.
func claimBlocked(t *testing.T, db *DB, tx *sql.Tx, end func() error, dropID, userID int64, wallet string) claimResult {
	t.Helper()
	var pid int
	if err := tx.QueryRowContext(t.Context(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	done := make(chan claimResult, 1)
	go func() {
		var r claimResult
		r.link, r.again, r.err = db.ClaimMintLink(t.Context(), dropID, userID, wallet, time.Now())
		done <- r
	}()
	waitBlockedBy(t, db, pid, true, func() {
		select {
		case r := <-done:
			t.Fatalf("ClaimMintLink() = %+v, %v without waiting for the open transaction", r.link, r.err)
		default:
		}
	})
	if err := end(); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("the claim did not end once the transaction ended")
	}
	return claimResult{}
}
