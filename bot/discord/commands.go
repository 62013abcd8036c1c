package discord

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/bot"
)

// Discord's limits on slash commands.
const (
	maxDescription = 100
	maxOptions     = 25 // options of a command, subcommands of a group
	maxChoices     = 25
	// maxStringOption is the longest text option Discord lets a command
	// declare (max_length).
	maxStringOption = 6000
)

// commandName is what Discord accepts as a command, subcommand or option
// name (lower case).
var commandName = regexp.MustCompile(`^[-_\p{Ll}\p{Lo}\p{N}]{1,32}$`)

var optionTypes = map[bot.OptionType]discordgo.ApplicationCommandOptionType{
	bot.TextOption:       discordgo.ApplicationCommandOptionString,
	bot.IntegerOption:    discordgo.ApplicationCommandOptionInteger,
	bot.BooleanOption:    discordgo.ApplicationCommandOptionBoolean,
	bot.MemberOption:     discordgo.ApplicationCommandOptionUser,
	bot.RoleOption:       discordgo.ApplicationCommandOptionRole,
	bot.ChannelOption:    discordgo.ApplicationCommandOptionChannel,
	bot.AttachmentOption: discordgo.ApplicationCommandOptionAttachment,
	bot.DateTimeOption:   discordgo.ApplicationCommandOptionString,
}

var channelTypes = map[bot.ChannelType]discordgo.ChannelType{
	bot.VoiceChannelType: discordgo.ChannelTypeGuildVoice,
	bot.StageChannelType: discordgo.ChannelTypeGuildStageVoice,
}

// entry is one top-level slash command being built.
type entry struct {
	cmd    *discordgo.ApplicationCommand
	group  bool
	access []bot.Access // of the command, or of each subcommand
	subs   []string
}

// renderCommands renders the bot's command table as slash commands: one per
// single-word command, and one per group ("drop") whose subcommands ("drop
// add") become SUB_COMMAND options. It fails on what Discord would refuse.
func renderCommands(table []*bot.Command) ([]*discordgo.ApplicationCommand, error) {
	var order []*entry
	byName := map[string]*entry{}
	for _, c := range table {
		if c.Console {
			continue
		}
		group, sub := c.Group(), c.Sub()
		if !commandName.MatchString(group) || (sub != "" && !commandName.MatchString(sub)) {
			return nil, fmt.Errorf("discord: command name %q is not a valid slash command name", c.Name)
		}
		opts, err := renderOptions(c)
		if err != nil {
			return nil, err
		}
		e := byName[group]
		if e != nil && (!e.group || sub == "") {
			return nil, fmt.Errorf("discord: command %q clashes with another command named %q", c.Name, group)
		}
		if e == nil {
			e = &entry{cmd: &discordgo.ApplicationCommand{Name: group, Type: discordgo.ChatApplicationCommand}, group: sub != ""}
			byName[group] = e
			order = append(order, e)
		}
		e.access = append(e.access, c.Access)
		if sub == "" {
			e.cmd.Description, e.cmd.Options = describe(c.Description, c.Name), opts
			continue
		}
		e.subs = append(e.subs, sub)
		e.cmd.Options = append(e.cmd.Options, &discordgo.ApplicationCommandOption{
			Type: discordgo.ApplicationCommandOptionSubCommand, Name: sub, Description: describe(c.Description, c.Name), Options: opts,
		})
	}
	return finish(order)
}

// finish sets group descriptions and permissions, and checks the limits.
func finish(order []*entry) ([]*discordgo.ApplicationCommand, error) {
	out := make([]*discordgo.ApplicationCommand, 0, len(order))
	for _, e := range order {
		if len(e.cmd.Options) > maxOptions {
			return nil, fmt.Errorf("discord: command %q has more than %d options or subcommands", e.cmd.Name, maxOptions)
		}
		if e.group {
			e.cmd.Description = describe(e.cmd.Name+" commands: "+strings.Join(e.subs, ", "), e.cmd.Name)
		}
		setAccess(e.cmd, e.access)
		out = append(out, e.cmd)
	}
	return out, nil
}

