package discord

import (
	"context"
	"testing"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/core"
)

// withCommands is a bot with commands of the test's own, in place of any
// of the same name: the adapter's command table for a command the bot
// does not have (yet), such as /moment.
type withCommands struct {
	*bot.Bot
	extra []*bot.Command
}

func (w withCommands) own(name string) *bot.Command {
	for _, c := range w.extra {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func (w withCommands) Commands() []*bot.Command {
	var out []*bot.Command
	for _, c := range w.Bot.Commands() {
		if w.own(c.Name) == nil {
			out = append(out, c)
		}
	}
	return append(out, w.extra...)
}

func (w withCommands) Command(name string) *bot.Command {
	if c := w.own(name); c != nil {
		return c
	}
	return w.Bot.Command(name)
}

// Handle runs the test's own commands directly: an error becomes its text.
func (w withCommands) Handle(ctx context.Context, req *bot.Request) bot.Reply {
	c := w.own(req.Command)
	if c == nil {
		return w.Bot.Handle(ctx, req)
	}
	r, err := c.Handler(ctx, req)
	if err != nil {
		return bot.Reply{Text: err.Error()}
	}
	return r
}

// momentCommand is /moment as the bot declares it, with the test's
// handler.
func momentCommand(h bot.Handler) *bot.Command {
	opts := []bot.Option{
		{Name: "drop", Type: bot.IntegerOption, Required: true},
		{Name: "description", Type: bot.TextOption, Required: true, MaxLen: core.MaxMomentDescription},
		{Name: "media", Type: bot.AttachmentOption, Required: true},
	}
	for _, n := range []string{"media2", "media3", "media4", "media5"} {
		opts = append(opts, bot.Option{Name: n, Type: bot.AttachmentOption})
	}
	return &bot.Command{Name: "moment", Description: "Post a Moment", Options: opts, Long: true, Public: true, Handler: h}
}

// startMoment runs an adapter whose /moment runs h.
func startMoment(t *testing.T, h bot.Handler) *rig {
	t.Helper()
	return startWith(t, withCommands{Bot: plainBot(), extra: []*bot.Command{momentCommand(h)}}, Options{GuildID: discordtest.DefaultGuildID})
}
