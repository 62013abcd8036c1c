package storage

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

// claimResult is what one ClaimMintLink call answered.
type claimResult struct {
	link  core.MintLink
	again bool
	err   error
}

// claimAll has every user claim a link of the drop, from workers
// goroutines that take users from a channel, all released at once. The
// results are in the order of users.
func claimAll(t *testing.T, db *DB, dropID int64, users []core.User, workers int) []claimResult {
	t.Helper()
	next := make(chan int, len(users))
	for i := range users {
		next <- i
	}
	close(next)
	results := make([]claimResult, len(users))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			<-start
			for i := range next {
				r := &results[i]
				r.link, r.again, r.err = db.ClaimMintLink(t.Context(), dropID, users[i].ID, "", time.Now())
			}
		})
	}
	close(start)
	wg.Wait()
	return results
}

// holders reads from the database which user holds which link of the
// drop.
func holders(t *testing.T, db *DB, dropID int64) map[int64]int64 {
	t.Helper()
	var rows []mintLinkRow
	if err := db.gorm.Where("drop_id = ? AND user_id IS NOT NULL", dropID).Find(&rows).Error; err != nil {
		t.Fatal(err)
	}
	byLink := make(map[int64]int64, len(rows))
	for _, r := range rows {
		byLink[r.ID] = *r.UserID
	}
	return byLink
}

// The acceptance test of the claim: 1,000 members claim one drop of 800
// links from 64 goroutines at once.
func TestDB_ClaimMintLink_Concurrent(t *testing.T) {
	t.Parallel()
	const members, links, workers = 1000, 800, 64
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "rush")
		users := mustUsers(t, db, "rush", members)
		d := mustAddDrop(t, db, tn.ID, 1001, importedLinks(1001, links))

		first := claimAll(t, db, d.ID, users, workers)
		linkOf := make(map[int64]int64) // user -> link, from the answers
		userOf := make(map[int64]int64) // link -> user, from the answers
		none := 0
		for i, r := range first {
			u := users[i]
			switch {
			case errors.Is(r.err, core.ErrNoMintLinksLeft):
				none++
			case r.err != nil:
				t.Errorf("ClaimMintLink(user %d) = %v", u.ID, r.err)
			case r.again || r.link.State != core.MintLinkHandedOut || r.link.UserID == nil || *r.link.UserID != u.ID:
				t.Errorf("ClaimMintLink(user %d) = %+v, again %v, want a new link handed out to the user", u.ID, r.link, r.again)
			default:
				if prev, ok := userOf[r.link.ID]; ok {
					t.Errorf("link %d handed to users %d and %d", r.link.ID, prev, u.ID)
				}
				userOf[r.link.ID] = u.ID
				linkOf[u.ID] = r.link.ID
			}
		}
		if len(userOf) != links || len(linkOf) != links || none != members-links {
			t.Errorf("%d distinct links to %d users and %d ErrNoMintLinksLeft, want %d, %d and %d",
				len(userOf), len(linkOf), none, links, links, members-links)
		}

		// The database agrees with the answers; its unique index allows
		// one link per user, and a link has one user_id column.
		if diff := cmp.Diff(userOf, holders(t, db, d.ID)); diff != "" {
			t.Errorf("holders in the database differ from the answers (-answers +db):\n%s", diff)
		}
		if s := mustStock(t, db, d.ID); s != (core.Stock{Total: links, HandedOut: links}) {
			t.Errorf("Stock() = %+v, want all %d handed out", s, links)
		}

		// Everyone claims again: the same link, or none left again.
		for i, r := range claimAll(t, db, d.ID, users, workers) {
			u := users[i]
			want, holds := linkOf[u.ID]
			switch {
			case holds && (r.err != nil || !r.again || r.link.ID != want):
				t.Errorf("ClaimMintLink(user %d again) = %d, again %v, %v, want link %d again", u.ID, r.link.ID, r.again, r.err, want)
			case !holds && !errors.Is(r.err, core.ErrNoMintLinksLeft):
				t.Errorf("ClaimMintLink(user %d again) = %+v, %v, want %v", u.ID, r.link, r.err, core.ErrNoMintLinksLeft)
			}
		}
	})
}

