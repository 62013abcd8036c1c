package storage

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
)

func TestDB_SetDropWebsite(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "website")
		d := mustAddDrop(t, db, tn.ID, 1501, nil)
		at := time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)
		if err := db.SetDropWebsite(t.Context(), d.ID, "  my-event  ", &at); err != nil {
			t.Fatalf("SetDropWebsite() = %v", err)
		}
		got, err := db.DropByID(t.Context(), d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Method != core.ClaimWebsite || got.Website != "my-event" || got.WebsiteRequestedAt == nil || !got.WebsiteRequestedAt.Equal(at) {
			t.Errorf("drop = %s, %q, %v, want website my-event requested at %v", got.Method, got.Website, got.WebsiteRequestedAt, at)
		}
		if err := db.SetDropWebsite(t.Context(), d.ID, " ", nil); err == nil {
			t.Error("SetDropWebsite(empty) = nil, want an error")
		}
		if err := db.SetDropWebsite(t.Context(), 999999, "x", nil); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("SetDropWebsite(unknown drop) = %v, want %v", err, core.ErrNotFound)
		}
		// A drop added in website mode keeps its links' delivery apart.
		w := newDrop(tn.ID, 1502)
		w.Method, w.Website = core.ClaimWebsite, "other"
		added, _, err := db.AddDrop(t.Context(), w, nil)
		if err != nil || added.Method != core.ClaimWebsite || added.Website != "other" {
			t.Fatalf("AddDrop(website) = %s %q, %v", added.Method, added.Website, err)
		}
		w2 := newDrop(tn.ID, 1503)
		w2.Method = core.ClaimWebsite
		if _, _, err := db.AddDrop(t.Context(), w2, nil); err == nil {
			t.Error("AddDrop(website without a name) = nil, want an error")
		}
	})
}

