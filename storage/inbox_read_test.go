package storage

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

// TestDB_StoredUpdates: the updates above an id come lowest id first,
// pending and handled alike, a handled one without its body; those handled
// before the retention are left out as if pruned.
func TestDB_StoredUpdates(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		add(t, db, 42, update(14, 8, inboxAt), update(11, 7, inboxAt), update(12, 7, inboxAt), update(16, 7, inboxAt))
		add(t, db, 43, update(13, 9, inboxAt))
		done := inboxAt.Add(time.Minute)
		finish(t, db, 42, done, 12, 16)
		stored := func(after int64, at time.Time, limit int) []core.InboxUpdate {
			t.Helper()
			us, err := db.StoredUpdates(t.Context(), 42, after, at, limit)
			if err != nil {
				t.Fatalf("StoredUpdates(42, after %d, at %v, %d) = %v", after, at, limit, err)
			}
			return us
		}
		handled := func(id, member int64) core.InboxUpdate {
			return core.InboxUpdate{ID: id, Member: member, Received: inboxAt, Handled: true}
		}
		want := []core.InboxUpdate{update(11, 7, inboxAt), handled(12, 7), update(14, 8, inboxAt), handled(16, 7)}
		if diff := cmp.Diff(want, stored(0, done, 10)); diff != "" {
			t.Errorf("StoredUpdates(after 0) (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(want[1:3], stored(11, done, 2)); diff != "" {
			t.Errorf("StoredUpdates(after 11, limit 2) (-want +got):\n%s", diff)
		}
		if got := stored(16, done, 10); got != nil {
			t.Errorf("StoredUpdates(after the highest) = %v, want none", got)
		}
		if got := stored(0, done, 0); got != nil {
			t.Errorf("StoredUpdates(limit 0) = %v, want none", got)
		}
		// Past the retention of 12 and 16 the pending ones are left.
		if got := ids(stored(0, done.Add(core.InboxRetention+time.Second), 10)); !slices.Equal(got, []int64{11, 14}) {
			t.Errorf("StoredUpdates(after the retention) = %v, want [11 14]", got)
		}
		if got := ids(stored(0, done.Add(core.InboxRetention), 10)); !slices.Equal(got, []int64{11, 12, 14, 16}) {
			t.Errorf("StoredUpdates(at the end of the retention) = %v, want [11 12 14 16]", got)
		}
	})
}

// TestDB_HandledThrough: the highest id up to which every stored update is
// handled, the updates handled before the retention not counted.
func TestDB_HandledThrough(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		through := func(at time.Time) int64 {
			t.Helper()
			id, err := db.HandledThrough(t.Context(), 42, at)
			if err != nil {
				t.Fatalf("HandledThrough(42) = %v", err)
			}
			return id
		}
		if got := through(inboxAt); got != 0 {
			t.Errorf("HandledThrough(an empty inbox) = %d, want 0", got)
		}
		add(t, db, 42, updates(5, 6, 8, 9, 10)...)
		add(t, db, 43, updates(1)...)
		finish(t, db, 43, inboxAt, 1)
		if got := through(inboxAt); got != 0 {
			t.Errorf("HandledThrough(none handled) = %d, want 0", got)
		}
		finish(t, db, 42, inboxAt, 5, 6, 9)
		if got := through(inboxAt); got != 6 {
			t.Errorf("HandledThrough(5, 6 and 9 handled, 8 pending) = %d, want 6", got)
		}
		finish(t, db, 42, inboxAt.Add(time.Hour), 8, 10)
		if got := through(inboxAt.Add(time.Hour)); got != 10 {
			t.Errorf("HandledThrough(all handled) = %d, want 10", got)
		}
		// 5, 6 and 9 are past the retention, 8 and 10 not yet.
		if got := through(inboxAt.Add(core.InboxRetention + time.Minute)); got != 10 {
			t.Errorf("HandledThrough(after the retention of some) = %d, want 10", got)
		}
		add(t, db, 42, updates(7)...)
		if got := through(inboxAt.Add(core.InboxRetention + time.Minute)); got != 0 {
			t.Errorf("HandledThrough(7 pending, 5 and 6 past the retention) = %d, want 0", got)
		}
		if got := through(inboxAt.Add(time.Hour)); got != 6 {
			t.Errorf("HandledThrough(7 pending) = %d, want 6", got)
		}
	})
}
