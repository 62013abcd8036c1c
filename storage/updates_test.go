package storage

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestDB_TakeUpdate: an update is taken once, however many replicas race
// for it; another bot's update of the same number is its own; updates are
// forgotten after the retention, not before.
func TestDB_TakeUpdate(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
		var firsts atomic.Int32
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				first, err := db.TakeUpdate(t.Context(), 42, 1000, at)
				if err != nil {
					t.Errorf("TakeUpdate() = %v", err)
				}
				if first {
					firsts.Add(1)
				}
			})
		}
		wg.Wait()
		if n := firsts.Load(); n != 1 {
			t.Errorf("20 takes of one update: %d first, want 1", n)
		}
		if first, err := db.TakeUpdate(t.Context(), 43, 1000, at); err != nil || !first {
			t.Errorf("TakeUpdate(another bot) = %v, %v; want its own first take", first, err)
		}
		// An hour and a half later nothing is forgotten: still a repeat.
		if first, _ := db.TakeUpdate(t.Context(), 42, 1000, at.Add(90*time.Minute)); first {
			t.Error("TakeUpdate() 90 minutes later = first, want a repeat")
		}
		// Past the retention, the next take forgets the old rows.
		db.pruned.at = time.Time{}
		if _, err := db.TakeUpdate(t.Context(), 42, 2000, at.Add(updateRetention+time.Hour)); err != nil {
			t.Fatal(err)
		}
		if first, _ := db.TakeUpdate(t.Context(), 42, 1000, at.Add(updateRetention+time.Hour)); !first {
			t.Error("TakeUpdate() after the retention = repeat, want the old record forgotten")
		}
	})
}
