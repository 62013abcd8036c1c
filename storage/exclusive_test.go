package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/poapbot/poapbot/storage/storagetest"
)

func TestDB_TryExclusive(t *testing.T) {
	t.Parallel()
	eachMigrated(t, func(t *testing.T, newURL func() string) {
		url := newURL()
		// Two replicas (or, on SQLite, two users of the file in one
		// process).
		dbs := replicas(t, url, 2)
		a, b := dbs[0], dbs[1]
		entered, release := make(chan struct{}), make(chan struct{})
		done := make(chan error, 1)
		go func() {
			ran, err := a.TryExclusive(t.Context(), "job", func(context.Context) error {
				close(entered)
				<-release
				return nil
			})
			if !ran && err == nil {
				err = errors.New("the first caller did not run")
			}
			done <- err
		}()
		<-entered

		ran, err := b.TryExclusive(t.Context(), "job", func(context.Context) error {
			t.Error("fn ran while another caller held the lock")
			return nil
		})
		if ran || err != nil {
			t.Errorf("TryExclusive(held) = %v, %v; want false, nil", ran, err)
		}
		ran, err = b.TryExclusive(t.Context(), "other job", func(context.Context) error { return nil })
		if !ran || err != nil {
			t.Errorf("TryExclusive(another name) = %v, %v; want true, nil", ran, err)
		}
		close(release)
		if err := <-done; err != nil {
			t.Errorf("first TryExclusive: %v", err)
		}

		// Released: the next caller runs, and gets fn's error.
		boom := errors.New("boom")
		ran, err = b.TryExclusive(t.Context(), "job", func(context.Context) error { return boom })
		if !ran || !errors.Is(err, boom) {
			t.Errorf("TryExclusive(released) = %v, %v; want true, %v", ran, err, boom)
		}
		ran, err = a.TryExclusive(t.Context(), "job", func(context.Context) error { return nil })
		if !ran || err != nil {
			t.Errorf("TryExclusive(after an error) = %v, %v; want true, nil", ran, err)
		}
	})
}

// A canceled job still releases the lock.
func TestDB_TryExclusive_Canceled(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		ctx, cancel := context.WithCancel(t.Context())
		ran, err := db.TryExclusive(ctx, "job", func(ctx context.Context) error {
			cancel()
			return ctx.Err()
		})
		if !ran || !errors.Is(err, context.Canceled) {
			t.Errorf("TryExclusive(canceled inside) = %v, %v; want true, %v", ran, err, context.Canceled)
		}
		ran, err = db.TryExclusive(t.Context(), "job", func(context.Context) error { return nil })
		if !ran || err != nil {
			t.Errorf("TryExclusive(after a canceled job) = %v, %v; want true, nil", ran, err)
		}
	})
}

// TestDB_TryExclusive_SessionLost: when the session holding the advisory
// lock dies (here killed by an administrator; a failover or a cut network
// alike), the job's context is cancelled: the lock is gone, and another
// replica may take it.
func TestDB_TryExclusive_SessionLost(t *testing.T) {
	t.Parallel()
	base := os.Getenv(storagetest.EnvURL)
	if base == "" {
		t.Skip(storagetest.EnvURL + " is not set")
	}
	dbs := replicas(t, storagetest.PostgresURL(t, base), 2)
	a, other := dbs[0], dbs[1]
	a.lockCheck = 20 * time.Millisecond
	ran, err := a.TryExclusive(t.Context(), "job", func(ctx context.Context) error {
		var pid int
		err := other.sql.QueryRowContext(ctx, `
			SELECT pid FROM pg_locks
			WHERE locktype = 'advisory' AND objsubid = 2 AND granted
			  AND classid::bigint = (hashtext('poapbot:' || current_schema())::bigint & 4294967295)
			  AND objid::bigint = (hashtext('job')::bigint & 4294967295)`).Scan(&pid)
		if err != nil {
			return fmt.Errorf("the lock's session: %w", err)
		}
		if _, err := other.sql.ExecContext(ctx, `SELECT pg_terminate_backend($1)`, pid); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Second):
			return errors.New("the job ran on for 10 s after its lock's session died")
		}
	})
	if !ran || !errors.Is(err, context.Canceled) {
		t.Errorf("TryExclusive(session killed) = %v, %v; want true, context.Canceled", ran, err)
	}
	if ran, err := other.TryExclusive(t.Context(), "job", func(context.Context) error { return nil }); !ran || err != nil {
		t.Errorf("TryExclusive(after the session died) = %v, %v; want true, nil", ran, err)
	}
}
