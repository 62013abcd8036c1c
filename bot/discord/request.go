package discord

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// A command button's custom_id is a prefix and the id of the action the bot
// stored for it (core.ButtonAction): a member can send an interaction with
// any custom_id, so nothing but the id travels there. The prefix says
// whether the command answers in the channel (publicPrefix) or privately
// (privatePrefix), so that a press deferred before its answer is deferred
// the right way; a forged prefix changes only where the answer shows its
// first line.
const (
	privatePrefix = "b:"
	publicPrefix  = "B:"
	// oldPrefix started the custom_id of the buttons made before the bot
	// stored their actions: a command line.
	oldPrefix = "cmd:"
)

// errNotOurs marks interactions the adapter does not handle: other command
// types, autocompletion, modals, buttons it did not make.
var errNotOurs = errors.New("not an interaction of this bot")

// keyPrefix starts a request's Key: the interaction's id follows, the same
// when Discord delivers the interaction again.
const keyPrefix = "discord:interaction:"

// job is the work an interaction asks for.
type job struct {
	req *bot.Request
	// public commands answer in the channel, so their deferral is public
	// too; the others defer privately.
	public bool
	// long commands are deferred at once and show their progress (see
	// answerLong).
	long bool
	run  func(ctx context.Context) bot.Reply
}

// job turns a slash command or a command button into the bot request it
// asks for, or returns errNotOurs. A reply's Post is published before the
// reply goes out (see withPost).
func (a *Adapter) job(s *discordgo.Session, i *discordgo.Interaction) (*job, error) {
	j, err := a.request(s, i)
	if err != nil {
		return nil, err
	}
	run := j.run
	j.run = func(ctx context.Context) bot.Reply { return a.withPost(ctx, s, i, run(ctx)) }
	return j, nil
}

// request builds the job of an interaction, without its post.
func (a *Adapter) request(s *discordgo.Session, i *discordgo.Interaction) (*job, error) {
	place, chat := where(s, i)
	req := &bot.Request{Place: place, Chat: chat, Caps: capabilities, Caller: caller(i), Roles: roles(i), Key: keyPrefix + i.ID}
	switch i.Type {
	case discordgo.InteractionApplicationCommand:
		data := i.ApplicationCommandData()
		if data.CommandType != discordgo.ChatApplicationCommand {
			return nil, errNotOurs
		}
		req.Command, req.Options = commandOptions(data)
		cmd := a.bot.Command(req.Command)
		req.Media = media(cmd, req.Options, data.Resolved)
		if a.voice != nil && i.GuildID != "" {
			req.VoiceChannel = a.voice.channel(s, i.GuildID, data.Resolved)
			req.ScheduledEvent = scheduledEvents(s, i.GuildID)
		}
		run := func(ctx context.Context) bot.Reply { return a.bot.Handle(ctx, req) }
		return &job{req: req, public: isPublic(cmd), long: isLong(cmd), run: run}, nil
	case discordgo.InteractionMessageComponent:
		return a.pressJob(req, i.MessageComponentData().CustomID)
	}
	return nil, errNotOurs
}

// pressJob is the job of a pressed button: the stored action whose id its
// custom_id carries, run by Bot.Press for the member in this place. A claim
// message's button made before actions were stored ("cmd:claim <drop>")
// still claims that drop, which is what the member could type; any other
// old button runs nothing.
func (a *Adapter) pressJob(req *bot.Request, customID string) (*job, error) {
	if line, ok := strings.CutPrefix(customID, oldPrefix); ok {
		if !oldClaim.MatchString(line) {
			return &job{req: req, run: func(context.Context) bot.Reply { return a.bot.Refusal(req, bot.ErrOldButton) }}, nil
		}
		return &job{req: req, run: func(ctx context.Context) bot.Reply {
			reply, _ := a.bot.HandleLine(ctx, req, "/"+line, "")
			return reply
		}}, nil
	}
	public := strings.HasPrefix(customID, publicPrefix)
	id, ok := strings.CutPrefix(customID, privatePrefix)
	if public {
		id, ok = strings.CutPrefix(customID, publicPrefix)
	}
	if !ok {
		return nil, errNotOurs
	}
	run := func(ctx context.Context) bot.Reply {
		reply, _ := a.bot.Press(ctx, req, id)
		return reply
	}
	return &job{req: req, public: public, run: run}, nil
}

