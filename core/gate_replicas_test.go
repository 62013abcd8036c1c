package core_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/storage"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

// blockingActions is a platform whose Standing blocks until released, so
// that a test holds a sweep in the middle of a place.
type blockingActions struct {
	*fakeActions
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func (b *blockingActions) Standing(ctx context.Context, place string, t core.GateTarget, member string) (core.Standing, error) {
	b.once.Do(func() { close(b.entered) })
	select {
	case <-b.release:
	case <-ctx.Done():
		return core.Standing{}, ctx.Err()
	}
	return b.fakeActions.Standing(ctx, place, t, member)
}

// TestGate_ReplicasNeverSweepAPlaceTogether: two replicas on one database
// (on PostgreSQL, two processes' handles) never run the same place's sweep
// at the same time: while one is inside it, the other's /gate sync and
// scheduled sweep do not start it; once it ends, the other may.
func TestGate_ReplicasNeverSweepAPlaceTogether(t *testing.T) {
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		ctx := context.Background()
		url := newURL()
		key, err := storage.ParseKey(strings.Repeat("cd", 32))
		if err != nil {
			t.Fatal(err)
		}
		open := func() *storage.DB {
			db, err := storage.Open(ctx, url, storage.WithKey(key))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		}
		first := open()
		second := first
		if !strings.HasPrefix(url, "sqlite:") {
			second = open() // SQLite is held by one process: its replicas are goroutines
		}
		issuer := newHoldersFake()
		place := core.Place{Platform: core.Console, ExternalID: "console", Name: "console"}
		replica := func(db *storage.DB, a core.GateActions) *core.GateService {
			svc, err := core.NewGateService(core.GateServiceDeps{Members: db, Gates: db, Issuer: issuer, Locks: db, Audit: db, Check: issuerLines{},
				Actions: map[core.Platform]core.GateActions{core.Console: a}})
			if err != nil {
				t.Fatal(err)
			}
			return svc
		}
		blocking := &blockingActions{fakeActions: newActions(core.GateRole), entered: make(chan struct{}), release: make(chan struct{})}
		a := replica(first, newActions(core.GateRole))
		b := replica(second, blocking)

		u, err := first.UpsertUser(ctx, core.User{Platform: core.Console, ExternalID: "alice", Name: "alice"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := storageVerified(ctx, first, u, addrA); err != nil {
			t.Fatal(err)
		}
		issuer.give(addrA, 12)
		if _, err := a.AddGate(ctx, core.Member{Platform: core.Console, ExternalID: "console"}, place, core.GateSpec{Target: "holders", Drops: "12"}); err != nil {
			t.Fatal(err)
		}
		if err := a.Wait(ctx); err != nil {
			t.Fatal(err)
		}

		// Replica b enters the place's sweep and stays there.
		bDone := make(chan error, 1)
		go func() { _, err := b.SyncPlace(ctx, place); bDone <- err }()
		<-blocking.entered

		// Replica a may not start it meanwhile: neither /gate sync (it
		// waits, then says a sync runs) nor the scheduled sweep.
		short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		if _, err := a.SyncPlace(short, place); !errors.Is(err, core.ErrSyncRunning) {
			t.Errorf("a's /gate sync during b's = %v, want ErrSyncRunning", err)
		}
		r, err := a.Sweep(ctx)
		if err != nil {
			t.Fatalf("a's scheduled sweep during b's /gate sync = %v", err)
		}
		if len(r.Results) != 0 {
			t.Errorf("a's scheduled sweep applied %d gates of the place b is sweeping", len(r.Results))
		}
		close(blocking.release)
		if err := <-bDone; err != nil {
			t.Fatalf("b's sync = %v", err)
		}
		if _, err := a.SyncPlace(ctx, place); err != nil {
			t.Errorf("a's /gate sync after b's ended = %v", err)
		}
	})
}

// storageVerified links address to u as a verified wallet, through the
// store's own linking and challenge path.
func storageVerified(ctx context.Context, db *storage.DB, u core.User, address string) (core.Wallet, error) {
	now := time.Now().UTC()
	c := &core.Challenge{Address: address, Nonce: strings.Repeat("ab", 16), Message: "m", IssuedAt: now, ExpiresAt: now.Add(time.Hour)}
	limits := core.LinkLimits{Wallets: core.DefaultMaxWallets, Challenges: core.DefaultMaxChallenges}
	if _, err := db.LinkWallet(ctx, u, core.Wallet{Kind: core.KindAddress, Value: address}, c, limits); err != nil {
		return core.Wallet{}, err
	}
	v, err := db.UseChallenge(ctx, c.Nonce, address, 0, now)
	return v.Wallet, err
}
