package storage

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

// The batches the claim batcher makes while its runners are busy: one drop
// each, at most claimBatchMax, the oldest claim first, never a claim whose
// caller has left, and never a member or a wallet that is in a batch
// running or in the same batch.
func TestClaimBatcher(t *testing.T) {
	t.Parallel()
	type claim struct{ Drop, User int64 }
	var (
		mu      sync.Mutex
		batches [][]claim
	)
	// The first batches of drops 100 and 101 wait for their release.
	release100, release101 := make(chan struct{}), make(chan struct{})
	hold := map[int64]chan struct{}{100: release100, 101: release101}
	started := make(chan struct{}, 3)
	b := &claimBatcher{run: func(batch []*claimRequest) {
		var got []claim
		for _, r := range batch {
			got = append(got, claim{r.drop, r.user})
			r.row = mintLinkRow{ID: r.user}
		}
		mu.Lock()
		batches = append(batches, got)
		ch, ok := hold[batch[0].drop]
		delete(hold, batch[0].drop)
		mu.Unlock()
		if ok {
			started <- struct{}{}
			<-ch
		}
	}}
	// A regression that leaves a claim waiting fails the test at the
	// guard's end rather than hanging it.
	guard, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	request := func(ctx context.Context, drop, user int64, wallet string) *claimRequest {
		r := &claimRequest{ctx: ctx, drop: drop, user: user, wallet: wallet, done: make(chan struct{})}
		b.submit(r)
		return r
	}
	served := func(rs ...*claimRequest) {
		t.Helper()
		for _, r := range rs {
			if row, _, err := r.wait(); err != nil || row.ID != r.user {
				t.Errorf("wait() for member %d = row %d, %v, want their row", r.user, row.ID, err)
			}
		}
	}

	// Both runners busy, with a claim alone each (of drops of their own,
	// so that neither takes both).
	busy := []*claimRequest{request(guard, 100, 1, ""), request(guard, 101, 2, "")}
	for range claimRunners {
		<-started
	}

	// Meanwhile: two drops' claims, a member twice, a caller who leaves, a
	// wallet twice, the busy member of drop 100 again, and more claims of
	// one drop than a batch holds.
	gone, leave := context.WithCancel(guard)
	leave()
	a := request(guard, 1, 3, "")
	bb := request(guard, 2, 4, "")
	c := request(guard, 1, 3, "")
	d := request(guard, 1, 5, "")
	e := request(gone, 1, 6, "")
	f := request(guard, 1, 7, "")
	g := request(guard, 100, 1, "")
	h := request(guard, 1, 8, "0xabc")
	i := request(guard, 1, 9, "0xABC")
	var many []*claimRequest
	for n := range claimBatchMax + 1 {
		many = append(many, request(guard, 3, int64(1000+n), ""))
	}
	if _, _, err := e.wait(); !errors.Is(err, context.Canceled) {
		t.Errorf("wait() after the caller left = %v, want %v", err, context.Canceled)
	}

	// Drop 101's runner goes on; drop 100's is still busy with member 1.
	close(release101)
	served(busy[1], a, bb, c, d, f, h, i)
	served(many...)
	select {
	case <-g.done:
		t.Error("member 1 of drop 100 claimed again while their first claim ran")
	default:
	}
	close(release100)
	served(busy[0], g)

	mu.Lock()
	got := batches[claimRunners:]
	mu.Unlock()
	var full []claim
	for _, r := range many[:claimBatchMax] {
		full = append(full, claim{r.drop, r.user})
	}
	want := [][]claim{
		{{1, 3}, {1, 5}, {1, 7}, {1, 8}},
		{{2, 4}},
		{{1, 3}, {1, 9}},
		full,
		{{3, 1000 + claimBatchMax}},
		{{100, 1}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("batches made while a runner was busy (-want +got):\n%s", diff)
	}

	// A claim made later is served.
	served(request(guard, 1, 10, ""))
}

// A caller who leaves while their claim is in a batch gets their context's
// error at once, without waiting for the batch.
func TestClaimBatcher_Leave(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	release := make(chan struct{})
	b := &claimBatcher{run: func(batch []*claimRequest) {
		close(started)
		<-release
	}}
	ctx, leave := context.WithCancel(t.Context())
	r := &claimRequest{ctx: ctx, drop: 1, user: 1, done: make(chan struct{})}
	b.submit(r)
	<-started
	leave()
	if _, _, err := r.wait(); !errors.Is(err, context.Canceled) {
		t.Errorf("wait() after the caller left = %v, want %v", err, context.Canceled)
	}
	close(release)
	<-r.done
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
// for the others while links last, none for a wallet that has one, and a
// batch that a foreign key refuses leaves everything as it was.
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
		// A wallet with a link of the drop: its member gets none from the
		// batch, the others theirs, and alone it is told the wallet has it.
		t.Run("WalletTaken", func(t *testing.T) {
			d := mustAddDrop(t, db, tn.ID, 1502, importedLinks(1502, 3))
			if _, _, err := db.ClaimMintLink(t.Context(), d.ID, users[0].ID, addr(21), at); err != nil {
				t.Fatal(err)
			}
			b := batch(d.ID, []int64{users[1].ID, users[2].ID}, "", strings.ToUpper(addr(21)))
			if r := b[0]; r.err != nil || r.again || r.row.UserID == nil || *r.row.UserID != users[1].ID {
				t.Errorf("claimBatch() for the member without a wallet = %+v, again %v, %v, want a new link", r.row, r.again, r.err)
			}
			if r := b[1]; r.err != nil || r.row.ID != 0 {
				t.Errorf("claimBatch() for the taken wallet = row %d, %v, want none", r.row.ID, r.err)
			}
			if _, _, err := db.ClaimMintLink(t.Context(), d.ID, users[2].ID, addr(21), at); !errors.Is(err, core.ErrWalletClaimed) {
				t.Errorf("ClaimMintLink(taken wallet) = %v, want %v", err, core.ErrWalletClaimed)
			}
			if s := mustStock(t, db, d.ID); s.HandedOut != 2 {
				t.Errorf("Stock() = %+v, want 2 handed out", s)
			}
		})
		// A batch whose statement waits for another transaction is
		// cancelled once all its callers have left.
		t.Run("CallersLeft", func(t *testing.T) {
			d := mustAddDrop(t, db, tn.ID, 1504, importedLinks(1504, 3))
			tx, _ := handOutInTx(t, db, d.ID, users[0].ID, "")
			var pid int
			if err := tx.QueryRowContext(t.Context(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
				t.Fatal(err)
			}
			ctx, leave := context.WithCancel(t.Context())
			var b []*claimRequest
			for _, u := range users[:2] {
				b = append(b, &claimRequest{ctx: ctx, drop: d.ID, user: u.ID, at: at, done: make(chan struct{})})
			}
			done := make(chan struct{})
			go func() {
				db.claimBatch(b)
				close(done)
			}()
			waitBlockedBy(t, db, pid, true, func() {
				select {
				case <-done:
					t.Fatalf("claimBatch() = %v without waiting for the open transaction", b[0].err)
				default:
				}
			})
			leave()
			select {
			case <-done:
			case <-time.After(time.Minute): // a hang guard, not a measure
				_ = tx.Rollback()
				t.Fatal("the batch's statement went on after its callers left")
			}
			// pgx sends the server its cancel from a goroutine of its own:
			// the statement ends when the server has it.
			waitBlockedBy(t, db, pid, false, nil)
			for _, r := range b {
				if !errors.Is(r.err, errBatchRefused) || !errors.Is(r.err, context.Canceled) {
					t.Errorf("claimBatch() for member %d once its callers left = %v, want %v and %v", r.user, r.err, errBatchRefused, context.Canceled)
				}
			}
			if err := tx.Rollback(); err != nil {
				t.Fatal(err)
			}
			if s := mustStock(t, db, d.ID); s.HandedOut != 0 {
				t.Errorf("Stock() = %+v, want none handed out", s)
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
