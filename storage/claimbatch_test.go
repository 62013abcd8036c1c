package storage

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

// The batches the claim batcher makes while its runners are busy: one drop
// each, each member once, the oldest claim first, and never a claim whose
// caller has left.
func TestClaimBatcher(t *testing.T) {
	t.Parallel()
	type claim struct{ drop, user int64 }
	var (
		mu      sync.Mutex
		batches [][]claim
	)
	started := make(chan struct{})
	release := make(chan struct{})
	b := &claimBatcher{run: func(batch []*claimRequest) {
		var got []claim
		for _, r := range batch {
			got = append(got, claim{r.drop, r.user})
			r.row = mintLinkRow{ID: r.user}
		}
		mu.Lock()
		batches = append(batches, got)
		first := len(batches) <= claimRunners
		mu.Unlock()
		if first {
			started <- struct{}{}
			<-release
		}
	}}
	request := func(ctx context.Context, drop, user int64) *claimRequest {
		return &claimRequest{ctx: ctx, drop: drop, user: user, done: make(chan struct{})}
	}

	// Every runner busy with a claim alone (of drops of their own, so that
	// no runner can take two of them).
	var busy []*claimRequest
	for i := range claimRunners {
		r := request(t.Context(), int64(100+i), int64(100+i))
		b.submit(r)
		busy = append(busy, r)
	}
	for range claimRunners {
		<-started
	}

	// Meanwhile: two drops' claims, a member twice, a caller who leaves.
	gone, leave := context.WithCancel(t.Context())
	leave()
	waiting := []*claimRequest{
		request(t.Context(), 1, 3),
		request(t.Context(), 2, 4),
		request(t.Context(), 1, 3),
		request(t.Context(), 1, 5),
		request(gone, 1, 6),
		request(t.Context(), 1, 7),
	}
	for _, r := range waiting {
		b.submit(r)
	}
	if _, _, err := waiting[4].wait(); !errors.Is(err, context.Canceled) {
		t.Errorf("wait() after the caller left = %v, want %v", err, context.Canceled)
	}
	close(release)
	for _, r := range append(busy, slices.Delete(slices.Clone(waiting), 4, 5)...) {
		if row, _, err := r.wait(); err != nil || row.ID != r.user {
			t.Errorf("wait() for member %d = row %d, %v, want their row", r.user, row.ID, err)
		}
	}

	mu.Lock()
	got := batches[claimRunners:]
	mu.Unlock()
	slices.SortFunc(got, func(a, b []claim) int { // longest first, then by drop, last first
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return int(b[0].drop - a[0].drop)
	})
	want := [][]claim{{{1, 3}, {1, 5}, {1, 7}}, {{2, 4}}, {{1, 3}}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(claim{})); diff != "" {
		t.Errorf("batches made while the runners were busy (-want +got):\n%s", diff)
	}

	// The runners went idle and left: a later claim starts one again.
	later := request(t.Context(), 1, 8)
	b.submit(later)
	if row, _, err := later.wait(); err != nil || row.ID != 8 {
		t.Errorf("wait() for a later claim = row %d, %v, want its row", row.ID, err)
	}
}

// A batch's statement runs until the last of its callers has left.
func TestBatchContext(t *testing.T) {
	t.Parallel()
	ctx1, cancel1 := context.WithCancel(t.Context())
	ctx2, cancel2 := context.WithCancel(t.Context())
	defer cancel2()
	ctx, stop := batchContext([]*claimRequest{{ctx: ctx1}, {ctx: ctx2}})
	defer stop()
	cancel1()
	if err := ctx.Err(); err != nil {
		t.Errorf("batch context after one caller of two left: %v, want none", err)
	}
	cancel2()
	<-ctx.Done()

	ctx, stop = batchContext([]*claimRequest{{ctx: t.Context()}})
	stop()
	if ctx.Err() == nil {
		t.Error("batch context after stop: not done")
	}
}

