package discord

import (
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot"
)

func TestRenderCommands(t *testing.T) {
	table := []*bot.Command{
		{Name: "help", Description: "What the bot does", Access: bot.Anyone},
		{Name: "drop add", Description: strings.Repeat("d", 150), Access: bot.ManageDrops, Options: []bot.Option{
			{Name: "codeword", Type: bot.TextOption, MaxLen: 64, Description: "secret word"},
			{Name: "event", Type: bot.IntegerOption, Required: true, Description: "drop id"},
			{Name: "delivery", Type: bot.TextOption, Choices: []string{"auto", "link"}},
			{Name: "page", Type: bot.IntegerOption, Hidden: true},
		}},
		{Name: "drop list", Description: "Drops", Access: bot.ManageDrops},
		{Name: "gate add", Description: "Gate a role", Access: bot.ManageRoles, Options: []bot.Option{
			{Name: "role", Type: bot.RoleOption, Required: true, Description: "role"},
			{Name: "who", Type: bot.MemberOption, Description: "member"},
			{Name: "where", Type: bot.ChannelOption, Description: "channel"},
			{Name: "file", Type: bot.AttachmentOption, Description: "file"},
			{Name: "dry", Type: bot.BooleanOption, Description: "dry run"},
			{Name: "count", Type: bot.IntegerOption, Choices: []string{"1", "2"}, Description: "n"},
		}},
		{Name: "mixed a", Description: "A", Access: bot.ManageDrops},
		{Name: "mixed b", Description: "B", Access: bot.Members},
	}
	manageGuild, manageRoles := int64(discordgo.PermissionManageGuild), int64(discordgo.PermissionManageRoles)
	guildOnly := []discordgo.InteractionContextType{discordgo.InteractionContextGuild}
	chat := discordgo.ChatApplicationCommand
	want := []*discordgo.ApplicationCommand{
		{Name: "help", Type: chat, Description: "What the bot does"},
		{Name: "drop", Type: chat, Description: "drop commands: add, list", DefaultMemberPermissions: &manageGuild, Contexts: &guildOnly,
			Options: []*discordgo.ApplicationCommandOption{
				{Type: discordgo.ApplicationCommandOptionSubCommand, Name: "add", Description: strings.Repeat("d", 99) + "…", Options: []*discordgo.ApplicationCommandOption{
					{Type: discordgo.ApplicationCommandOptionInteger, Name: "event", Description: "drop id", Required: true},
					{Type: discordgo.ApplicationCommandOptionString, Name: "codeword", Description: "secret word", MaxLength: 64},
					{Type: discordgo.ApplicationCommandOptionString, Name: "delivery", Description: "delivery", MaxLength: bot.MaxTextLen, Choices: []*discordgo.ApplicationCommandOptionChoice{
						{Name: "auto", Value: "auto"}, {Name: "link", Value: "link"},
					}},
				}},
				{Type: discordgo.ApplicationCommandOptionSubCommand, Name: "list", Description: "Drops"},
			}},
		{Name: "gate", Type: chat, Description: "gate commands: add", DefaultMemberPermissions: &manageRoles, Contexts: &guildOnly,
			Options: []*discordgo.ApplicationCommandOption{
				{Type: discordgo.ApplicationCommandOptionSubCommand, Name: "add", Description: "Gate a role", Options: []*discordgo.ApplicationCommandOption{
					{Type: discordgo.ApplicationCommandOptionRole, Name: "role", Description: "role", Required: true},
					{Type: discordgo.ApplicationCommandOptionUser, Name: "who", Description: "member"},
					{Type: discordgo.ApplicationCommandOptionChannel, Name: "where", Description: "channel"},
					{Type: discordgo.ApplicationCommandOptionAttachment, Name: "file", Description: "file"},
					{Type: discordgo.ApplicationCommandOptionBoolean, Name: "dry", Description: "dry run"},
					{Type: discordgo.ApplicationCommandOptionInteger, Name: "count", Description: "n", Choices: []*discordgo.ApplicationCommandOptionChoice{
						{Name: "1", Value: int64(1)}, {Name: "2", Value: int64(2)},
					}},
				}},
			}},
		{Name: "mixed", Type: chat, Description: "mixed commands: a, b", Options: []*discordgo.ApplicationCommandOption{
			{Type: discordgo.ApplicationCommandOptionSubCommand, Name: "a", Description: "A"},
			{Type: discordgo.ApplicationCommandOptionSubCommand, Name: "b", Description: "B"},
		}},
	}
	got, err := renderCommands(table)
	if err != nil {
		t.Fatalf("renderCommands: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("renderCommands mismatch (-want +got):\n%s", diff)
	}
}

func TestRenderCommands_Errors(t *testing.T) {
	tests := []struct {
		name  string
		table []*bot.Command
	}{
		{"UpperCase", []*bot.Command{{Name: "Help"}}},
		{"Space", []*bot.Command{{Name: "drop  add"}}},
		{"CommandAndGroup", []*bot.Command{{Name: "drop"}, {Name: "drop add"}}},
		{"GroupAndCommand", []*bot.Command{{Name: "drop add"}, {Name: "drop"}}},
		{"Duplicate", []*bot.Command{{Name: "help"}, {Name: "help"}}},
		{"BadOptionName", []*bot.Command{{Name: "x", Options: []bot.Option{{Name: "Wallet"}}}}},
		{"ChoicesOnMember", []*bot.Command{{Name: "x", Options: []bot.Option{{Name: "m", Type: bot.MemberOption, Choices: []string{"a"}}}}}},
		{"IntegerChoice", []*bot.Command{{Name: "x", Options: []bot.Option{{Name: "n", Type: bot.IntegerOption, Choices: []string{"one"}}}}}},
		{"TooManyOptions", []*bot.Command{{Name: "x", Options: manyOptions(26)}}},
		{"ChannelTypesOnText", []*bot.Command{{Name: "x", Options: []bot.Option{{Name: "t", Type: bot.TextOption, ChannelTypes: []bot.ChannelType{bot.VoiceChannelType}}}}}},
		{"UnknownChannelType", []*bot.Command{{Name: "x", Options: []bot.Option{{Name: "c", Type: bot.ChannelOption, ChannelTypes: []bot.ChannelType{99}}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := renderCommands(tt.table); err == nil {
				t.Errorf("renderCommands = %d commands, want an error", len(got))
			}
		})
	}
}

func manyOptions(n int) []bot.Option {
	var out []bot.Option
	for i := range n {
		out = append(out, bot.Option{Name: "o" + string(rune('a'+i%26)) + string(rune('a'+i/26))})
	}
	return out
}

// TestRenderCommands_BotTable renders the real command table, so that a new
// command Discord would refuse fails here rather than at start-up.
func TestRenderCommands_BotTable(t *testing.T) {
	b := plainBot()
	cmds, err := renderCommands(b.Commands())
	if err != nil {
		t.Fatalf("renderCommands(bot table): %v", err)
	}
	for _, c := range cmds {
		if c.Description == "" || len([]rune(c.Description)) > maxDescription {
			t.Errorf("command %s: description %q", c.Name, c.Description)
		}
	}
}
