// Package testlog captures log and console output in tests, where the code
// under test writes from its own goroutines while the test reads.
package testlog

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"sync"
)

// Buffer is an io.Writer that is safe for concurrent use; String returns
// everything written so far, and WaitFor waits for a write. The zero value
// is ready to use.
type Buffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	written chan struct{} // closed and replaced by every write; nil until a waiter needs it
}

// Write appends p to the buffer and wakes the waiters; it never fails.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written != nil {
		close(b.written)
		b.written = nil
	}
	return b.buf.Write(p)
}

// WaitFor waits until everything written so far satisfies cond, checking
// after every write, and returns it; or returns ctx's error.
func (b *Buffer) WaitFor(ctx context.Context, cond func(string) bool) (string, error) {
	for {
		b.mu.Lock()
		s := b.buf.String()
		if cond(s) {
			b.mu.Unlock()
			return s, nil
		}
		if b.written == nil {
			b.written = make(chan struct{})
		}
		written := b.written
		b.mu.Unlock()
		select {
		case <-written:
		case <-ctx.Done():
			return s, fmt.Errorf("testlog: %w", ctx.Err())
		}
	}
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Logger returns a logger that writes text lines at debug level and above
// into b, so that a test can check what would be logged, secrets included.
func (b *Buffer) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
