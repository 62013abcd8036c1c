package storage

import (
	"database/sql"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

// inboxAt is the time the inbox tests start at.
var inboxAt = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// update returns the update id of member, received at at, with a body
// that names it.
func update(id, member int64, at time.Time) core.InboxUpdate {
	return core.InboxUpdate{ID: id, Member: member, Body: fmt.Appendf(nil, `{"update_id":%d}`, id), Received: at}
}

// updates returns the updates ids, of no member, received at inboxAt.
func updates(ids ...int64) []core.InboxUpdate {
	out := make([]core.InboxUpdate, len(ids))
	for i, id := range ids {
		out[i] = update(id, 0, inboxAt)
	}
	return out
}

// add stores us as the bot's and returns how many were new, failing the
// test on an error.
func add(t *testing.T, db *DB, botID int64, us ...core.InboxUpdate) int {
	t.Helper()
	n, err := db.AddUpdates(t.Context(), botID, us)
	if err != nil {
		t.Fatalf("AddUpdates(%d) = %v", botID, err)
	}
	return n
}

// finish marks the bot's updates ids handled at at, failing the test on
// an error.
func finish(t *testing.T, db *DB, botID int64, at time.Time, ids ...int64) {
	t.Helper()
	if err := db.FinishUpdates(t.Context(), botID, ids, at); err != nil {
		t.Fatalf("FinishUpdates(%d, %v) = %v", botID, ids, err)
	}
}

// pendingIDs returns the ids of the bot's first limit pending updates.
func pendingIDs(t *testing.T, db *DB, botID int64, limit int) []int64 {
	t.Helper()
	us, err := db.PendingUpdates(t.Context(), botID, 0, limit)
	if err != nil {
		t.Fatalf("PendingUpdates(%d, %d) = %v", botID, limit, err)
	}
	var ids []int64
	for _, u := range us {
		ids = append(ids, u.ID)
	}
	return ids
}

// backlog returns the bot's InboxBacklog, failing the test on an error.
func backlog(t *testing.T, db *DB, botID int64) int {
	t.Helper()
	n, err := db.InboxBacklog(t.Context(), botID)
	if err != nil {
		t.Fatalf("InboxBacklog(%d) = %v", botID, err)
	}
	return n
}

// inboxRow is a row of telegram_inbox as stored.
type inboxRow struct {
	member   int64
	body     []byte
	received time.Time
	done     sql.NullTime
}

// String describes r for test failures.
func (r inboxRow) String() string {
	done := "pending"
	if r.done.Valid {
		done = "done at " + r.done.Time.UTC().String()
	}
	return fmt.Sprintf("member %d, body %q, received at %v, %s", r.member, r.body, r.received.UTC(), done)
}

// storedUpdate reads the bot's update id from telegram_inbox; ok is false
// when there is no such row.
func storedUpdate(t *testing.T, db *DB, botID, id int64) (r inboxRow, ok bool) {
	t.Helper()
	rows, err := db.gorm.Raw(`SELECT member, body, received_at, done_at FROM telegram_inbox WHERE bot_id = ? AND update_id = ?`,
		botID, id).Rows()
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return inboxRow{}, false
	}
	if err := rows.Scan(&r.member, &r.body, &r.received, &r.done); err != nil {
		t.Fatal(err)
	}
	return r, true
}

