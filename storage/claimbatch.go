package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// A rush is many members claiming one drop at the same moment. On
// PostgreSQL each claim alone is one statement and one commit, and the
// commits bound the rate (docs/benchmarks.md). So the claims that arrive
// while others are in flight are gathered and made together: one
// statement (claimBatchSQL) and one commit for up to claimBatchMax members
// of one drop, as PostgreSQL itself gathers concurrent commits into one
// WAL flush. Nothing waits for a batch to fill: a claim that finds fewer
// than claimRunners batches running is sent at once, and alone it is the
// single statement, claimSQL. Only the claims that arrive while
// claimRunners batches run wait, for the first of them to come back, and
// then go together.
//
// Two batches never run at once with one member, or one wallet, of a drop
// (claimBatcher.inFlight): the second would wait on the first's unique
// index entry and then fail, and two batches crossing on two members
// would deadlock. A claim sent alone after its batch (see ClaimMintLink)
// is not tracked: a batch that meets it waits for that one statement, and
// may then fail and be sent again member by member; it cannot deadlock,
// since a claim alone holds one member's entry.
const (
	// claimRunners is how many batches run at once, so how many of the
	// pool's connections a rush holds (a claim that its batch found no
	// link for, or that a failed batch sends again alone, runs outside
	// this bound). Fewer statements, each for more members, is what makes
	// a rush faster: on two cores 2 did best (docs/benchmarks.md).
	claimRunners = 2
	// claimBatchMax is how many members one statement claims for at most.
	claimBatchMax = 64
)

// claimBatchSQL is claimSQL for many members of one drop: each member's
// link of the drop (mine, again true), and for the others one available
// link each, in id order, handed out by one UPDATE (taken, again false).
// Each row returned starts with ord, the member's place (from 1) in the
// arrays. A member who is in neither got no link: none was left, it was
// locked by another claim (SKIP LOCKED), or their wallet has a link of the
// drop already; the caller claims again alone, which gives them the answer.
// The batch holds each member and each wallet once (claimBatcher.inFlight);
// a unique index that refuses any hand-out all the same (a claim of the
// member's or of the wallet's sent alone meanwhile) fails the whole
// statement, and each member then claims alone.
//
// Parameters: $1 drop, $2 users, $3 wallets (empty for none), $4 times.
var claimBatchSQL = `
WITH req AS (
	SELECT * FROM unnest($2::bigint[], $3::text[], $4::timestamptz[])
		WITH ORDINALITY AS r(user_id, wallet, at, ord)
), mine AS (
	SELECT r.ord, ` + qualified("l", linkColumns) + `
	FROM req r JOIN mint_links l ON l.drop_id = $1 AND l.user_id = r.user_id
), want AS (
	SELECT r.*, row_number() OVER (ORDER BY r.ord) AS k FROM req r
	WHERE NOT EXISTS (SELECT FROM mine m WHERE m.ord = r.ord)
	AND (r.wallet = '' OR NOT EXISTS (
		SELECT FROM mint_links x
		WHERE x.drop_id = $1 AND x.wallet IS NOT NULL AND lower(x.wallet) = lower(r.wallet)))
), free AS (
	SELECT f.id, row_number() OVER (ORDER BY f.id) AS k FROM (
		SELECT id FROM mint_links
		WHERE drop_id = $1 AND state = 'available'
		ORDER BY id LIMIT (SELECT count(*) FROM want) FOR UPDATE SKIP LOCKED) f
), taken AS (
	UPDATE mint_links l
	SET state = 'handed_out', user_id = w.user_id, wallet = NULLIF(w.wallet, ''), claimed_at = w.at, updated_at = w.at
	FROM want w JOIN free f ON f.k = w.k
	WHERE l.id = f.id AND l.state = 'available'
	RETURNING w.ord, ` + qualified("l", linkColumns) + `
)
SELECT *, false FROM taken
UNION ALL
SELECT *, true FROM mine`

// qualified prefixes each of the comma-separated columns with table.
func qualified(table, columns string) string {
	return table + "." + strings.ReplaceAll(columns, ", ", ", "+table+".")
}

// errBatchRefused says a claim statement for several members failed: each
// of them claims again alone, which gives each its own answer.
var errBatchRefused = errors.New("claim batch refused")

// claimRequest is one member's claim, waiting for or in a batch.
type claimRequest struct {
	ctx        context.Context
	drop, user int64
	wallet     string
	at         time.Time
	state      atomic.Int32 // requestQueued, requestTaken or requestAbandoned
	done       chan struct{}
	row        mintLinkRow // set before done is closed
	again      bool
	err        error
}

// The states of a claimRequest.
const (
	requestQueued    = iota // waiting for a batch
	requestTaken            // in a batch: its statement may hand it a link
	requestAbandoned        // its caller left before a batch took it
)

// claimBatcher gathers concurrent claims into batches of one drop and
// runs each with run, claimRunners at most at once. Its runners are
// goroutines that live while claims wait.
type claimBatcher struct {
	run func(batch []*claimRequest)

	mu      sync.Mutex
	waiting []*claimRequest
	running int
	// inFlight holds the members and wallets of the batches running.
	inFlight map[claimKey]bool
}

// claimKey is a member of a drop (wallet empty), or a wallet of a drop
// (user 0): what the unique indexes of mint_links allow once.
type claimKey struct {
	drop, user int64
	wallet     string
}

