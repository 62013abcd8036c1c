package core_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/internal/heapwatch"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// The sweep of the scale: one server, 10,000 verified members,
// 5 gated drops of 2,000 holders each, against the sandbox over HTTP.
const (
	sweepMembers = 10_000
	sweepDrops   = 5
	sweepHolders = 2_000
	// maxSweepCalls is the bound the plan must meet: 5 drops of 7 pages.
	maxSweepCalls = 35
	maxSweepHeap  = 64 << 20
)

// sweepWorld is a gate service over a MemStore of verified members, the
// sandbox holding the drops, and a platform whose roles are in memory.
type sweepWorld struct {
	svc     *core.GateService
	sb      *sandbox.Server
	place   core.Place
	actions *fakeActions
}

// newSweepWorld builds the world; rate paces the client's calls to the
// issuing service (poap.Options.RateLimit: 0 is the default pacing of a
// deployment, -1 none).
func newSweepWorld(tb testing.TB, rate float64) *sweepWorld {
	tb.Helper()
	ctx := context.Background()
	sb := sandbox.New(sandbox.Options{APIKey: "bench-key"})
	srv := httptest.NewServer(sb)
	tb.Cleanup(srv.Close)
	client, err := poap.NewClient(poap.Options{BaseURL: srv.URL, APIKey: "bench-key", Timeout: 30 * time.Second, RateLimit: rate})
	if err != nil {
		tb.Fatal(err)
	}
	store := coretest.NewMemStore()
	w := &sweepWorld{sb: sb, place: core.Place{Platform: core.Discord, ExternalID: "guild", Name: "Big server"},
		actions: newActions(core.GateRole)}
	w.svc, err = core.NewGateService(core.GateServiceDeps{Members: store, Gates: store, Issuer: poap.NewGateIssuer(client),
		Locks: coretest.NewLocks(), Audit: store, Check: issuerLines{}, Actions: map[core.Platform]core.GateActions{core.Discord: w.actions}})
	if err != nil {
		tb.Fatal(err)
	}
	// The gate comes first, while nobody holds its drops, so that the
	// first sync a new gate runs (in the background) is not the one
	// measured.
	var (
		drops string
		ids   []int64
	)
	for d := range sweepDrops {
		drop := sb.AddDrop(sandbox.Drop{Name: fmt.Sprintf("Gated %d", d)})
		ids = append(ids, drop.ID)
		if d > 0 {
			drops += ","
		}
		drops += fmt.Sprint(drop.ID)
	}
	g, err := w.svc.AddGate(ctx, core.Member{Platform: core.Discord, ExternalID: "mod"}, w.place,
		core.GateSpec{Target: "role", Drops: drops, Mode: "any"})
	if err != nil {
		tb.Fatal(err)
	}
	if err := w.svc.Wait(ctx); err != nil {
		tb.Fatal(err)
	}
	addrs := make([]string, sweepMembers)
	for i := range addrs {
		addrs[i] = fmt.Sprintf("0x%040x", i+1)
		u, err := store.UpsertUser(ctx, core.User{Platform: core.Discord, ExternalID: fmt.Sprintf("%d", 1000+i), Name: fmt.Sprintf("member %d", i)})
		if err != nil {
			tb.Fatal(err)
		}
		at := time.Now()
		if _, err := store.AddWallet(ctx, core.Wallet{UserID: u.ID, Platform: core.Discord, Kind: core.KindAddress,
			Value: addrs[i], Address: addrs[i], VerifiedAt: &at}); err != nil {
			tb.Fatal(err)
		}
		// In the server, as their join or /verify recorded.
		if err := store.SeeMember(ctx, g.PlaceID, u.ID, at); err != nil {
			tb.Fatal(err)
		}
	}
	for d, id := range ids {
		// Drop d is held by members d*2000 .. d*2000+1999.
		if err := sb.SeedHolders(id, addrs[d*sweepHolders:(d+1)*sweepHolders]); err != nil {
			tb.Fatal(err)
		}
	}
	return w
}

// calls is the number of issuing-service calls a sweep makes: holder
// pages and scans.
func (w *sweepWorld) calls() int {
	return w.sb.Requests(wire.OpHolders) + w.sb.Requests(wire.OpScan)
}

// measure runs one /gate sync and returns its report, the calls it made
// and the peak growth of the heap while it ran.
func (w *sweepWorld) measure(tb testing.TB) (core.SyncReport, int, uint64) {
	tb.Helper()
	before := w.calls()
	var r core.SyncReport
	var err error
	peak, _ := heapwatch.Measure(func() { r, err = w.svc.SyncPlace(context.Background(), w.place) })
	if err != nil {
		tb.Fatal(err)
	}
	return r, w.calls() - before, peak
}

// TestSweep_TenThousandMembers: one sweep of 10,000 verified members and 5
// drops of 2,000 holders reads the holder pages (35 calls), not a scan per
// member, grants every holder once, and grows the heap by less than 64 MB.
func TestSweep_TenThousandMembers(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 members: not in -short")
	}
	if raceDetector {
		// A scale figure, not a concurrency test: the plain pass of CI
		// (go test ./...) runs it; under -race it would only starve the
		// timing-bound tests of the packages running beside it.
		t.Skip("10,000 members: measured by the plain pass, not under -race")
	}
	w := newSweepWorld(t, -1)
	r, calls, peak := w.measure(t)
	if calls > maxSweepCalls || r.IssuerCalls != calls || r.Plan != core.PlanHolders {
		t.Errorf("sweep made %d calls (reported %d, plan %s), want at most %d by holder pages", calls, r.IssuerCalls, r.Plan, maxSweepCalls)
	}
	if len(r.Results) != 1 || len(r.Results[0].Gained) != sweepDrops*sweepHolders || r.Results[0].Checked != sweepMembers {
		t.Errorf("results: %d gate(s), %d gained, %d checked; want %d gained of %d", len(r.Results),
			len(r.Results[0].Gained), r.Results[0].Checked, sweepDrops*sweepHolders, sweepMembers)
	}
	if peak >= maxSweepHeap {
		t.Errorf("heap grew by %d MB during the sweep, want under %d MB", peak>>20, maxSweepHeap>>20)
	}
	t.Logf("sweep: %d calls (%s), heap growth peak %.1f MB", calls, r.Plan, float64(peak)/(1<<20))
}

// BenchmarkSweep_TenThousandMembers reports the wall time of a sweep of
// the scale (all holders already granted: the steady state), its
// calls and its peak heap growth: "paced" with the client's default pacing
// of the issuing service (poap.DefaultRateLimit calls a second after a
// burst of poap.DefaultRateBurst), as a deployment runs it, and "unpaced",
// the bot's own cost. Run: go test ./core -run '^$' -bench Sweep
// -benchtime 5x
func BenchmarkSweep_TenThousandMembers(b *testing.B) {
	for _, bc := range []struct {
		name string
		rate float64
	}{{"paced", 0}, {"unpaced", -1}} {
		b.Run(bc.name, func(b *testing.B) {
			w := newSweepWorld(b, bc.rate)
			w.measure(b) // the first sweep grants; the benchmark measures the next ones
			var calls int
			var peak uint64
			b.ResetTimer()
			for range b.N {
				_, c, p := w.measure(b)
				calls = max(calls, c)
				peak = max(peak, p)
			}
			b.ReportMetric(float64(calls), "calls/sweep")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}
