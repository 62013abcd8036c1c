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
		if !moderators && (c.Access == bot.ManageDrops || c.Access == bot.ManageRoles) {
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

// Callback data carries a command line as "cmd:<line>"; Telegram allows
// 64 bytes of data.
const (
	callbackPrefix  = "cmd:"
	maxCallbackData = 64
)

// callbackData encodes a command button's line, compacted to fit the 64
// bytes Telegram allows: no leading slash, options in positional form
// where the parser reads them back the same. ok is false when even the
// compact form is too long: the button is then left out, because a button
// that runs a different command than it says would be worse than none.
func (a *Adapter) callbackData(line string) (data string, ok bool) {
	if cmd, opts, err := a.bot.ParseLine(line, ""); err == nil {
		if compact, ok := compactLine(cmd, opts); ok {
			line = compact
		}
	}
	data = callbackPrefix + strings.TrimPrefix(strings.TrimSpace(line), "/")
	return data, len(data) <= maxCallbackData
}

// compactLine writes a parsed command back as the shortest line that
// parses to the same options: visible options positionally, in declared
// order, until one is missing; the rest as name:value. ok is false for a
// value the line syntax cannot carry.
func compactLine(cmd *bot.Command, opts map[string]string) (string, bool) {
	words := []string{cmd.Name}
	positional := true
	for _, o := range cmd.Options {
		v := opts[o.Name]
		visible := !o.Hidden && o.Type != bot.Attachment
		if v == "" {
			// A gap: later visible options must be named.
			positional = positional && !visible
			continue
		}
		if strings.Contains(v, `"`) {
			return "", false
		}
		if strings.ContainsAny(v, " \t\n") {
			v = `"` + v + `"`
		}
		if positional && visible && !strings.Contains(v, ":") {
			words = append(words, v)
			continue
		}
		positional = positional && !visible
		words = append(words, o.Name+":"+v)
	}
	return strings.Join(words, " "), true
}