// claimBatchSQL on PostgreSQL: the members' links again, new ones in order
// for the others while links last, and a batch that a unique index or a
// foreign key refuses leaves everything as it was.
func TestDB_ClaimBatch(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		if db.claims == nil {
			t.Skip("SQLite makes claims one at a time")
		}
		tn := mustTenant(t, db, "batch")
		users := mustUsers(t, db, "batch", 4)
		at := dbTime(time.Now())
		batch := func(drop int64, users []int64, wallets ...string) []*claimRequest {
			var b []*claimRequest
			for i, u := range users {
				r := &claimRequest{ctx: t.Context(), drop: drop, user: u, at: at, done: make(chan struct{})}
				if i < len(wallets) {
					r.wallet = wallets[i]
				}
				b = append(b, r)
			}
			db.claimBatch(b)
			return b
		}

		t.Run("OK", func(t *testing.T) {
			d := mustAddDrop(t, db, tn.ID, 1501, importedLinks(1501, 3))
			held, _, err := db.ClaimMintLink(t.Context(), d.ID, users[0].ID, "", at)
			if err != nil {
				t.Fatal(err)
			}
			b := batch(d.ID, []int64{users[0].ID, users[1].ID, users[2].ID, users[3].ID}, "", addr(11))
			type outcome struct {
				Link  int64
				Again bool
				User  int64
				Wall  string
				Err   error
			}
			var got []outcome
			for _, r := range b {
				o := outcome{Link: r.row.ID, Again: r.again, Err: r.err}
				if r.row.UserID != nil {
					o.User = *r.row.UserID
				}
				if r.row.Wallet != nil {
					o.Wall = *r.row.Wallet
				}
				got = append(got, o)
			}
			want := []outcome{
				{Link: held.ID, Again: true, User: users[0].ID},
				{Link: held.ID + 1, User: users[1].ID, Wall: addr(11)},
				{Link: held.ID + 2, User: users[2].ID},
				{}, // none left for the fourth
			}
			if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b error) bool { return errors.Is(a, b) })); diff != "" {
				t.Errorf("claimBatch() (-want +got):\n%s", diff)
			}
			if s := mustStock(t, db, d.ID); s != (core.Stock{Total: 3, HandedOut: 3}) {
				t.Errorf("Stock() = %+v, want all 3 handed out", s)
			}
			if _, _, err := db.ClaimMintLink(t.Context(), d.ID, users[3].ID, "", at); !errors.Is(err, core.ErrNoMintLinksLeft) {
				t.Errorf("ClaimMintLink(fourth member) = %v, want %v", err, core.ErrNoMintLinksLeft)
			}
		})

		refused := func(t *testing.T, b []*claimRequest, drop int64) {
			t.Helper()
			for _, r := range b {
				if !errors.Is(r.err, errBatchRefused) || r.row.ID != 0 {
					t.Errorf("claimBatch() for member %d = row %d, %v, want %v", r.user, r.row.ID, r.err, errBatchRefused)
				}
			}
			if s := mustStock(t, db, drop); s.HandedOut != 1 {
				t.Errorf("Stock() after a refused batch = %+v, want only the 1 handed out before", s)
			}
		}
		t.Run("WalletTaken", func(t *testing.T) {
			d := mustAddDrop(t, db, tn.ID, 1502, importedLinks(1502, 3))
			if _, _, err := db.ClaimMintLink(t.Context(), d.ID, users[0].ID, addr(21), at); err != nil {
				t.Fatal(err)
			}
			refused(t, batch(d.ID, []int64{users[1].ID, users[2].ID}, "", addr(21)), d.ID)
			// Alone, each gets their own answer.
			if _, _, err := db.ClaimMintLink(t.Context(), d.ID, users[2].ID, addr(21), at); !errors.Is(err, core.ErrWalletClaimed) {
				t.Errorf("ClaimMintLink(taken wallet) = %v, want %v", err, core.ErrWalletClaimed)
			}
			if l, again, err := db.ClaimMintLink(t.Context(), d.ID, users[1].ID, "", at); err != nil || again || l.UserID == nil || *l.UserID != users[1].ID {
				t.Errorf("ClaimMintLink(other member) = %+v, again %v, %v, want a new link", l, again, err)
			}
		})
		t.Run("UnknownUser", func(t *testing.T) {
			d := mustAddDrop(t, db, tn.ID, 1503, importedLinks(1503, 3))
			if _, _, err := db.ClaimMintLink(t.Context(), d.ID, users[0].ID, "", at); err != nil {
				t.Fatal(err)
			}
			refused(t, batch(d.ID, []int64{users[1].ID, 1 << 40}), d.ID)
		})
	})
}
