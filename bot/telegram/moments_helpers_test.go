package telegram

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot"
)

// testTable is the bot's command table with one command of the test's
// own, which it parses (/name <drop> <description...>) and runs itself:
// the bot has no seam to register one.
type testTable struct {
	*bot.Bot
	cmd *bot.Command
}

func (t *testTable) Commands() []*bot.Command { return append(slices.Clip(t.Bot.Commands()), t.cmd) }

func (t *testTable) ParseLine(line, botName string) (*bot.Command, map[string]string, error) {
	if commandWord(line) != t.cmd.Name {
		return t.Bot.ParseLine(line, botName)
	}
	_, rest := firstWord(strings.TrimPrefix(strings.TrimSpace(line), "/"))
	drop, description := firstWord(rest)
	opts := map[string]string{}
	if drop != "" {
		opts["drop"] = drop
	}
	if description != "" {
		opts["description"] = description
	}
	return t.cmd, opts, nil
}

func (t *testTable) HandleLine(ctx context.Context, req *bot.Request, line, botName string) (bot.Reply, bool) {
	cmd, opts, _ := t.ParseLine(line, botName)
	if cmd != t.cmd {
		return t.Bot.HandleLine(ctx, req, line, botName)
	}
	req.Command, req.Options = cmd.Name, opts
	reply, err := cmd.Handler(ctx, req)
	if err != nil {
		return bot.Reply{Text: "error: " + err.Error()}, true
	}
	return reply, true
}

// momentCommand is a command of /moment's shape running handler.
func momentCommand(handler bot.Handler) *bot.Command {
	return &bot.Command{
		Name: "moment", Long: true, Public: true, Timeout: time.Minute, Handler: handler,
		Options: []bot.Option{
			{Name: "drop", Type: bot.IntegerOption, Required: true},
			{Name: "description", Type: bot.TextOption, Required: true, MaxLen: 600},
			{Name: "media", Type: bot.AttachmentOption, Required: true},
			{Name: "media2", Type: bot.AttachmentOption}, {Name: "media3", Type: bot.AttachmentOption},
			{Name: "media4", Type: bot.AttachmentOption}, {Name: "media5", Type: bot.AttachmentOption},
		},
	}
}

// withCommand puts cmd in the adapter's command table; call it before
// run.
func (e *env) withCommand(cmd *bot.Command) {
	e.a.bot = &testTable{Bot: e.a.bot.(*bot.Bot), cmd: cmd}
}

// recordMoments gives the adapter a /moment that answers "Moment posted"
// and hands every request it gets to the channel returned.
func (e *env) recordMoments() <-chan *bot.Request {
	reqs := make(chan *bot.Request, 10)
	e.withCommand(momentCommand(func(_ context.Context, req *bot.Request) (bot.Reply, error) {
		reqs <- req
		return bot.Reply{Text: "Moment posted"}, nil
	}))
	return reqs
}

// nextRequest waits for the next request of reqs.
func nextRequest(t *testing.T, reqs <-chan *bot.Request) *bot.Request {
	t.Helper()
	select {
	case req := <-reqs:
		return req
	case <-waitCtx(t).Done():
		t.Fatal("no /moment request")
		return nil
	}
}

// noMoreRequests fails when reqs holds another request; call it once Run
// returned, which waited for everything in flight.
func noMoreRequests(t *testing.T, reqs <-chan *bot.Request) {
	t.Helper()
	select {
	case req := <-reqs:
		t.Errorf("another /moment request: %+v", req)
	default:
	}
}
