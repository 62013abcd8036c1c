package discordtest

import (
	"cmp"
	"context"
	"fmt"

	"github.com/bwmarrin/discordgo"
)

// User is who acts in an interaction.
type User struct {
	ID         string
	Username   string
	GlobalName string
	// Nick is the server nickname.
	Nick string
	// Permissions are the member's permissions in the channel (the
	// interaction's member.permissions); ignored in DMs.
	Permissions int64
}

// Members for tests: two members and a moderator with Manage Server and
// Manage Roles.
var (
	Alice     = User{ID: "400000000000000001", Username: "alice", GlobalName: "Alice"}
	Bob       = User{ID: "400000000000000002", Username: "bob"}
	Moderator = User{
		ID: "400000000000000003", Username: "mod", Nick: "The Mod",
		Permissions: discordgo.PermissionManageGuild | discordgo.PermissionManageRoles,
	}
)

func (u User) user() *discordgo.User {
	return &discordgo.User{ID: u.ID, Username: u.Username, GlobalName: u.GlobalName}
}

func (u User) member(guildID string) *discordgo.Member {
	return &discordgo.Member{GuildID: guildID, User: u.user(), Nick: u.Nick, Roles: []string{}, Permissions: u.Permissions}
}

// InteractionSpec describes an interaction to dispatch. Set one of Line,
// Data and CustomID.
type InteractionSpec struct {
	// User acts; the zero value is Alice.
	User User
	// DM sends it from the user's DM with the bot instead of the guild.
	DM bool
	// GuildID and ChannelID default to the test guild and its channel.
	GuildID   string
	ChannelID string
	// Line is a slash command as typed, "/drop add 123 edit_code:456789":
	// words fill the registered options in order, "name:value" sets one by
	// name, double quotes group words. Values get the registered types;
	// members are ids or <@id> mentions, attachments file names (a file
	// registered with AddFile resolves to it, with a signed URL).
	Line string
	// Data is a slash command's data as is.
	Data *discordgo.ApplicationCommandInteractionData
	// CustomID presses a button with that custom id.
	CustomID string
}

// Command dispatches a slash command typed by u in the test guild.
func (s *Server) Command(u User, line string) *Interaction {
	return s.Interact(InteractionSpec{User: u, Line: line})
}

// CommandDM dispatches a slash command typed by u in a DM with the bot.
func (s *Server) CommandDM(u User, line string) *Interaction {
	return s.Interact(InteractionSpec{User: u, DM: true, Line: line})
}

// Press dispatches a press by u on a button with that custom id, in the
// test guild.
func (s *Server) Press(u User, customID string) *Interaction {
	return s.Interact(InteractionSpec{User: u, CustomID: customID})
}

// Interact builds the interaction and dispatches it as INTERACTION_CREATE
// to the connection of its shard, waiting up to 5 s for a connection (and,
// for a Line, for the commands to be registered). The interaction is
// created, as when a member acts on Discord, once it is ready to go out:
// its id is minted then and its acknowledgement deadline runs from then,
// the time spent queued behind other dispatches included. Errors are
// returned by the handle's Wait methods and Err.
func (s *Server) Interact(spec InteractionSpec) *Interaction {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	raw, err := s.build(ctx, spec)
	if err != nil {
		return &Interaction{srv: s, err: err}
	}
	c, err := s.connFor(ctx, raw.GuildID)
	if err != nil {
		return &Interaction{srv: s, err: err}
	}
	it := s.create(raw)
	if err := c.send(0, "INTERACTION_CREATE", raw); err != nil {
		it.err = fmt.Errorf("discordtest: dispatch: %w", err)
	}
	return it
}

// Build builds and records an interaction without dispatching it, for
// tests that call a handler directly; the fake answers its callbacks and
// webhooks as if it had been dispatched now.
func (s *Server) Build(spec InteractionSpec) (*Interaction, *discordgo.Interaction, error) {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	raw, err := s.build(ctx, spec)
	if err != nil {
		return nil, nil, err
	}
	return s.create(raw), raw, nil
}

// create gives the interaction its id, a snowflake of now, and its token,
// and records it. Sent is the time the id encodes, which is what a bot
// can tell of the interaction's creation.
func (s *Server) create(raw *discordgo.Interaction) *Interaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	raw.ID = s.newIDLocked()
	raw.Token = "token-" + raw.ID
	sent, _ := discordgo.SnowflakeTimestamp(raw.ID)
	it := &Interaction{ID: raw.ID, Token: raw.Token, Sent: sent, srv: s}
	s.interactions[it.Token] = it
	return it
}

// build makes the gateway payload, without its id and token.
func (s *Server) build(ctx context.Context, spec InteractionSpec) (*discordgo.Interaction, error) {
	u := spec.User
	if u.ID == "" {
		u = Alice
	}
	raw := &discordgo.Interaction{
		AppID: s.opts.AppID, Version: 1,
		Locale: discordgo.EnglishUS, ChannelID: spec.ChannelID,
	}
	if spec.DM {
		raw.User, raw.Context = u.user(), discordgo.InteractionContextBotDM
		if raw.ChannelID == "" {
			raw.ChannelID = DMChannel(u.ID)
		}
	} else {
		raw.GuildID = cmp.Or(spec.GuildID, s.opts.GuildID)
		raw.ChannelID = cmp.Or(raw.ChannelID, DefaultChannelID)
		raw.Member, raw.Context = u.member(raw.GuildID), discordgo.InteractionContextGuild
	}
	if err := s.fillData(ctx, raw, spec); err != nil {
		return nil, err
	}
	return raw, nil
}

// fillData sets the interaction's type and data from the spec.
func (s *Server) fillData(ctx context.Context, raw *discordgo.Interaction, spec InteractionSpec) error {
	switch {
	case spec.CustomID != "":
		raw.Type = discordgo.InteractionMessageComponent
		raw.Data = discordgo.MessageComponentInteractionData{CustomID: spec.CustomID, ComponentType: discordgo.ButtonComponent}
		raw.Message = &discordgo.Message{ID: s.newID(), ChannelID: raw.ChannelID, Author: &discordgo.User{ID: s.opts.AppID, Bot: true}}
	case spec.Data != nil:
		raw.Type, raw.Data = discordgo.InteractionApplicationCommand, *spec.Data
	case spec.Line != "":
		data, err := s.commandData(ctx, spec.Line, raw.GuildID)
		if err != nil {
			return err
		}
		raw.Type, raw.Data = discordgo.InteractionApplicationCommand, data
	default:
		return fmt.Errorf("discordtest: interaction spec sets none of Line, Data and CustomID")
	}
	return nil
}

// connFor returns the open connection of the guild's shard, waiting for
// one until ctx is done.
func (s *Server) connFor(ctx context.Context, guildID string) (*conn, error) {
	var target *conn
	err := s.wait(ctx, func() bool {
		for _, c := range s.conns {
			if c.info.Open && s.onShard(guildID, c.info.Shard) {
				target = c
				return true
			}
		}
		return false
	})
	if err != nil {
		return nil, fmt.Errorf("discordtest: no gateway connection: %w", err)
	}
	return target, nil
}

// WaitResponses waits until the calls the bot made about the interaction,
// in the order the fake received them, satisfy match, and returns them:
// the acknowledgement, then each edit of a Long command's progress and
// its final reply, for instance.
func (it *Interaction) WaitResponses(ctx context.Context, match func([]Response) bool) ([]Response, error) {
	var got []Response
	err := it.waitFor(ctx, func() bool {
		if match(it.responses) {
			got = append([]Response(nil), it.responses...)
			return true
		}
		return false
	})
	return got, err
}
