package core_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/storage/storagetest"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

// burst is a large call's voice events: n events over members, one a
// second from attT0 plus a second, each a join of the session's channel
// ("stage"), a move to another, a leave or a (un)deafen; with the seconds
// each member spends in the stage not deafened until the stop (end), as a
// model computes them.
type burst struct {
	events []core.VoiceState
	end    time.Time
	want   map[string]int64
}

// newBurst builds a burst of n events over members members; the same seed
// gives the same burst.
func newBurst(n, members int, seed uint64) burst {
	rng := rand.New(rand.NewPCG(seed, seed))
	type state struct {
		channel string
		deaf    bool
		since   time.Time // when the current counting stretch began
	}
	states := make([]state, members)
	b := burst{want: map[string]int64{}}
	counts := func(s state) bool { return s.channel == "stage" && !s.deaf }
	for i := range n {
		at := attT0.Add(time.Duration(i+1) * time.Second)
		m := rng.IntN(members)
		s := states[m]
		next := s
		switch rng.IntN(4) {
		case 0:
			next.channel = "stage"
		case 1:
			next.channel = "other"
		case 2:
			next.channel, next.deaf = "", false
		case 3:
			next.deaf = !s.deaf
			if next.channel == "" {
				next.channel = "stage"
			}
		}
		id := fmt.Sprintf("m%04d", m)
		if counts(s) && !counts(next) {
			b.want[id] += int64(at.Sub(s.since) / time.Second)
		}
		if !counts(s) && counts(next) {
			next.since = at
		}
		states[m] = next
		b.events = append(b.events, core.VoiceState{Member: member(id), ChannelID: next.channel, Deafened: next.deaf, At: at})
	}
	b.end = attT0.Add(time.Duration(n+1) * time.Second)
	for m, s := range states {
		if counts(s) {
			b.want[fmt.Sprintf("m%04d", m)] += int64(b.end.Sub(s.since) / time.Second)
		}
	}
	for id, secs := range b.want {
		if secs == 0 {
			delete(b.want, id)
		}
	}
	return b
}

// TestAttendance_Burst feeds 5,000 voice-state events over 1,000 members
// through Observe, 8 at a time (each member's events in order, as the
// adapter delivers them), on SQLite and PostgreSQL, and checks that every
// second the model counts is in the results.
func TestAttendance_Burst(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("5,000 events: not in -short")
	}
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		feedBurst(t, newAttendanceRig(t, newURL(), 0), newBurst(5000, 1000, 26))
	})
}

// feedBurst feeds b through Observe during a session, 8 goroutines at a
// time, stops the session and compares the results with b's model.
func feedBurst(t *testing.T, r *attendanceRig, b burst) {
	sess := r.start("stage", "10m")
	const workers = 8
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Go(func() {
			for i, v := range b.events {
				var m int
				fmt.Sscanf(v.Member.ExternalID, "m%d", &m)
				if m%workers != w {
					continue
				}
				if err := r.svc.Observe(r.ctx, r.place, v); err != nil {
					errs[w] = fmt.Errorf("event %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	r.clock.Add(b.end.Sub(r.clock.Now()))
	sum := r.stop("stage")

	page, err := r.svc.Members(r.ctx, r.place, sess.ID, 0, 2000)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, res := range page.Results {
		if res.Seconds > 0 {
			u, err := r.db.UserByID(r.ctx, res.UserID)
			if err != nil {
				t.Fatal(err)
			}
			got[u.ExternalID] = res.Seconds
		}
	}
	if diff := cmp.Diff(b.want, got); diff != "" {
		t.Errorf("seconds per member after the burst (-model +stored):\n%s", diff)
	}
	if sum.Attended != len(b.want) {
		t.Errorf("summary attended = %d, want %d", sum.Attended, len(b.want))
	}
}

// BenchmarkAttendance_Observe measures Observe during an open session: a
// burst's events (joins, moves, leaves, deafens over 1,000 members), one
// after another, on SQLite and, when TEST_DATABASE_URL is set, PostgreSQL.
func BenchmarkAttendance_Observe(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchObserve(b, storagetest.SQLiteURL(b)) })
	if base := os.Getenv(storagetest.EnvURL); base != "" {
		b.Run("postgres", func(b *testing.B) { benchObserve(b, storagetest.PostgresURL(b, base)) })
	}
}

func benchObserve(b *testing.B, url string) {
	r := newAttendanceRig(b, url, 0)
	r.start("stage", "10m")
	events := newBurst(5000, 1000, 26).events
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		v := events[i%len(events)]
		v.At = attT0.Add(time.Duration(i+1) * time.Second)
		if err := r.svc.Observe(r.ctx, r.place, v); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
	b.StopTimer()
	// The heap kept after the events, garbage collected: what the service
	// and the database handles hold, which must not grow with the call.
	b.ReportMetric(float64(int64(heap())-int64(before))/1024, "heap-KB-kept")
}