// TestDB_AddUpdates: an update is stored once, however many callers of
// two replicas race to store it; another bot's update of the same id is
// its own; a batch counts only its new updates.
func TestDB_AddUpdates(t *testing.T) {
	t.Parallel()
	eachMigrated(t, func(t *testing.T, newURL func() string) {
		dbs := replicas(t, newURL(), 2)
		db := dbs[0]
		var added atomic.Int64
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() {
				n, err := dbs[i%2].AddUpdates(t.Context(), 42, updates(1000))
				if err != nil {
					t.Errorf("AddUpdates() = %v", err)
				}
				added.Add(int64(n))
			})
		}
		wg.Wait()
		if n := added.Load(); n != 1 {
			t.Errorf("20 racing AddUpdates of one update added %d, want 1", n)
		}
		if n := count(t, db, "telegram_inbox", "update_id = ?", 1000); n != 1 {
			t.Errorf("%d rows of update 1000, want 1", n)
		}
		if n := add(t, db, 42, updates(1000)...); n != 0 {
			t.Errorf("AddUpdates(the same update again) = %d, want 0", n)
		}
		if n := add(t, db, 43, updates(1000)...); n != 1 {
			t.Errorf("AddUpdates(another bot, the same id) = %d, want 1", n)
		}
		// 1000 is stored; 1001 comes twice in the batch.
		if n := add(t, db, 42, updates(1002, 1000, 1001, 1001)...); n != 2 {
			t.Errorf("AddUpdates(1002, 1000, 1001, 1001) = %d, want 2", n)
		}
		if got, want := pendingIDs(t, db, 42, 10), []int64{1000, 1001, 1002}; !slices.Equal(got, want) {
			t.Errorf("pending of bot 42 = %v, want %v", got, want)
		}
		if got, want := pendingIDs(t, db, 43, 10), []int64{1000}; !slices.Equal(got, want) {
			t.Errorf("pending of bot 43 = %v, want %v", got, want)
		}
		for _, us := range [][]core.InboxUpdate{nil, {}} {
			if n, err := db.AddUpdates(t.Context(), 42, us); n != 0 || err != nil {
				t.Errorf("AddUpdates(%#v) = %d, %v, want 0, nil", us, n, err)
			}
		}
		// An update without a body is refused, and so is its batch.
		if n, err := db.AddUpdates(t.Context(), 42, append(updates(2000), core.InboxUpdate{ID: 2001})); err == nil || n != 0 {
			t.Errorf("AddUpdates(an update without a body) = %d, %v, want an error", n, err)
		}
		if n := count(t, db, "telegram_inbox", "update_id IN (2000, 2001)"); n != 0 {
			t.Errorf("%d rows of a refused batch stored, want none", n)
		}
		// A zero Received is the time of storing.
		before := time.Now().Add(-time.Second)
		add(t, db, 42, core.InboxUpdate{ID: 3000, Body: []byte(`{}`)})
		if r, _ := storedUpdate(t, db, 42, 3000); r.received.Before(before) || r.received.After(time.Now().Add(time.Second)) {
			t.Errorf("received_at of an update without Received = %v, want about now", r.received)
		}
	})
}

// TestDB_PendingUpdates: the pending updates of a bot come lowest id first
// as they were added, at most limit of them; the backlog counts them.
func TestDB_PendingUpdates(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		add(t, db, 42, update(30, 7, inboxAt), update(10, 0, inboxAt.Add(time.Second)))
		add(t, db, 42, update(40, 8, inboxAt), update(20, 7, inboxAt))
		add(t, db, 43, update(5, 9, inboxAt))
		got, err := db.PendingUpdates(t.Context(), 42, 0, 3)
		if err != nil {
			t.Fatal(err)
		}
		want := []core.InboxUpdate{
			update(10, 0, inboxAt.Add(time.Second)), update(20, 7, inboxAt), update(30, 7, inboxAt),
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("PendingUpdates(42, 3) (-want +got):\n%s", diff)
		}
		if got, want := pendingIDs(t, db, 42, 10), []int64{10, 20, 30, 40}; !slices.Equal(got, want) {
			t.Errorf("PendingUpdates(42, 10) = %v, want %v", got, want)
		}
		after, err := db.PendingUpdates(t.Context(), 42, 20, 10)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(after); !slices.Equal(got, []int64{30, 40}) {
			t.Errorf("PendingUpdates(42, after 20) = %v, want [30 40]", got)
		}
		if got := pendingIDs(t, db, 42, 0); got != nil {
			t.Errorf("PendingUpdates(42, 0) = %v, want none", got)
		}
		if got := pendingIDs(t, db, 44, 10); got != nil {
			t.Errorf("PendingUpdates(a bot without updates) = %v, want none", got)
		}
		for bot, want := range map[int64]int{42: 4, 43: 1, 44: 0} {
			if n := backlog(t, db, bot); n != want {
				t.Errorf("InboxBacklog(%d) = %d, want %d", bot, n, want)
			}
		}
	})
}

