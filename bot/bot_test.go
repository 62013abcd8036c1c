package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

const demo = "0xd3eeee483984730e415b604b6a526c504a7b1eca"

type stubIssuer struct {
	holdings []core.Holding
	err      error
}

func (s stubIssuer) Holdings(context.Context, string) ([]core.Holding, error) {
	return append([]core.Holding(nil), s.holdings...), s.err
}

// countingObserver records ObserveCommand calls.
type countingObserver struct{ seen []string }

func (o *countingObserver) ObserveCommand(platform, command, outcome string) {
	o.seen = append(o.seen, platform+"/"+command+"/"+outcome)
}

func newTestBot(scanner core.Scanner) (*Bot, *countingObserver) {
	obs := &countingObserver{}
	return New(Services(coretest.NewServices(coretest.Deps{Scanner: scanner})), Options{Observer: obs}), obs
}

func holdings(n int) []core.Holding {
	var hs []core.Holding
	for i := 1; i <= n; i++ {
		hs = append(hs, core.Holding{
			DropID: int64(i), DropName: fmt.Sprintf("Drop %02d", i), Chain: "xdai",
			MintedAt: time.Date(2024, 1, i, 0, 0, 0, 0, time.UTC), ImageURL: fmt.Sprintf("https://img.test/%d.png", i),
		})
	}
	return hs
}

// ignoreAction compares buttons but for the id of their stored action,
// which is random.
var ignoreAction = cmpopts.IgnoreFields(Button{}, "Action")

func runLine(t *testing.T, b *Bot, line string) Reply {
	t.Helper()
	req := &Request{Place: core.Place{Platform: core.Console, ExternalID: "console"}, Caller: Caller{ExternalID: "alice", Name: "alice"}}
	reply, ok := b.HandleLine(context.Background(), req, line, "")
	if !ok {
		t.Fatalf("HandleLine(%q) says not a command", line)
	}
	return reply
}

func TestBot_Poaps(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		b, obs := newTestBot(stubIssuer{holdings: holdings(14)})
		r := runLine(t, b, "/poaps "+demo)
		for _, want := range []string{"14, newest first", "(page 1 of 2)", "1. **Drop 14** · drop #14 · Gnosis · minted 2024-01-14 · [image](https://img.test/14.png?size=small)", "10. **Drop 05**"} {
			if !strings.Contains(r.Text, want) {
				t.Errorf("reply lacks %q:\n%s", want, r.Text)
			}
		}
		if strings.Contains(r.Text, "Drop 04") {
			t.Errorf("page 1 shows more than 10:\n%s", r.Text)
		}
		wantButtons := []Button{{Label: "Next", Command: "/poaps wallet:" + demo + " page:2"}}
		if !cmp.Equal(r.Buttons, wantButtons, ignoreAction) || r.Buttons[0].Action == "" {
			t.Errorf("buttons = %v, want %v with a stored action", r.Buttons, wantButtons)
		}
		if !cmp.Equal(obs.seen, []string{"console/poaps/ok"}) {
			t.Errorf("observed %v, want console/poaps/ok", obs.seen)
		}
	})
	t.Run("LastPage", func(t *testing.T) {
		b, _ := newTestBot(stubIssuer{holdings: holdings(14)})
		r := runLine(t, b, "/poaps wallet:"+demo+" page:2")
		if !strings.Contains(r.Text, "14. **Drop 01**") || strings.Contains(r.Text, "Drop 05") {
			t.Errorf("page 2 =\n%s", r.Text)
		}
		wantButtons := []Button{{Label: "Previous", Command: "/poaps wallet:" + demo + " page:1"}}
		if !cmp.Equal(r.Buttons, wantButtons, ignoreAction) || r.Buttons[0].Action == "" {
			t.Errorf("buttons = %v, want %v with a stored action", r.Buttons, wantButtons)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		b, _ := newTestBot(stubIssuer{})
		r := runLine(t, b, "/poaps "+demo)
		if !strings.Contains(r.Text, "holds no POAPs yet") {
			t.Errorf("empty collection reply = %q", r.Text)
		}
	})
}