func TestDB_WebsiteClaims(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		ctx := t.Context()
		tn := mustTenant(t, db, "website-claims")
		users := mustUsers(t, db, "wc", 4)
		d := mustAddDrop(t, db, tn.ID, 1511, nil)
		other := mustAddDrop(t, db, tn.ID, 1512, nil)
		at := time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)

		c, again, err := db.QueueWebsiteClaim(ctx, d.ID, users[0].ID, addr(1), at)
		if err != nil || again || c.State != core.WebsiteQueued || c.Wallet != addr(1) || !c.DueAt.Equal(at) {
			t.Fatalf("QueueWebsiteClaim() = %+v, %v, %v, want queued to %s", c, again, err, addr(1))
		}
		if got, again, err := db.QueueWebsiteClaim(ctx, d.ID, users[0].ID, addr(2), at); err != nil || !again || got.ID != c.ID || got.Wallet != addr(1) {
			t.Errorf("QueueWebsiteClaim(again, other wallet) = %+v, %v, %v, want claim #%d again, its wallet kept", got, again, err, c.ID)
		}
		if _, _, err := db.QueueWebsiteClaim(ctx, d.ID, users[1].ID, strings.ToUpper(addr(1)), at); !errors.Is(err, core.ErrWalletClaimed) {
			t.Errorf("QueueWebsiteClaim(another member, same wallet) = %v, want %v", err, core.ErrWalletClaimed)
		}
		if _, again, err := db.QueueWebsiteClaim(ctx, other.ID, users[1].ID, addr(1), at); err != nil || again {
			t.Errorf("QueueWebsiteClaim(same wallet, other drop) = %v, %v, want a new claim", again, err)
		}
		if got, err := db.MemberWebsiteClaim(ctx, d.ID, users[0].ID); err != nil || got.ID != c.ID {
			t.Errorf("MemberWebsiteClaim() = %+v, %v, want #%d", got, err, c.ID)
		}
		if _, err := db.MemberWebsiteClaim(ctx, d.ID, users[3].ID); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("MemberWebsiteClaim(none) = %v, want %v", err, core.ErrNotFound)
		}
		c2, _, err := db.QueueWebsiteClaim(ctx, d.ID, users[2].ID, addr(3), at.Add(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if n, err := db.WebsiteQueueAhead(ctx, c2.ID); err != nil || n != 2 {
			t.Errorf("WebsiteQueueAhead() = %d, %v, want 2 (one of each drop before it)", n, err)
		}

		// Nothing is due before its time; taken claims are taken once.
		if got, err := db.TakeWebsiteClaims(ctx, at.Add(-time.Second), time.Minute, 10); err != nil || len(got) != 0 {
			t.Fatalf("TakeWebsiteClaims(before due) = %d, %v, want none", len(got), err)
		}
		taken, err := db.TakeWebsiteClaims(ctx, at, time.Minute, 10)
		if err != nil || len(taken) != 2 || taken[0].ID != c.ID || taken[0].State != core.WebsiteSending || taken[0].Tries != 1 {
			t.Fatalf("TakeWebsiteClaims(at) = %+v, %v, want #%d and the other drop's, sending, first try", taken, err, c.ID)
		}
		if err := db.FinishWebsiteClaim(ctx, taken[1], core.WebsiteOutcome{State: core.WebsiteMinted}, at); err != nil {
			t.Fatal(err)
		}
		taken2, err := db.TakeWebsiteClaims(ctx, at.Add(30*time.Second), time.Minute, 10)
		if err != nil || len(taken2) != 1 || taken2[0].ID != c2.ID {
			t.Fatalf("TakeWebsiteClaims(within the lease) = %+v, %v, want #%d only", taken2, err, c2.ID)
		}
		if err := db.MarkWebsiteSent(ctx, taken[0], at); err != nil {
			t.Fatalf("MarkWebsiteSent() = %v", err)
		}
		// The lease ran out: the claim is taken again, still marked sent.
		again2, err := db.TakeWebsiteClaims(ctx, at.Add(2*time.Minute), time.Minute, 1)
		if err != nil || len(again2) != 1 || again2[0].ID != c.ID || !again2[0].Sent || again2[0].Tries != 2 {
			t.Fatalf("TakeWebsiteClaims(lease over) = %+v, %v, want #%d sent, second try", again2, err, c.ID)
		}
		mint := core.WebsiteMint{QRHash: "abc123", TransactionID: "tx-9"}
		if err := db.FinishWebsiteClaim(ctx, again2[0], core.WebsiteOutcome{State: core.WebsiteMinted, Mint: mint}, at); err != nil {
			t.Fatalf("FinishWebsiteClaim(minted) = %v", err)
		}
		if err := db.FinishWebsiteClaim(ctx, again2[0], core.WebsiteOutcome{State: core.WebsiteMinted}, at); !errors.Is(err, core.ErrConflict) {
			t.Errorf("FinishWebsiteClaim(minted twice) = %v, want %v", err, core.ErrConflict)
		}
		if err := db.MarkWebsiteSent(ctx, again2[0], at); !errors.Is(err, core.ErrConflict) {
			t.Errorf("MarkWebsiteSent(minted) = %v, want %v", err, core.ErrConflict)
		}
		if err := db.FinishWebsiteClaim(ctx, core.WebsiteClaim{ID: 999999}, core.WebsiteOutcome{State: core.WebsiteMinted}, at); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("FinishWebsiteClaim(unknown) = %v, want %v", err, core.ErrNotFound)
		}
		got, err := db.WebsiteClaim(ctx, c.ID)
		if err != nil || got.State != core.WebsiteMinted || got.QRHash != "abc123" || got.TransactionID != "tx-9" {
			t.Errorf("WebsiteClaim() = %+v, %v, want minted with its code and transaction", got, err)
		}
		if got, again, err := db.QueueWebsiteClaim(ctx, d.ID, users[0].ID, addr(1), at); err != nil || !again || got.State != core.WebsiteMinted {
			t.Errorf("QueueWebsiteClaim(minted) = %+v, %v, %v, want the minted claim again", got, again, err)
		}

		// Busy: back to the queue, due later, not sent.
		if err := db.FinishWebsiteClaim(ctx, taken2[0], core.WebsiteOutcome{State: core.WebsiteQueued, DueAt: at.Add(time.Hour)}, at); err != nil {
			t.Fatalf("FinishWebsiteClaim(queued) = %v", err)
		}
		if got, err := db.TakeWebsiteClaims(ctx, at.Add(59*time.Minute), time.Minute, 10); err != nil || len(got) != 0 {
			t.Errorf("TakeWebsiteClaims(before the new due time) = %+v, %v, want none", got, err)
		}
		taken, err = db.TakeWebsiteClaims(ctx, at.Add(time.Hour), time.Minute, 10)
		if err != nil || len(taken) != 1 || taken[0].ID != c2.ID || taken[0].Sent {
			t.Fatalf("TakeWebsiteClaims(due again) = %+v, %v", taken, err)
		}
		// Refused: a new claim queues it again, to the member's wallet now.
		if err := db.FinishWebsiteClaim(ctx, taken[0], core.WebsiteOutcome{State: core.WebsiteRefused}, at); err == nil {
			t.Error("FinishWebsiteClaim(refused without a reason) = nil, want an error")
		}
		if err := db.FinishWebsiteClaim(ctx, taken[0], core.WebsiteOutcome{State: core.WebsiteRefused, Reason: "limit"}, at); err != nil {
			t.Fatalf("FinishWebsiteClaim(refused) = %v", err)
		}
		if st, err := db.WebsiteStats(ctx, d.ID); err != nil || st != (core.WebsiteStats{Minted: 1, Refused: 1}) {
			t.Errorf("WebsiteStats() = %+v, %v, want 1 minted, 1 refused", st, err)
		}
		if _, _, err := db.QueueWebsiteClaim(ctx, d.ID, users[2].ID, addr(1), at); !errors.Is(err, core.ErrWalletClaimed) {
			t.Errorf("QueueWebsiteClaim(refused, to a wallet minted for another) = %v, want %v", err, core.ErrWalletClaimed)
		}
		re, again, err := db.QueueWebsiteClaim(ctx, d.ID, users[2].ID, addr(4), at.Add(2*time.Hour))
		if err != nil || !again || re.ID != c2.ID || re.State != core.WebsiteQueued || re.Reason != "" || re.Wallet != addr(4) {
			t.Errorf("QueueWebsiteClaim(refused) = %+v, %v, %v, want #%d queued again to %s", re, again, err, c2.ID, addr(4))
		}
	})
}