// TestDB_FinishUpdates: a handled update loses its body and leaves the
// pending ones and the backlog, keeps the time it was first handled at,
// and is still recognised when it is delivered again.
func TestDB_FinishUpdates(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		add(t, db, 42, updates(1, 2, 3, 4)...)
		add(t, db, 43, updates(1)...)
		done := inboxAt.Add(time.Minute)
		finish(t, db, 42, done, 3, 1, 99) // 99 is no update: passed over
		if got, want := pendingIDs(t, db, 42, 10), []int64{2, 4}; !slices.Equal(got, want) {
			t.Errorf("pending after finishing 1 and 3 = %v, want %v", got, want)
		}
		if n := backlog(t, db, 42); n != 2 {
			t.Errorf("InboxBacklog() after finishing 1 and 3 = %d, want 2", n)
		}
		if got, want := pendingIDs(t, db, 43, 10), []int64{1}; !slices.Equal(got, want) {
			t.Errorf("pending of another bot = %v, want %v untouched", got, want)
		}
		if n := count(t, db, "telegram_inbox", "bot_id = 42 AND update_id = 99"); n != 0 {
			t.Errorf("finishing an unknown update stored %d rows, want none", n)
		}
		check := func(when string) {
			t.Helper()
			r, ok := storedUpdate(t, db, 42, 1)
			if !ok || r.body != nil || !r.done.Valid || !r.done.Time.Equal(done) {
				t.Errorf("%s: update 1 = %v, %v; want its body NULL, done at %v", when, r, ok, done)
			}
		}
		check("finished")
		finish(t, db, 42, done.Add(2*time.Hour), 1)
		check("finished twice")
		if n := add(t, db, 42, updates(1)...); n != 0 {
			t.Errorf("AddUpdates(a handled update) = %d, want 0", n)
		}
		check("delivered again")
		if got, want := pendingIDs(t, db, 42, 10), []int64{2, 4}; !slices.Equal(got, want) {
			t.Errorf("pending after a handled update is delivered again = %v, want %v", got, want)
		}
		if err := db.FinishUpdates(t.Context(), 42, nil, done); err != nil {
			t.Errorf("FinishUpdates(no ids) = %v", err)
		}
	})
}

// TestDB_FinishUpdates_Many finishes a thousand updates in one call, more
// than some SQLite builds take parameters in one statement.
func TestDB_FinishUpdates_Many(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		ids := make([]int64, 1000)
		for i := range ids {
			ids[i] = int64(len(ids) - i) // highest first
		}
		if n := add(t, db, 42, updates(ids...)...); n != len(ids) {
			t.Fatalf("AddUpdates(1000 updates) = %d, want 1000", n)
		}
		if n := backlog(t, db, 42); n != len(ids) {
			t.Fatalf("InboxBacklog() = %d, want 1000", n)
		}
		finish(t, db, 42, inboxAt, ids...)
		if n := backlog(t, db, 42); n != 0 {
			t.Errorf("InboxBacklog() after finishing all = %d, want 0", n)
		}
		if n := count(t, db, "telegram_inbox", "done_at IS NOT NULL AND body IS NULL"); n != int64(len(ids)) {
			t.Errorf("%d updates handled, want 1000", n)
		}
	})
}

// TestDB_InboxPruning: the updates handled before the retention are
// forgotten, at most once a prunePeriod; pending ones never are.
func TestDB_InboxPruning(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		at := inboxAt
		present := func(id int64) bool {
			t.Helper()
			_, ok := storedUpdate(t, db, 42, id)
			return ok
		}
		add(t, db, 42, updates(1, 2, 3, 4)...)
		finish(t, db, 42, at, 1)                     // the first call prunes: nothing is old
		finish(t, db, 42, at.Add(80*time.Minute), 2) // prunes again: still nothing
		if !present(1) || !present(2) {
			t.Fatal("handled updates forgotten within the retention")
		}
		// Past the retention of 1, not of 2. 3, pending, is older.
		at2 := at.Add(core.InboxRetention + time.Hour)
		finish(t, db, 42, at2, 4)
		if present(1) {
			t.Error("update 1, handled before the retention, is still stored")
		}
		if !present(2) {
			t.Error("update 2, handled within the retention, was forgotten")
		}
		if got, want := pendingIDs(t, db, 42, 10), []int64{3}; !slices.Equal(got, want) {
			t.Errorf("pending after pruning = %v, want %v", got, want)
		}
		// Half an hour later 2 is past the retention too, but the last
		// pruning is too recent.
		finish(t, db, 42, at2.Add(30*time.Minute), 4)
		if !present(2) {
			t.Error("pruned twice within a prunePeriod")
		}
		finish(t, db, 42, at2.Add(time.Hour), 4)
		if present(2) {
			t.Error("update 2, handled before the retention, is still stored a prunePeriod later")
		}
		if !present(3) || !present(4) {
			t.Error("a pending update, or one handled within the retention, was forgotten")
		}
		if n := add(t, db, 42, updates(1, 4)...); n != 1 {
			t.Errorf("AddUpdates(a forgotten update, a remembered one) = %d, want 1", n)
		}
	})
}