func TestDB_ClaimMintLink(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "claim")
		users := mustUsers(t, db, "claim", 4)
		t.Run("OK", func(t *testing.T) {
			d := mustAddDrop(t, db, tn.ID, 1101, importedLinks(1101, 2))
			at := time.Date(2026, 3, 4, 5, 6, 7, 891011121, time.UTC)
			got, again, err := db.ClaimMintLink(t.Context(), d.ID, users[0].ID, "", at)
			claimedAt := dbTime(at)
			want := core.MintLink{ID: got.ID, DropID: d.ID, QRHash: "e1101-0", State: core.MintLinkHandedOut,
				UserID: &users[0].ID, ClaimedAt: &claimedAt, UpdatedAt: claimedAt}
			if diff := cmp.Diff(want, got); err != nil || again || diff != "" {
				t.Fatalf("ClaimMintLink() = again %v, %v, mismatch (-want +got):\n%s", again, err, diff)
			}
			later, again, err := db.ClaimMintLink(t.Context(), d.ID, users[0].ID, addr(9), at.Add(time.Hour))
			if diff := cmp.Diff(want, later); err != nil || !again || diff != "" {
				t.Errorf("ClaimMintLink(again) = again %v, %v, mismatch (-want +got):\n%s", again, err, diff)
			}
		})
		t.Run("ErrNoMintLinksLeft", func(t *testing.T) {
			d := mustAddDrop(t, db, tn.ID, 1102, []core.ImportedMintLink{{QRHash: "used", Claimed: true}})
			if _, _, err := db.ClaimMintLink(t.Context(), d.ID, users[0].ID, "", time.Now()); !errors.Is(err, core.ErrNoMintLinksLeft) {
				t.Errorf("ClaimMintLink(no link available) = %v, want %v", err, core.ErrNoMintLinksLeft)
			}
		})
		t.Run("ErrNotFound", func(t *testing.T) {
			if _, _, err := db.ClaimMintLink(t.Context(), 999999, users[0].ID, "", time.Now()); !errors.Is(err, core.ErrNotFound) {
				t.Errorf("ClaimMintLink(unknown drop) = %v, want %v", err, core.ErrNotFound)
			}
		})
		t.Run("UnknownUser", func(t *testing.T) {
			d := mustAddDrop(t, db, tn.ID, 1103, importedLinks(1103, 1))
			if _, _, err := db.ClaimMintLink(t.Context(), d.ID, 999999, "", time.Now()); !errors.Is(err, core.ErrConflict) {
				t.Errorf("ClaimMintLink(unknown user) = %v, want %v", err, core.ErrConflict)
			}
			if s := mustStock(t, db, d.ID); s.Available != 1 {
				t.Errorf("Stock(after a failed claim) = %+v, want the link available", s)
			}
		})
		t.Run("ErrWalletClaimed", func(t *testing.T) {
			d := mustAddDrop(t, db, tn.ID, 1104, importedLinks(1104, 3))
			l, _, err := db.ClaimMintLink(t.Context(), d.ID, users[0].ID, addr(1), time.Now())
			if err != nil || l.Wallet != addr(1) {
				t.Fatalf("ClaimMintLink(wallet) = %+v, %v, want the wallet recorded", l, err)
			}
			for _, w := range []string{addr(1), strings.ToUpper(addr(1))} {
				if _, _, err := db.ClaimMintLink(t.Context(), d.ID, users[1].ID, w, time.Now()); !errors.Is(err, core.ErrWalletClaimed) {
					t.Errorf("ClaimMintLink(another member, wallet %s) = %v, want %v", w, err, core.ErrWalletClaimed)
				}
			}
			if n := count(t, db, "mint_links", "drop_id = ? AND user_id = ?", d.ID, users[1].ID); n != 0 {
				t.Errorf("links of the refused member = %d, want 0", n)
			}
			if _, _, err := db.ClaimMintLink(t.Context(), d.ID, users[1].ID, addr(2), time.Now()); err != nil {
				t.Errorf("ClaimMintLink(another wallet) = %v", err)
			}
			if _, _, err := db.ClaimMintLink(t.Context(), d.ID, users[2].ID, "", time.Now()); err != nil {
				t.Errorf("ClaimMintLink(no wallet) = %v", err)
			}
		})
	})
}

