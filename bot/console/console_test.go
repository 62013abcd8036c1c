package console_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/console"
	"github.com/poapbot/poapbot/core/coretest"
)

func newBot() *bot.Bot {
	b := bot.New(bot.Services(coretest.NewServices(coretest.Deps{})), bot.Options{})
	return b
}

func TestConsole_Run(t *testing.T) {
	in := strings.NewReader("/help\n\nhello\n/poaps 0x12\n/as alice\n/as two words\n/as " + strings.Repeat("x", 65) + "\n/poaps 0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")
	var out strings.Builder
	if err := console.New(in, &out, false).Run(context.Background(), newBot()); err != nil {
		t.Fatalf("Run() = %v, want nil at end of input", err)
	}
	got := out.String()
	for _, want := range []string{
		"/poaps [wallet] [member]",
		"/as NAME acts as another member",
		"Commands start with a slash",
		"That wallet doesn't look right",
		"You are now alice, a member.",
		"Give one name: /as alice",
		"Give a shorter name, at most 64",
		"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed holds no POAPs yet",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "console> ") {
		t.Errorf("piped input got a prompt:\n%s", got)
	}
}

func TestConsole_Run_Interactive(t *testing.T) {
	var out strings.Builder
	if err := console.New(strings.NewReader("/as bob\n/quit\n/help\n"), &out, true).Run(context.Background(), newBot()); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.HasPrefix(got, "console> ") || !strings.Contains(got, "bob> ") {
		t.Errorf("interactive output lacks prompts:\n%s", got)
	}
	if strings.Contains(got, "Commands") {
		t.Errorf("a line after /quit was run:\n%s", got)
	}
}

func TestConsole_Run_LongLine(t *testing.T) {
	in := strings.NewReader("/poaps " + strings.Repeat("a", 100<<10) + "\n/poaps 0x12\n")
	var out strings.Builder
	if err := console.New(in, &out, false).Run(context.Background(), newBot()); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "too long") || !strings.Contains(got, "doesn't look right") {
		t.Errorf("a long line did not get its message, or stopped the session:\n%s", got)
	}
}

func TestConsole_Run_Cancel(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- console.New(pr, io.Discard, false).Run(ctx, newBot()) }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run() after cancel = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run() did not return after cancel")
	}
}

// TestConsole_RunTwice: a second Run is refused, since it would read the
// same input as the first.
func TestConsole_RunTwice(t *testing.T) {
	c := console.New(strings.NewReader(""), io.Discard, false)
	if err := c.Run(t.Context(), nil); err != nil {
		t.Fatalf("first Run at the end of its input = %v, want nil", err)
	}
	if err := c.Run(t.Context(), nil); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("second Run = %v, want refused", err)
	}
}
