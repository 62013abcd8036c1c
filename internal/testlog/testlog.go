// Package testlog captures log and console output in tests, where the code
// under test writes from its own goroutines while the test reads.
package testlog

import (
	"bytes"
	"log/slog"
	"sync"
)

// Buffer is an io.Writer that is safe for concurrent use; String returns
// everything written so far. The zero value is ready to use.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p to the buffer; it never fails.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
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
