package telegram

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/internal/testlog"
)

const demo = "0xd3eeee483984730e415b604b6a526c504a7b1eca"

var (
	alice = telegramtest.User{ID: 1001, FirstName: "Alice", Username: "alice"}
	bob   = telegramtest.User{ID: 1002, FirstName: "Bob"}
	group = telegramtest.Group(-1001234567890, "POAP fans")
)

type stubIssuer struct{ holdings []core.Holding }

func (s stubIssuer) Holdings(context.Context, string) ([]core.Holding, error) {
	return append([]core.Holding(nil), s.holdings...), nil
}

func holdings(n int) []core.Holding {
	var hs []core.Holding
	for i := 1; i <= n; i++ {
		hs = append(hs, core.Holding{DropID: int64(i), DropName: fmt.Sprintf("Drop %02d", i), Chain: "xdai",
			MintedAt: time.Date(2024, 1, i, 0, 0, 0, 0, time.UTC), ImageURL: fmt.Sprintf("https://img.test/%d.png", i)})
	}
	return hs
}

// env is a fake Bot API and an adapter on it, with a real bot.
type env struct {
	tg   *telegramtest.Server
	a    *Adapter
	svc  coretest.Services
	logs *testlog.Buffer
	stop func() error
}

// newEnv starts a fake and builds the adapter; opts.Token and APIURL are
// filled in. The test fails if the token ever shows in a log line.
func newEnv(t *testing.T, opts Options) *env {
	t.Helper()
	return newEnvWith(t, coretest.Deps{Scanner: stubIssuer{holdings: holdings(14)}}, opts)
}

// newEnvWith is newEnv over the services built from deps, with the
// adapter's gating actions and media opener, as the program wires them.
func newEnvWith(t *testing.T, deps coretest.Deps, opts Options) *env {
	t.Helper()
	tg := telegramtest.NewServer(telegramtest.Options{})
	t.Cleanup(tg.Close)
	e := &env{tg: tg, logs: &testlog.Buffer{}}
	t.Cleanup(func() {
		if strings.Contains(e.logs.String(), tg.Token) {
			t.Errorf("the token appears in the logs:\n%s", e.logs)
		}
	})
	opts.Token, opts.APIURL = core.Secret(tg.Token), tg.URL()
	opts.Logger = e.logs.Logger()
	a, err := New(opts)
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	deps.GateActions = map[core.Platform]core.GateActions{core.Telegram: a.GateActions()}
	deps.Media = map[core.Platform]core.MediaOpener{core.Telegram: a.MediaOpener()}
	e.svc = coretest.NewServices(deps)
	a.serve(bot.New(bot.Services(e.svc), bot.Options{Name: "Test POAP bot"}))
	e.a = a
	return e
}

// action stores the action of a button the bot makes in place for member
// (empty: anyone there) running line, and returns its id.
func (e *env) action(t *testing.T, place int64, member, line string) string {
	t.Helper()
	a, err := e.svc.Buttons.Make(t.Context(), core.ButtonAction{
		Platform: core.Telegram, Place: strconv.FormatInt(place, 10), Member: member, Line: line,
	}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// run runs the adapter until the test ends or e.stop is called; stop
// returns Run's error and fails the test if Run does not return in time.
func (e *env) run(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.a.run(ctx) }()
	var once sync.Once
	var err error
	e.stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				err = fmt.Errorf("Run did not return within 10 s of cancel")
			}
		})
		return err
	}
	t.Cleanup(func() { _ = e.stop() })
}

// waitCtx bounds one wait in a test.
func waitCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// waitMessage waits for a message the bot sent that match accepts.
func (e *env) waitMessage(t *testing.T, match func(telegramtest.Message) bool) telegramtest.Message {
	t.Helper()
	m, err := e.tg.WaitMessage(waitCtx(t), match)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// stopped stops Run, which waits for the updates in flight, and returns
// everything the bot sent.
func (e *env) stopped(t *testing.T) []telegramtest.Message {
	t.Helper()
	if err := e.stop(); err != nil {
		t.Fatalf("Run() = %v, want nil", err)
	}
	return e.tg.Messages()
}

func sentTo(ms []telegramtest.Message, chatID int64) []telegramtest.Message {
	var out []telegramtest.Message
	for _, m := range ms {
		if m.ChatID == chatID {
			out = append(out, m)
		}
	}
	return out
}