// setAccess hides moderator commands from members by default and keeps
// them out of DMs. Discord sets permissions per top-level command, so a
// group gets them only when all its subcommands need the same right; the
// bot checks every call anyway.
func setAccess(c *discordgo.ApplicationCommand, access []bot.Access) {
	a := access[0]
	for _, other := range access[1:] {
		if other != a {
			return
		}
	}
	var perm int64
	switch a {
	case bot.ManageDrops:
		perm = discordgo.PermissionManageGuild
	case bot.ManageRoles:
		perm = discordgo.PermissionManageRoles
	case bot.ManageEvents:
		// Discord shows the command to members with every permission
		// listed: Manage Events, the narrower; the bot lets Manage
		// Server run it too.
		perm = discordgo.PermissionManageEvents
	default:
		return
	}
	// Moderator commands run in servers only (not in DMs or group DMs).
	guildOnly := []discordgo.InteractionContextType{discordgo.InteractionContextGuild}
	c.DefaultMemberPermissions, c.Contexts = &perm, &guildOnly
}

// renderOptions renders the visible options, required ones first as
// Discord requires.
func renderOptions(c *bot.Command) ([]*discordgo.ApplicationCommandOption, error) {
	var out []*discordgo.ApplicationCommandOption
	for _, o := range c.Options {
		if o.Hidden {
			continue
		}
		opt, err := renderOption(o)
		if err != nil {
			return nil, fmt.Errorf("discord: command %q: option %q: %w", c.Name, o.Name, err)
		}
		out = append(out, opt)
	}
	if len(out) > maxOptions {
		return nil, fmt.Errorf("discord: command %q has more than %d options", c.Name, maxOptions)
	}
	slices.SortStableFunc(out, func(a, b *discordgo.ApplicationCommandOption) int {
		switch {
		case a.Required == b.Required:
			return 0
		case a.Required:
			return -1
		}
		return 1
	})
	return out, nil
}

func renderOption(o bot.Option) (*discordgo.ApplicationCommandOption, error) {
	t, ok := optionTypes[o.Type]
	if !ok {
		return nil, fmt.Errorf("type %s has no Discord option type", o.Type)
	}
	if !commandName.MatchString(o.Name) {
		return nil, fmt.Errorf("not a valid option name")
	}
	opt := &discordgo.ApplicationCommandOption{Type: t, Name: o.Name, Description: describe(o.Description, o.Name), Required: o.Required}
	if t == discordgo.ApplicationCommandOptionString {
		// Discord keeps longer text out before it is sent.
		opt.MaxLength = min(o.Limit(), maxStringOption)
	}
	if len(o.ChannelTypes) > 0 && t != discordgo.ApplicationCommandOptionChannel {
		return nil, fmt.Errorf("channel types are only for channel options")
	}
	for _, ct := range o.ChannelTypes {
		dt, ok := channelTypes[ct]
		if !ok {
			return nil, fmt.Errorf("%s has no Discord channel type", ct)
		}
		// Discord's picker offers only these.
		opt.ChannelTypes = append(opt.ChannelTypes, dt)
	}
	if len(o.Choices) > maxChoices {
		return nil, fmt.Errorf("more than %d choices", maxChoices)
	}
	for _, ch := range o.Choices {
		choice := &discordgo.ApplicationCommandOptionChoice{Name: trim(ch, maxDescription), Value: ch}
		switch t {
		case discordgo.ApplicationCommandOptionString:
		case discordgo.ApplicationCommandOptionInteger:
			n, err := strconv.ParseInt(ch, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("choice %q is not a whole number", ch)
			}
			choice.Value = n
		default:
			return nil, fmt.Errorf("choices are only for text and integer options")
		}
		opt.Choices = append(opt.Choices, choice)
	}
	return opt, nil
}

// describe returns a description Discord accepts: 1 to 100 characters.
func describe(s, fallback string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		s = fallback
	}
	return trim(s, maxDescription)
}

// trim cuts s to limit characters, ending with "…" when cut.
func trim(s string, limit int) string {
	r := []rune(s)
	if len(r) <= limit {
		return s
	}
	return strings.TrimSpace(string(r[:limit-1])) + "…"
}
