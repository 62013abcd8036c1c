package telegram

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot"
)

// Bot API limits of a command entry.
const maxCommandDescription = 256

// commandName is what Telegram accepts as a command name.
var commandName = regexp.MustCompile(`^[a-z0-9_]{1,32}$`)

// publishCommands sets the command menu: the members' commands for
// everyone, and every command for chat administrators (Telegram shows an
// administrator the most specific scope that has a list).
// See https://core.telegram.org/bots/api#setmycommands.
func (a *Adapter) publishCommands(ctx context.Context) error {
	cmds := a.bot.Commands()
	admins := tgbotapi.NewBotCommandScopeAllChatAdministrators()
	for _, cfg := range []tgbotapi.SetMyCommandsConfig{
		{Commands: menu(cmds, false)},
		{Commands: menu(cmds, true), Scope: &admins},
	} {
		if _, err := a.request(ctx, cfg); err != nil {
			return fmt.Errorf("telegram: publish commands: %w", err)
		}
	}
	return nil
}

// menu lists the commands as Telegram shows them: lower-case names, a
// group ("drop add", "drop list") as one entry "/drop" whose first word is
// the subcommand, which bot.ParseLine understands. Moderator commands are
// listed only when moderators is true.
func menu(cmds []*bot.Command, moderators bool) []tgbotapi.BotCommand {
	var (
		out   []tgbotapi.BotCommand
		index = map[string]int{}
		subs  = map[string][]string{}
	)
	for _, c := range cmds {
		if c.Console || (!moderators && (c.Access == bot.ManageDrops || c.Access == bot.ManageRoles || c.Access == bot.ManageEvents)) {
			continue
		}
		name := strings.ToLower(c.Group())
		if !commandName.MatchString(name) {
			continue
		}
		if sub := c.Sub(); sub != "" {
			subs[name] = append(subs[name], sub)
		}
		if _, seen := index[name]; seen {
			continue
		}
		index[name] = len(out)
		out = append(out, tgbotapi.BotCommand{Command: name, Description: c.Description})
	}
	for name, ss := range subs {
		out[index[name]].Description = fmt.Sprintf("%s (e.g. /%s %s)", strings.Join(ss, ", "), name, ss[0])
	}
	for i := range out {
		out[i].Description = bot.Shorten(out[i].Description, maxCommandDescription)
		if out[i].Description == "" {
			out[i].Description = out[i].Command
		}
	}
	return out
}

// A command button is a callback button whose data is callbackPrefix and
// the id of the action the bot stored for it (core.ButtonAction): Telegram
// carries at most 64 bytes of callback data, and a member can send any
// bytes in it, so nothing but the id travels there.
const callbackPrefix = "b:"

// oldCallbackPrefix started the data of the buttons the bot made before it
// stored their actions: a command line, which it no longer runs.
const oldCallbackPrefix = "cmd:"