func TestBot_Explain(t *testing.T) {
	tests := []struct {
		name        string
		issuer      stubIssuer
		line        string
		want        string
		wantOutcome string
	}{
		{"BadAddress", stubIssuer{}, "/poaps 0x12", "40 hex digits", "user_error"},
		{"BadChecksum", stubIssuer{}, "/poaps 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD", "checksum", "user_error"},
		{"Unavailable", stubIssuer{err: fmt.Errorf("scan: %w", core.ErrIssuerUnavailable)}, "/poaps " + demo, "not answering", "error"},
		{"Rejected", stubIssuer{err: core.ErrIssuerRejected}, "/poaps " + demo, "refused this bot's credentials", "error"},
		{"Unknown", stubIssuer{err: errors.New("pq: relation does not exist")}, "/poaps " + demo, "something went wrong on my side (reference ", "error"},
		{"UnknownCommand", stubIssuer{}, "/frobnicate", "I don't know the command `/frobnicate`", "user_error"},
		{"BadPage", stubIssuer{}, "/poaps " + demo + " page:two", "`page` must be a whole number", "user_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, obs := newTestBot(tt.issuer)
			r := runLine(t, b, tt.line)
			if !strings.Contains(r.Text, tt.want) || !r.Personal {
				t.Errorf("reply = %q (personal %v), want it to contain %q and be personal", r.Text, r.Personal, tt.want)
			}
			if strings.Contains(r.Text, "pq:") {
				t.Errorf("reply leaks the raw error: %q", r.Text)
			}
			if len(obs.seen) != 1 || !strings.HasSuffix(obs.seen[0], "/"+tt.wantOutcome) {
				t.Errorf("observed %v, want outcome %s", obs.seen, tt.wantOutcome)
			}
		})
	}
}

func TestBot_Handle_Forbidden(t *testing.T) {
	b, _ := newTestBot(stubIssuer{})
	called := false
	b.register(&Command{Name: "secret", Access: ManageDrops, Handler: func(context.Context, *Request) (Reply, error) {
		called = true
		return Reply{}, nil
	}})
	r := b.Handle(context.Background(), &Request{Place: core.Place{Platform: core.Console}, Command: "secret", Caller: Caller{ExternalID: "bob"}})
	if called || !strings.Contains(r.Text, "Only moderators") {
		t.Errorf("Handle(non-moderator) = %q, called %v; want a refusal without running it", r.Text, called)
	}
}

func TestBot_Help(t *testing.T) {
	b, _ := newTestBot(stubIssuer{})
	r := runLine(t, b, "/help")
	for _, want := range []string{"`/help`", "`/poaps [wallet] [member]`", "wallet: 0x address"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("help lacks %q:\n%s", want, r.Text)
		}
	}
	if strings.Contains(r.Text, "page") {
		t.Errorf("help lists a hidden option:\n%s", r.Text)
	}
}

func TestBot_Wait(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	b, _ := newTestBot(stubIssuer{})
	b.register(&Command{Name: "slow", Handler: func(ctx context.Context, _ *Request) (Reply, error) {
		close(started)
		<-release
		return Reply{}, ctx.Err()
	}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Reply)
	go func() { done <- b.Handle(ctx, &Request{Command: "slow"}) }()
	<-started
	cancel() // a shutdown does not cancel the command in flight
	waitCtx, waitCancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer waitCancel()
	if err := b.Wait(waitCtx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait() with a command in flight = %v, want DeadlineExceeded", err)
	}
	close(release)
	if r := <-done; r.Text != "" {
		t.Errorf("command in flight ended with %q, want a clean finish", r.Text)
	}
	if err := b.Wait(context.Background()); err != nil {
		t.Errorf("Wait() after the command = %v", err)
	}
}
