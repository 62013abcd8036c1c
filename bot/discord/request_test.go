package discord

import (
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

func TestCommandOptions(t *testing.T) {
	opt := func(name string, typ discordgo.ApplicationCommandOptionType, v any) *discordgo.ApplicationCommandInteractionDataOption {
		return &discordgo.ApplicationCommandInteractionDataOption{Name: name, Type: typ, Value: v}
	}
	tests := []struct {
		name     string
		data     discordgo.ApplicationCommandInteractionData
		wantName string
		want     map[string]string
	}{
		{"NoOptions", discordgo.ApplicationCommandInteractionData{Name: "help"}, "help", map[string]string{}},
		{"Typed", discordgo.ApplicationCommandInteractionData{Name: "poaps", Options: []*discordgo.ApplicationCommandInteractionDataOption{
			opt("wallet", discordgo.ApplicationCommandOptionString, "vitalik.eth"),
			opt("member", discordgo.ApplicationCommandOptionUser, "400000000000000001"),
			opt("count", discordgo.ApplicationCommandOptionInteger, float64(12)),
			opt("big", discordgo.ApplicationCommandOptionInteger, float64(1234567890123)),
			opt("dry", discordgo.ApplicationCommandOptionBoolean, true),
			opt("file", discordgo.ApplicationCommandOptionAttachment, "900"),
		}}, "poaps", map[string]string{
			"wallet": "vitalik.eth", "member": "400000000000000001", "count": "12",
			"big": "1234567890123", "dry": "true", "file": "900",
		}},
		{"Subcommand", discordgo.ApplicationCommandInteractionData{Name: "drop", Options: []*discordgo.ApplicationCommandInteractionDataOption{{
			Name: "add", Type: discordgo.ApplicationCommandOptionSubCommand,
			Options: []*discordgo.ApplicationCommandInteractionDataOption{opt("event", discordgo.ApplicationCommandOptionInteger, float64(123))},
		}}}, "drop add", map[string]string{"event": "123"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, got := commandOptions(tt.data)
			if name != tt.wantName || !cmp.Equal(got, tt.want) {
				t.Errorf("commandOptions = %q, %v; want %q, %v", name, got, tt.wantName, tt.want)
			}
		})
	}
}

func TestCaller(t *testing.T) {
	member := func(perms int64) *discordgo.Member {
		return &discordgo.Member{Nick: "Ali", Permissions: perms, User: &discordgo.User{ID: "1", Username: "alice", GlobalName: "Alice"}}
	}
	tests := []struct {
		name string
		i    *discordgo.Interaction
		want bot.Caller
	}{
		{"Member", &discordgo.Interaction{Member: member(0)}, bot.Caller{ExternalID: "1", Name: "Ali"}},
		{"ManageGuild", &discordgo.Interaction{Member: member(discordgo.PermissionManageGuild)},
			bot.Caller{ExternalID: "1", Name: "Ali", ManagesDrops: true}},
		{"ManageRoles", &discordgo.Interaction{Member: member(discordgo.PermissionManageRoles)},
			bot.Caller{ExternalID: "1", Name: "Ali", ManagesRoles: true}},
		{"Administrator", &discordgo.Interaction{Member: member(discordgo.PermissionAdministrator)},
			bot.Caller{ExternalID: "1", Name: "Ali", ManagesDrops: true, ManagesRoles: true, ManagesEvents: true}},
		{"ManageEvents", &discordgo.Interaction{Member: member(discordgo.PermissionManageEvents)},
			bot.Caller{ExternalID: "1", Name: "Ali", ManagesEvents: true}},
		{"DMGlobalName", &discordgo.Interaction{User: &discordgo.User{ID: "2", Username: "bob", GlobalName: "Bob"}},
			bot.Caller{ExternalID: "2", Name: "Bob"}},
		{"DMUsername", &discordgo.Interaction{User: &discordgo.User{ID: "2", Username: "bob"}},
			bot.Caller{ExternalID: "2", Name: "bob"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := caller(tt.i); got != tt.want {
				t.Errorf("caller = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestPlace(t *testing.T) {
	s, _ := discordgo.New("Bot x")
	if err := s.State.GuildAdd(&discordgo.Guild{ID: "g1", Name: "Guild One"}); err != nil {
		t.Fatal(err)
	}
	type placeChat struct {
		Place core.Place
		Chat  bot.Chat
	}
	tests := []struct {
		name string
		i    *discordgo.Interaction
		want placeChat
	}{
		{"Guild", &discordgo.Interaction{GuildID: "g1", ChannelID: "c1"}, placeChat{core.Place{Platform: core.Discord, ExternalID: "g1", Name: "Guild One"}, bot.Chat{Channel: "c1"}}},
		{"UnknownGuild", &discordgo.Interaction{GuildID: "g2", ChannelID: "c1"}, placeChat{core.Place{Platform: core.Discord, ExternalID: "g2"}, bot.Chat{Channel: "c1"}}},
		{"DM", &discordgo.Interaction{ChannelID: "c9"}, placeChat{core.Place{Platform: core.Discord, ExternalID: "dm:c9"}, bot.Chat{Private: true, Channel: "c9"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got placeChat
			if got.Place, got.Chat = where(s, tt.i); got != tt.want {
				t.Errorf("where = %+v, want %+v", got, tt.want)
			}
		})
	}
}