// oldClaim matches the line of an old claim message's button.
var oldClaim = regexp.MustCompile(`^claim [1-9][0-9]{0,18}$`)

// isPublic reports whether the command answers in the channel; Long
// commands always do.
func isPublic(c *bot.Command) bool { return c != nil && (c.Public || c.Long) }

func isLong(c *bot.Command) bool { return c != nil && c.Long }

// media returns the files of the command's attachment options that were
// given, in the order the command declares the options (media, media2,
// ...), from the interaction's resolved attachments: the attachment's URL
// as Ref, with the name, type and size Discord declares. The option's value
// (in opts) is the attachment's id. An id Discord did not resolve becomes
// an unavailable file, which the command refuses.
func media(c *bot.Command, opts map[string]string, res *discordgo.ApplicationCommandInteractionDataResolved) []bot.Media {
	if c == nil {
		return nil
	}
	var out []bot.Media
	for _, o := range c.Options {
		id := opts[o.Name]
		if o.Type != bot.AttachmentOption || id == "" {
			continue
		}
		var at *discordgo.MessageAttachment
		if res != nil {
			at = res.Attachments[id]
		}
		if at == nil || at.URL == "" {
			out = append(out, bot.Media{Unavailable: "Discord did not say where this file is; please attach it again."})
			continue
		}
		out = append(out, bot.Media{Ref: at.URL, Name: at.Filename, Type: at.ContentType, Size: int64(at.Size)})
	}
	return out
}

// commandOptions returns the command name ("drop add" for a subcommand)
// and the options as text.
func commandOptions(d discordgo.ApplicationCommandInteractionData) (string, map[string]string) {
	name, opts := d.Name, d.Options
	if len(opts) == 1 && (opts[0].Type == discordgo.ApplicationCommandOptionSubCommand ||
		opts[0].Type == discordgo.ApplicationCommandOptionSubCommandGroup) {
		name, opts = name+" "+opts[0].Name, opts[0].Options
	}
	out := make(map[string]string, len(opts))
	for _, o := range opts {
		out[o.Name] = optionText(o.Value)
	}
	return name, out
}

// optionText renders an option value as the bot reads it: text as given,
// numbers in decimal, members, roles, channels and attachments by id.
func optionText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// where is the interaction's place, the server or the DM as
// "dm:<channel id>", and its chat, the channel.
func where(s *discordgo.Session, i *discordgo.Interaction) (core.Place, bot.Chat) {
	if i.GuildID == "" {
		return core.Place{Platform: core.Discord, ExternalID: "dm:" + i.ChannelID}, bot.Chat{Private: true, Channel: i.ChannelID}
	}
	p := core.Place{Platform: core.Discord, ExternalID: i.GuildID}
	if s != nil && s.State != nil {
		if g, err := s.State.Guild(i.GuildID); err == nil {
			p.Name = g.Name
		}
	}
	return p, bot.Chat{Channel: i.ChannelID}
}

// roles are the member's role ids in the server, for drops that require
// one; none in a DM.
func roles(i *discordgo.Interaction) []string {
	if i.Member == nil {
		return nil
	}
	return i.Member.Roles
}

// caller is the member (in a server) or user (in a DM) who acts, with the
// rights their permissions in the channel give.
func caller(i *discordgo.Interaction) bot.Caller {
	if m := i.Member; m != nil && m.User != nil {
		p := m.Permissions
		admin := p&discordgo.PermissionAdministrator != 0
		return bot.Caller{
			ExternalID:    m.User.ID,
			Name:          m.DisplayName(),
			ManagesDrops:  admin || p&discordgo.PermissionManageGuild != 0,
			ManagesRoles:  admin || p&discordgo.PermissionManageRoles != 0,
			ManagesEvents: admin || p&discordgo.PermissionManageEvents != 0,
		}
	}
	if i.User != nil {
		return bot.Caller{ExternalID: i.User.ID, Name: i.User.DisplayName()}
	}
	return bot.Caller{}
}
