package discord

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
	go func() { l.start("alice", time.Time{}); close(started) }()
	<-started // the queued command takes the free slot
	if l.tryStart() {
		t.Error("tryStart() = true with every slot taken again, want false")
	}
	l.release()
	if !l.tryStart() {
		t.Error("tryStart() = false with a free slot and nothing queued, want true")
	}
}

// TestLimiter_Turns: queued commands get the slots in turns by member, so
// that one member's burst waits behind another member's command rather
// than ahead of it; each member's commands keep their order.
func TestLimiter_Turns(t *testing.T) {
	t.Parallel()
	l := newLimiter(1)
	if !l.tryStart() {
		t.Fatal("tryStart() = false on an idle limiter")
	}
	// The burst arrives: the busy member's five commands, then bob's one.
	type waiter struct {
		name string
		slot <-chan struct{}
	}
	var ws []waiter
	for i := range 5 {
		l.queue()
		ws = append(ws, waiter{fmt.Sprint("alice", i), l.enter("alice")})
	}
	l.queue()
	ws = append(ws, waiter{"bob0", l.enter("bob")})
	var got []string
	for range ws {
		l.release()
		for i, w := range ws {
			select {
			case <-w.slot:
				got = append(got, w.name)
				ws[i].slot = nil // served; a nil channel is never ready
			default:
			}
		}
	}
	want := []string{"alice0", "bob0", "alice1", "alice2", "alice3", "alice4"}
	if !cmp.Equal(got, want) {
		t.Errorf("slots went to %v, want %v: bob's one command in the next turn", got, want)
	}
	if l.tryStart() {
		t.Error("tryStart() = true with the slot taken, want false")
	}
}

// TestLimiter_Quiet: a queued command waits for its interaction's window
// to close while another interaction waits for its acknowledgement, and
// once none does, it takes its turn at once.
func TestLimiter_Quiet(t *testing.T) {
	t.Parallel()
	for name, end := range map[string]func(acked func(), window chan time.Time){
		"Acknowledged": func(acked func(), _ chan time.Time) { acked(); acked() /* once is enough */ },
		"WindowClosed": func(_ func(), window chan time.Time) { window <- time.Now() },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l := newLimiter(1)
			waiting, window := make(chan struct{}), make(chan time.Time, 1)
			l.after = func(time.Duration) <-chan time.Time { close(waiting); return window }
			acked := l.acking() // a burst's interaction, not acknowledged yet
			l.queue()
			started := make(chan struct{})
			go func() {
				l.start("bob", time.Now().Add(time.Hour))
				close(started)
			}()
			select {
			case <-waiting:
			case <-started:
				t.Fatal("the queued command started without waiting for its window or the acknowledgements")
			}
			l.mu.Lock()
			running, queued := l.running, l.queued
			l.mu.Unlock()
			if running != 0 || queued != 1 {
				t.Fatalf("running %d, queued %d; want the command still queued while an acknowledgement is pending and its window open", running, queued)
			}
			end(acked, window)
			<-started
			if l.tryStart() {
				t.Error("tryStart() = true with the slot taken, want false")
			}
		})
	}
}