// TestDB_QueueWebsiteClaim_Race has members race for one drop's website
// claim from separate handles, some sharing a wallet, each member pressing
// twice: one claim per member and one per wallet, whoever wins.
func TestDB_QueueWebsiteClaim_Race(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, newURL func() string) {
		url := newURL()
		dbs := replicas(t, url, 4)
		db := dbs[0]
		tn := mustTenant(t, db, "website-race")
		const members = 40
		users := mustUsers(t, db, "wr", members)
		d := mustAddDrop(t, db, tn.ID, 1521, nil)
		at := time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			claimed = map[int64]int64{} // user -> claim
			refused int
		)
		for i, u := range users {
			for press := range 2 {
				wg.Go(func() {
					h := dbs[(i+press)%len(dbs)]
					// Members 2k and 2k+1 share a wallet.
					c, _, err := h.QueueWebsiteClaim(t.Context(), d.ID, u.ID, addr(i/2), at)
					mu.Lock()
					defer mu.Unlock()
					switch {
					case errors.Is(err, core.ErrWalletClaimed):
						refused++
					case err != nil:
						t.Errorf("QueueWebsiteClaim(member %d) = %v", i, err)
					default:
						if prev, ok := claimed[u.ID]; ok && prev != c.ID {
							t.Errorf("member %d got claims #%d and #%d", i, prev, c.ID)
						}
						claimed[u.ID] = c.ID
					}
				})
			}
		}
		wg.Wait()
		var rows, wallets int64
		if err := db.gorm.Raw(`SELECT count(*), count(DISTINCT lower(wallet)) FROM website_claims WHERE drop_id = ?`, d.ID).
			Row().Scan(&rows, &wallets); err != nil {
			t.Fatal(err)
		}
		if rows != members/2 || wallets != members/2 || len(claimed) != members/2 {
			t.Errorf("%d claims of %d wallets, %d members answered with one, want %d each", rows, wallets, len(claimed), members/2)
		}
		if refused < members/2 {
			t.Errorf("%d presses refused for the wallet, want at least %d", refused, members/2)
		}
	})
}
