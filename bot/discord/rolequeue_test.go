package discord

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestGuildQueues checks that a server's jobs run one at a time in the
// order they came, that another server's do not wait for them, and that
// a job whose context ended while it waited does not run.
func TestGuildQueues(t *testing.T) {
	t.Parallel()
	q := newGuildQueues()
	ctx := timeout(t, 10*time.Second)
	var mu sync.Mutex
	var order []int
	job := func(i int) func(context.Context) error {
		return func(context.Context) error {
			mu.Lock()
			defer mu.Unlock()
			order = append(order, i)
			return nil
		}
	}
	release := make(chan struct{})
	dones := []<-chan error{q.submit(ctx, "g1", func(ctx context.Context) error {
		<-release
		return job(1)(ctx)
	})}
	for i := 2; i <= 5; i++ {
		dones = append(dones, q.submit(ctx, "g1", job(i)))
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	skipped := q.submit(cancelled, "g1", job(99))

	if err := q.do(ctx, "g2", func(context.Context) error { return nil }); err != nil {
		t.Fatalf("a job of another server = %v, want nil while the first waits", err)
	}
	close(release)
	for i, done := range dones {
		if err := <-done; err != nil {
			t.Errorf("job %d = %v", i+1, err)
		}
	}
	if err := <-skipped; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled job = %v, want context.Canceled", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []int{1, 2, 3, 4, 5}; !cmp.Equal(order, want) {
		t.Errorf("jobs ran in order %v, want %v", order, want)
	}
}
