package discord

import (
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	t.Parallel()
	l := newLimiter(2)
	for range 2 {
		if !l.tryStart() {
			t.Fatal("tryStart() = false with free slots, want true")
		}
	}
	if l.tryStart() {
		t.Fatal("tryStart() = true with every slot taken, want false")
	}
	l.queue()
	l.release()
	if l.tryStart() {
		t.Error("tryStart() = true while a command is queued, want false: newcomers queue behind it")
	}
	started := make(chan struct{})
	go func() { l.start(time.Time{}); close(started) }()
	<-started // the queued command takes the free slot
	if l.tryStart() {
		t.Error("tryStart() = true with every slot taken again, want false")
	}
	l.release()
	if !l.tryStart() {
		t.Error("tryStart() = false with a free slot and nothing queued, want true")
	}
}
