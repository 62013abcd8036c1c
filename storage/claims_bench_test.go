package storage

import (
	"fmt"
	"math"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/storage/storagetest"
)

// benchClaimers is how many members claim at the same moment in
// BenchmarkClaimMintLink: a rush on a popular drop, each claim a separate
// member's command.
const benchClaimers = 16

// BenchmarkClaimMintLink measures ClaimMintLink under a rush: benchClaimers
// goroutines hand out b.N links of one drop to b.N distinct members, as
// fast as the database allows. It reports the claims per second and the
// 50th and 99th percentiles of one claim's latency (queueing for a
// connection included). docs/benchmarks.md has the figures and command.
func BenchmarkClaimMintLink(b *testing.B) {
	benchEachDB(b, benchmarkClaimMintLink)
}

// benchEachDB runs f as the sub-benchmark "sqlite" on a new SQLite file,
// and "postgres" on a new schema when TEST_DATABASE_URL is set.
func benchEachDB(b *testing.B, f func(b *testing.B, db *DB)) {
	run := func(b *testing.B, url string) {
		db, err := Open(b.Context(), url, WithKey(testKey))
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		f(b, db)
	}
	b.Run("sqlite", func(b *testing.B) { run(b, storagetest.SQLiteURL(b)) })
	b.Run("postgres", func(b *testing.B) {
		base := os.Getenv(storagetest.EnvURL)
		if base == "" {
			b.Skip(storagetest.EnvURL + " is not set")
		}
		run(b, storagetest.PostgresURL(b, base))
	})
}

func benchmarkClaimMintLink(b *testing.B, db *DB) {
	dropID, users := benchDrop(b, db, b.N)

	latencies := make([]time.Duration, b.N)
	var next atomic.Int64
	var failed atomic.Pointer[error]
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for range benchClaimers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < b.N; i = int(next.Add(1) - 1) {
				t0 := time.Now()
				_, again, err := db.ClaimMintLink(b.Context(), dropID, users[i], "", t0)
				latencies[i] = time.Since(t0)
				if err == nil && again {
					err = fmt.Errorf("member %d got a link again", users[i])
				}
				if err != nil {
					failed.CompareAndSwap(nil, &err)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err := failed.Load(); err != nil {
		b.Fatalf("ClaimMintLink() = %v", *err)
	}
	slices.Sort(latencies)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "claims/s")
	b.ReportMetric(ms(percentile(latencies, 0.50)), "p50-ms")
	b.ReportMetric(ms(percentile(latencies, 0.99)), "p99-ms")
}

// benchDrop creates n members and a drop of n links, and returns the
// drop's id and the members' ids.
func benchDrop(b *testing.B, db *DB, n int) (int64, []int64) {
	b.Helper()
	ctx := b.Context()
	tn, err := db.UpsertPlace(ctx, core.Place{Platform: core.Discord, ExternalID: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	rows := make([]userRow, n)
	for i := range rows {
		rows[i] = userRow{Platform: string(core.Discord), ExternalID: fmt.Sprintf("bench-%d", i), CreatedAt: now(), UpdatedAt: now()}
	}
	if err := db.gorm.WithContext(ctx).CreateInBatches(rows, 1000).Error; err != nil {
		b.Fatal(err)
	}
	users := make([]int64, n)
	for i, r := range rows {
		users[i] = r.ID
	}
	links := make([]core.ImportedMintLink, n)
	for i := range links {
		links[i] = core.ImportedMintLink{QRHash: fmt.Sprintf("bench-%d", i)}
	}
	d := core.Drop{PlaceID: tn.ID, EventID: 1, EditCode: editCode, Method: core.ClaimLink}
	drop, _, err := db.AddDrop(ctx, d, links)
	if err != nil {
		b.Fatal(err)
	}
	return drop.ID, users
}

// percentile returns the p-th quantile of sorted durations (nearest rank).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(float64(len(sorted))*p)) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// ms converts d to milliseconds.
func ms(d time.Duration) float64 {
	return float64(d) / float64(time.Millisecond)
}