// TestMigrate_TelegramInbox upgrades a database whose bot took updates in
// telegram_updates: they are in the inbox as handled, so that a
// redelivery of one is still dropped, until the retention after they were
// taken; the old table is gone.
func TestMigrate_TelegramInbox(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, newURL func() string) {
		databaseURL := newURL()
		old := openAt(t, databaseURL, 9)
		taken := map[[2]int64]time.Time{
			{42, 1000}: inboxAt,
			{42, 1001}: inboxAt.Add(time.Hour),
			{43, 1000}: inboxAt,
		}
		for k, at := range taken {
			err := old.gorm.Exec(`INSERT INTO telegram_updates (bot_id, update_id, taken_at) VALUES (?, ?, ?)`,
				k[0], k[1], dbTime(at)).Error
			if err != nil {
				t.Fatal(err)
			}
		}
		old.Close()

		db := openTest(t, databaseURL)
		for k, at := range taken {
			r, ok := storedUpdate(t, db, k[0], k[1])
			want := inboxRow{received: at, done: sql.NullTime{Time: at, Valid: true}}
			if !ok || r.member != 0 || r.body != nil || !r.received.Equal(at) || !r.done.Valid || !r.done.Time.Equal(at) {
				t.Errorf("update %d of bot %d = %v, %v; want %v", k[1], k[0], r, ok, want)
			}
		}
		if n := add(t, db, 42, updates(1000, 1001, 1002)...); n != 1 {
			t.Errorf("AddUpdates(two updates taken before the upgrade, a new one) = %d, want 1", n)
		}
		if n := add(t, db, 43, updates(1000)...); n != 0 {
			t.Errorf("AddUpdates(another bot's update taken before the upgrade) = %d, want 0", n)
		}
		if got, want := pendingIDs(t, db, 42, 10), []int64{1002}; !slices.Equal(got, want) {
			t.Errorf("pending after the upgrade = %v, want %v", got, want)
		}
		if err := db.gorm.Exec(`SELECT 1 FROM telegram_updates`).Error; err == nil {
			t.Error("telegram_updates still exists")
		}
		// The retention after 1000 was taken, not after 1001.
		finish(t, db, 42, inboxAt.Add(core.InboxRetention+30*time.Minute), 1002)
		if n := add(t, db, 42, updates(1000, 1001)...); n != 1 {
			t.Errorf("AddUpdates(1000 and 1001) after the retention of 1000 = %d, want 1", n)
		}
	})
}

// BenchmarkInbox measures one AddUpdates of one new update and one
// FinishUpdates of one id, each call on its own, on each dialect.
func BenchmarkInbox(b *testing.B) {
	benchEachDB(b, benchmarkInbox)
}

func benchmarkInbox(b *testing.B, db *DB) {
	body := []byte(`{"update_id":1,"message":{"message_id":1,"from":{"id":7,"is_bot":false,"first_name":"A"},` +
		`"chat":{"id":7,"type":"private"},"date":1700000000,"text":"/claim"}}`)
	var next int64
	b.Run("AddUpdates", func(b *testing.B) {
		for b.Loop() {
			next++
			u := []core.InboxUpdate{{ID: next, Member: 7, Body: body}}
			if n, err := db.AddUpdates(b.Context(), 42, u); n != 1 || err != nil {
				b.Fatalf("AddUpdates() = %d, %v", n, err)
			}
		}
	})
	b.Run("FinishUpdates", func(b *testing.B) {
		// Updates enough for any b.N: b.Loop's first pass is short.
		if n, _ := db.InboxBacklog(b.Context(), 42); n < 100_000 {
			batch := make([]core.InboxUpdate, 1000)
			for range (100_000 - n + len(batch) - 1) / len(batch) {
				for i := range batch {
					next++
					batch[i] = core.InboxUpdate{ID: next, Member: 7, Body: body}
				}
				if _, err := db.AddUpdates(b.Context(), 42, batch); err != nil {
					b.Fatal(err)
				}
			}
		}
		pending, err := db.PendingUpdates(b.Context(), 42, 0, 100_000)
		if err != nil {
			b.Fatal(err)
		}
		i := 0
		at := time.Now()
		for b.Loop() {
			if i == len(pending) {
				b.Fatal("out of pending updates")
			}
			if err := db.FinishUpdates(b.Context(), 42, []int64{pending[i].ID}, at); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// ids returns the ids of us, in order.
func ids(us []core.InboxUpdate) []int64 {
	var out []int64
	for _, u := range us {
		out = append(out, u.ID)
	}
	return out
}