// keys yields the claim's member and, if it has one, its wallet.
func (r *claimRequest) keys(yield func(claimKey) bool) {
	if !yield(claimKey{drop: r.drop, user: r.user}) || r.wallet == "" {
		return
	}
	yield(claimKey{drop: r.drop, wallet: strings.ToLower(r.wallet)})
}

// claim makes the member's claim with the claims waiting beside it, and
// returns its outcome: the member's link (a zero row when none was
// available), again true when it was theirs already, or an error;
// errBatchRefused when the batch failed. When ctx ends first, it returns
// ctx's error (see wait).
func (b *claimBatcher) claim(ctx context.Context, drop, user int64, wallet string, at time.Time) (mintLinkRow, bool, error) {
	r := &claimRequest{ctx: ctx, drop: drop, user: user, wallet: wallet, at: at, done: make(chan struct{})}
	b.submit(r)
	return r.wait()
}

// submit queues r, and starts a runner if fewer than claimRunners run.
func (b *claimBatcher) submit(r *claimRequest) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.waiting = append(b.waiting, r)
	if b.running < claimRunners {
		b.running++
		go b.runner()
	}
}

// wait returns r's outcome once its batch has run, or ctx's error as soon
// as its context ends. A claim that no batch took yet is then never sent.
// One in a batch may still get a link, the member's on their next claim,
// as when a single statement's caller leaves after it committed; the
// batch's statement is cancelled once every one of its callers has left
// (batchContext), and like any cancel that one reaches the server a moment
// later, so the batch may still commit.
func (r *claimRequest) wait() (mintLinkRow, bool, error) {
	select {
	case <-r.done:
		return r.row, r.again, r.err
	case <-r.ctx.Done():
		r.state.CompareAndSwap(requestQueued, requestAbandoned)
		return mintLinkRow{}, false, r.ctx.Err()
	}
}

// runner runs batches while claims wait.
func (b *claimBatcher) runner() {
	var batch []*claimRequest
	for {
		batch = b.next(batch)
		if batch == nil {
			return
		}
		b.run(batch)
		for _, r := range batch {
			close(r.done)
		}
	}
}

// next ends the batch that was run, and takes the next one off the queue:
// the oldest claim that can go and every later one of the same drop, up to
// claimBatchMax. A claim cannot go while its member or its wallet is in a
// batch running or already in this one: it waits for that batch's runner
// to call next again. next drops abandoned claims. With none that can go,
// the runner is done: next returns nil.
func (b *claimBatcher) next(ran []*claimRequest) []*claimRequest {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range ran {
		for k := range r.keys {
			delete(b.inFlight, k)
		}
	}
	if b.inFlight == nil {
		b.inFlight = make(map[claimKey]bool)
	}
	var batch []*claimRequest
	kept := b.waiting[:0]
	for _, r := range b.waiting {
		switch {
		case len(batch) == claimBatchMax, len(batch) > 0 && r.drop != batch[0].drop, b.busy(r):
			kept = append(kept, r)
		case r.state.CompareAndSwap(requestQueued, requestTaken):
			batch = append(batch, r)
			for k := range r.keys {
				b.inFlight[k] = true
			}
		}
	}
	clear(b.waiting[len(kept):])
	b.waiting = kept
	if len(batch) == 0 {
		b.running--
	}
	return batch
}

// busy says whether r's member or wallet is in a batch running or being
// made.
func (b *claimBatcher) busy(r *claimRequest) bool {
	for k := range r.keys {
		if b.inFlight[k] {
			return true
		}
	}
	return false
}

// claimBatch runs one batch of claims on PostgreSQL: a claim alone is
// claimSQL under its own context, several are claimBatchSQL, which runs
// until every one of their callers has left.
func (db *DB) claimBatch(batch []*claimRequest) {
	if len(batch) == 1 {
		r := batch[0]
		r.row, r.again, r.err = db.claim(r.ctx, r.drop, r.user, r.wallet, r.at, claimSkipLockedSQL)
		return
	}
	ctx, stop := batchContext(batch)
	defer stop()
	users := make([]int64, len(batch))
	wallets := make([]string, len(batch))
	times := make([]time.Time, len(batch))
	for i, r := range batch {
		users[i], wallets[i], times[i] = r.user, r.wallet, r.at
	}
	err := db.withPgx(ctx, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, claimBatchSQL, batch[0].drop, users, wallets, times)
		if err != nil {
			return err
		}
		var (
			ord   int64
			row   mintLinkRow
			again bool
		)
		_, err = pgx.ForEachRow(rows, append([]any{&ord}, row.dest(&again)...), func() error {
			if ord < 1 || ord > int64(len(batch)) {
				return fmt.Errorf("claim batch: row for member %d of %d", ord, len(batch))
			}
			batch[ord-1].row, batch[ord-1].again = row, again
			row = mintLinkRow{} // the next row's pointers are its own
			return nil
		})
		return err
	})
	if err != nil {
		if unavailable(err) {
			db.dropIdle()
		}
		for _, r := range batch {
			r.row, r.again, r.err = mintLinkRow{}, false, fmt.Errorf("%w: %w", errBatchRefused, err)
		}
	}
}

// batchContext returns the context of a batch's statement: it carries the
// values of the first claim's context, and it is cancelled once the
// contexts of all the batch's claims are done, or by stop.
func batchContext(batch []*claimRequest) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(batch[0].ctx))
	var left atomic.Int64
	left.Store(int64(len(batch)))
	stops := make([]func() bool, len(batch))
	for i, r := range batch {
		stops[i] = context.AfterFunc(r.ctx, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
	}
	return ctx, func() {
		for _, s := range stops {
			s()
		}
		cancel()
	}
}
