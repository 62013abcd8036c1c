package discordtest_test

import (
	"errors"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot/discord/discordtest"
)

const (
	holders = "600000000000000001"
	admins  = "600000000000000002"
	carol   = "400000000000000021"
	dave    = "400000000000000022"
)

func TestServer_GuildRoles(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t, discordtest.Options{})
	s := srv.Session()
	srv.AddRole(discordgo.Role{ID: holders, Name: "Holders", Position: 2})
	srv.AddMember(carol, "Carol", holders)

	g, err := s.Guild(srv.GuildID())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range g.Roles {
		names = append(names, r.Name)
	}
	if g.OwnerID != discordtest.DefaultOwnerID || !cmp.Equal(names, []string{"@everyone", "poapbot", "Holders"}) {
		t.Errorf("Guild = owner %s, roles %v; want %s and [@everyone poapbot Holders]", g.OwnerID, names, discordtest.DefaultOwnerID)
	}
	if roles, err := s.GuildRoles(srv.GuildID()); err != nil || len(roles) != 3 || roles[1].Permissions&discordgo.PermissionManageRoles == 0 {
		t.Errorf("GuildRoles = %+v, %v; want 3 roles, the bot's with Manage Roles", roles, err)
	}
	m, err := s.GuildMember(srv.GuildID(), carol)
	if err != nil || m.User.ID != carol || !cmp.Equal(m.Roles, []string{holders}) {
		t.Errorf("GuildMember(carol) = %+v, %v; want carol with Holders", m, err)
	}
	if _, err := s.GuildMember(srv.GuildID(), dave); restCode(err) != discordgo.ErrCodeUnknownMember {
		t.Errorf("GuildMember(not a member) = %v, want code 10007", err)
	}
	if _, err := s.Guild("999"); restCode(err) != discordgo.ErrCodeUnknownGuild {
		t.Errorf("Guild(unknown) = %v, want code 10004", err)
	}
}

func TestServer_RoleChanges(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t, discordtest.Options{})
	s := srv.Session()
	guild := srv.GuildID()
	srv.AddRole(discordgo.Role{ID: holders, Name: "Holders", Position: 2})
	srv.AddRole(discordgo.Role{ID: admins, Name: "Admins", Position: discordtest.DefaultBotRolePosition + 1})
	srv.AddMember(carol, "Carol")
	noRetry := discordgo.WithRetryOnRatelimit(false)

	t.Run("AddRemove", func(t *testing.T) {
		if err := s.GuildMemberRoleAdd(guild, carol, holders); err != nil {
			t.Fatal(err)
		}
		if err := srv.WaitRole(ctxFor(t), carol, holders, true); err != nil {
			t.Fatal(err)
		}
		if err := s.GuildMemberRoleRemove(guild, carol, holders); err != nil {
			t.Fatal(err)
		}
		if got := srv.MemberRoles(carol); len(got) != 0 {
			t.Errorf("MemberRoles after removal = %v, want none", got)
		}
	})
	t.Run("Refused", func(t *testing.T) {
		tests := []struct {
			name, user, role string
			code             int
		}{
			{"AboveTheBot", carol, admins, discordgo.ErrCodeMissingPermissions},
			{"Managed", carol, discordtest.DefaultBotRoleID, discordgo.ErrCodeMissingPermissions},
			{"UnknownRole", carol, "600000000000000099", discordgo.ErrCodeUnknownRole},
			{"UnknownMember", dave, holders, discordgo.ErrCodeUnknownMember},
		}
		for _, tt := range tests {
			if err := s.GuildMemberRoleAdd(guild, tt.user, tt.role); restCode(err) != tt.code {
				t.Errorf("%s: GuildMemberRoleAdd = %v, want code %d", tt.name, err, tt.code)
			}
		}
	})
	t.Run("Forbidden", func(t *testing.T) {
		srv.ForbidRoleChanges(true)
		defer srv.ForbidRoleChanges(false)
		if err := s.GuildMemberRoleAdd(guild, carol, holders); restCode(err) != discordgo.ErrCodeMissingPermissions {
			t.Errorf("GuildMemberRoleAdd while forbidden = %v, want code 50013", err)
		}
		if got := srv.MemberRoles(carol); len(got) != 0 {
			t.Errorf("MemberRoles after a refusal = %v, want none", got)
		}
	})
	t.Run("RateLimited", func(t *testing.T) {
		srv.RateLimitRoleChanges(1, 0.01)
		err := s.GuildMemberRoleAdd(guild, carol, holders, noRetry)
		var rl *discordgo.RateLimitError
		if !errors.As(err, &rl) || rl.RetryAfter != 10*time.Millisecond {
			t.Fatalf("GuildMemberRoleAdd while rate limited = %v, want a RateLimitError with retry after 10ms", err)
		}
		if got := srv.MemberRoles(carol); len(got) != 0 {
			t.Errorf("MemberRoles after a 429 = %v, want none", got)
		}
		if err := s.GuildMemberRoleAdd(guild, carol, holders, noRetry); err != nil {
			t.Errorf("GuildMemberRoleAdd after the 429 = %v", err)
		}
	})
}

func TestServer_DMs(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t, discordtest.Options{})
	s := srv.Session()
	ch, err := s.UserChannelCreate(carol)
	if err != nil || ch.ID != discordtest.DMChannel(carol) {
		t.Fatalf("UserChannelCreate = %+v, %v; want channel %s", ch, err, discordtest.DMChannel(carol))
	}
	if _, err := s.ChannelMessageSend(ch.ID, "hello"); err != nil {
		t.Fatal(err)
	}
	if got := srv.DMs(carol); len(got) != 1 || got[0].Content != "hello" {
		t.Errorf("DMs(carol) = %+v, want hello", got)
	}
	srv.CloseDMs(dave)
	if _, err := s.ChannelMessageSend(discordtest.DMChannel(dave), "hello"); restCode(err) != discordgo.ErrCodeCannotSendMessagesToThisUser {
		t.Errorf("message to closed DMs = %v, want code 50007", err)
	}
}

// TestServer_MemberEvents checks that Join and role changes reach a
// connected client as GUILD_MEMBER_ADD and GUILD_MEMBER_UPDATE.
func TestServer_MemberEvents(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t, discordtest.Options{})
	s := srv.Session()
	added, updated := make(chan *discordgo.GuildMemberAdd, 1), make(chan *discordgo.GuildMemberUpdate, 1)
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.GuildMemberAdd) { added <- e })
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.GuildMemberUpdate) { updated <- e })
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv.AddRole(discordgo.Role{ID: holders, Name: "Holders", Position: 2})
	ctx := ctxFor(t)
	if err := srv.Join(ctx, carol, "Carol"); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-added:
		if e.GuildID != srv.GuildID() || e.User.ID != carol || e.DisplayName() != "Carol" {
			t.Errorf("GUILD_MEMBER_ADD = %+v, want Carol in the test guild", e.Member)
		}
	case <-ctx.Done():
		t.Fatal("no GUILD_MEMBER_ADD")
	}
	if err := s.GuildMemberRoleAdd(srv.GuildID(), carol, holders); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-updated:
		if e.User.ID != carol || !cmp.Equal(e.Roles, []string{holders}) {
			t.Errorf("GUILD_MEMBER_UPDATE = %+v, want carol with Holders", e.Member)
		}
	case <-ctx.Done():
		t.Fatal("no GUILD_MEMBER_UPDATE")
	}
}