// A member racing himself gets one link, the same for every call.
func TestDB_ClaimMintLink_SameUserRace(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "self-race")
		u := mustUpsertUser(t, db, core.Discord, "impatient", "")
		d := mustAddDrop(t, db, tn.ID, 1201, importedLinks(1201, 100))
		const n = 50
		check := func(t *testing.T, results []claimResult) {
			t.Helper()
			fresh := 0
			for _, r := range results {
				if r.err != nil || r.link.ID != results[0].link.ID {
					t.Errorf("claim = link %d, %v, want link %d", r.link.ID, r.err, results[0].link.ID)
				}
				if !r.again {
					fresh++
				}
			}
			if fresh != 1 {
				t.Errorf("%d calls answered a new link, want 1", fresh)
			}
			want := core.Stock{Total: 100, Available: 99, HandedOut: 1}
			if s := mustStock(t, db, d.ID); s != want {
				t.Errorf("Stock() = %+v, want %+v", s, want)
			}
		}
		t.Run("ClaimMintLink", func(t *testing.T) {
			results := make([]claimResult, n)
			race(n, func(i int) error {
				r := &results[i]
				r.link, r.again, r.err = db.ClaimMintLink(t.Context(), d.ID, u.ID, addr(1), time.Now())
				return nil
			})
			check(t, results)
		})
		// Past the look-up of the user's link, as when every call misses
		// it, the unique index alone keeps one link per member. On
		// PostgreSQL the look-up is part of the claim's one statement:
		// TestDB_ClaimMintLink_Blocked makes it miss.
		t.Run("Take", func(t *testing.T) {
			if db.dialect != DialectSQLite {
				t.Skip("the look-up is a statement of its own on SQLite only")
			}
			if _, err := db.sql.ExecContext(t.Context(), `
				UPDATE mint_links SET state = 'available', user_id = NULL, wallet = NULL, claimed_at = NULL`); err != nil {
				t.Fatal(err)
			}
			results := make([]claimResult, n)
			race(n, func(i int) error {
				r := &results[i]
				var row mintLinkRow
				row, r.again, r.err = db.take(t.Context(), d.ID, u.ID, addr(1), dbTime(time.Now()))
				r.link = row.mintLink()
				return nil
			})
			check(t, results)
		})
	})
}

// Members racing for one wallet: one gets the link, the others are told
// the wallet has the drop.
func TestDB_ClaimMintLink_WalletRace(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "wallet-race")
		const n = 20
		users := mustUsers(t, db, "wallet-race", n)
		d := mustAddDrop(t, db, tn.ID, 1301, importedLinks(1301, n))
		errs := race(n, func(i int) error {
			_, _, err := db.ClaimMintLink(t.Context(), d.ID, users[i].ID, addr(7), time.Now())
			return err
		})
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, core.ErrWalletClaimed):
				t.Errorf("ClaimMintLink(same wallet) = %v, want nil or %v", err, core.ErrWalletClaimed)
			}
		}
		if won != 1 {
			t.Errorf("%d members got a link for one wallet, want 1", won)
		}
		if s := mustStock(t, db, d.ID); s.HandedOut != 1 || s.Available != n-1 {
			t.Errorf("Stock() = %+v, want 1 handed out, %d available", s, n-1)
		}
	})
}
