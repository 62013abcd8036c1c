package discord

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/core"
)

// Roles and members of the gating tests.
const (
	holdersID = "600000000000000001"
	vipID     = "600000000000000002"
	carol     = "400000000000000021"
	dave      = "400000000000000022"
)

var holders = core.GateTarget{ID: holdersID, Name: "Holders", Kind: core.GateRole}

// newGates returns a fake Discord whose guild has the Holders role (below
// the bot's) and Carol, set up further by setup, and the gating actions
// of an adapter that is not running.
func newGates(t *testing.T, setup func(*discordtest.Server)) (*discordtest.Server, *Adapter) {
	t.Helper()
	fake := discordtest.NewServer(t, discordtest.Options{})
	fake.AddRole(discordgo.Role{ID: holdersID, Name: "Holders", Position: 2})
	fake.AddMember(carol, "Carol")
	if setup != nil {
		setup(fake)
	}
	a, err := newAdapter(plainBot(), Options{Token: core.Secret(fake.Token()), APIURL: fake.URL()})
	if err != nil {
		t.Fatal(err)
	}
	return fake, a
}

// changes counts the requests that change something (any but GET).
func changes(fake *discordtest.Server) int {
	n := 0
	for _, r := range fake.Requests() {
		if r.Method != http.MethodGet {
			n++
		}
	}
	return n
}

// requests counts the requests of that method whose path ends with
// suffix.
func requests(fake *discordtest.Server, method, suffix string) int {
	n := 0
	for _, r := range fake.Requests() {
		if r.Method == method && strings.HasSuffix(r.Path, suffix) {
			n++
		}
	}
	return n
}

func TestGates_Prepare(t *testing.T) {
	t.Parallel()
	guild := discordtest.DefaultGuildID
	t.Run("OK", func(t *testing.T) {
		t.Parallel()
		_, a := newGates(t, nil)
		for _, target := range []string{holdersID, "<@&" + holdersID + ">", "holders"} {
			got, err := a.GateActions().Prepare(context.Background(), guild, target)
			if err != nil || got != holders {
				t.Errorf("Prepare(%q) = %+v, %v; want %+v", target, got, err, holders)
			}
		}
	})
	noManageRoles := func(f *discordtest.Server) {
		f.AddRole(discordgo.Role{ID: "600000000000000009", Name: "bot", Position: 10, Permissions: discordtest.EveryonePermissions})
		f.SetBotRoles("600000000000000009")
	}
	t.Run("Allowed", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name  string
			setup func(*discordtest.Server)
		}{
			{"Owner", func(f *discordtest.Server) { noManageRoles(f); f.SetOwner(f.AppID()) }},
			{"Administrator", func(f *discordtest.Server) {
				f.AddRole(discordgo.Role{ID: "600000000000000009", Name: "bot", Position: 10, Permissions: discordgo.PermissionAdministrator})
				f.SetBotRoles("600000000000000009")
			}},
		}
		for _, tt := range tests {
			_, a := newGates(t, tt.setup)
			if _, err := a.GateActions().Prepare(context.Background(), guild, holdersID); err != nil {
				t.Errorf("%s: Prepare = %v, want nil", tt.name, err)
			}
		}
	})
	t.Run("Refused", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name, target string
			setup        func(*discordtest.Server)
		}{
			{"UnknownRole", "600000000000000099", nil},
			{"UnknownName", "Whales", nil},
			{"SameName", "Holders", func(f *discordtest.Server) {
				f.AddRole(discordgo.Role{ID: vipID, Name: "holders", Position: 3})
			}},
			{"Everyone", guild, nil},
			{"Managed", "600000000000000008", func(f *discordtest.Server) {
				f.AddRole(discordgo.Role{ID: "600000000000000008", Name: "Server Booster", Position: 1, Managed: true})
			}},
			{"NoManageRoles", holdersID, noManageRoles},
			{"AboveTheBot", vipID, func(f *discordtest.Server) {
				f.AddRole(discordgo.Role{ID: vipID, Name: "VIP", Position: discordtest.DefaultBotRolePosition + 1})
			}},
			{"AtTheBot", vipID, func(f *discordtest.Server) {
				f.AddRole(discordgo.Role{ID: vipID, Name: "VIP", Position: discordtest.DefaultBotRolePosition})
			}},
			{"NotInServer", holdersID, func(f *discordtest.Server) {}},
		}
		reasons := map[string]string{}
		for _, tt := range tests {
			fake, a := newGates(t, tt.setup)
			place := guild
			if tt.name == "NotInServer" {
				place = "200000000000000099"
			}
			got, err := a.GateActions().Prepare(context.Background(), place, tt.target)
			var p *core.GateProblem
			if !errors.Is(err, core.ErrCannotEnforce) || !errors.As(err, &p) || p.Forbidden || p.Reason == "" || p.Fix == "" {
				t.Errorf("%s: Prepare = %+v, %v; want a GateProblem with a reason and a fix, matching ErrCannotEnforce", tt.name, got, err)
				continue
			}
			if other, ok := reasons[p.Reason]; ok && tt.name != "AtTheBot" {
				t.Errorf("%s: same reason as %s: %q", tt.name, other, p.Reason)
			}
			reasons[p.Reason] = tt.name
			if n := changes(fake); n != 0 {
				t.Errorf("%s: %d requests that change something, want none", tt.name, n)
			}
		}
	})
}

func TestGates_Check(t *testing.T) {
	t.Parallel()
	_, a := newGates(t, nil)
	ctx := context.Background()
	if err := a.GateActions().Check(ctx, discordtest.DefaultGuildID, holders); err != nil {
		t.Errorf("Check(Holders) = %v, want nil", err)
	}
	gone := core.GateTarget{ID: "600000000000000099", Name: "Gone", Kind: core.GateRole}
	if err := a.GateActions().Check(ctx, discordtest.DefaultGuildID, gone); !errors.Is(err, core.ErrCannotEnforce) {
		t.Errorf("Check(deleted role) = %v, want ErrCannotEnforce", err)
	}
}

func TestGates_Setup(t *testing.T) {
	t.Parallel()
	ok := func(lines []core.SetupLine) []bool {
		var out []bool
		for _, l := range lines {
			out = append(out, l.OK)
			if l.Check == "" || (!l.OK && l.Fix == "") || (l.OK && l.Fix != "") {
				t.Errorf("setup line %+v: want a check, and a fix exactly when it failed", l)
			}
		}
		return out
	}
	_, a := newGates(t, nil)
	if got := ok(a.GateActions().Setup(context.Background(), discordtest.DefaultGuildID)); !cmp.Equal(got, []bool{true, true, true}) {
		t.Errorf("Setup OK = %v, want every line OK", got)
	}
	_, a = newGates(t, func(f *discordtest.Server) {
		f.AddRole(discordgo.Role{ID: discordtest.DefaultGuildID, Name: "@everyone"}) // no permissions
		f.SetBotRoles()
	})
	if got := ok(a.GateActions().Setup(context.Background(), discordtest.DefaultGuildID)); !cmp.Equal(got, []bool{false, false, false}) {
		t.Errorf("Setup OK without roles or permissions = %v, want every line failed", got)
	}
	if got := ok(a.GateActions().Setup(context.Background(), "200000000000000099")); !cmp.Equal(got, []bool{false}) {
		t.Errorf("Setup OK in an unknown server = %v, want one failed line", got)
	}
}

func TestGates_GrantRevoke(t *testing.T) {
	t.Parallel()
	guild := discordtest.DefaultGuildID
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		t.Parallel()
		fake, a := newGates(t, nil)
		if err := a.GateActions().Grant(ctx, guild, holders, carol); err != nil {
			t.Fatalf("Grant = %v", err)
		}
		if got := fake.MemberRoles(carol); !cmp.Equal(got, []string{holdersID}) {
			t.Errorf("roles after Grant = %v, want [Holders]", got)
		}
		if err := a.GateActions().Revoke(ctx, guild, holders, carol); err != nil {
			t.Fatalf("Revoke = %v", err)
		}
		if got := fake.MemberRoles(carol); len(got) != 0 {
			t.Errorf("roles after Revoke = %v, want none", got)
		}
		if err := a.GateActions().Decline(ctx, guild, holders, carol); err != nil || changes(fake) != 2 {
			t.Errorf("Decline = %v after %d changes, want nil and no request", err, changes(fake))
		}
	})
	t.Run("RateLimited", func(t *testing.T) {
		t.Parallel()
		fake, a := newGates(t, func(f *discordtest.Server) { f.RateLimitRoleChanges(2, 0.01) })
		if err := a.GateActions().Grant(ctx, guild, holders, carol); err != nil {
			t.Fatalf("Grant after two 429s = %v, want nil", err)
		}
		if n := requests(fake, http.MethodPut, "/roles/"+holdersID); n != 3 || !cmp.Equal(fake.MemberRoles(carol), []string{holdersID}) {
			t.Errorf("%d PUT requests, roles %v; want 3 and [Holders]", n, fake.MemberRoles(carol))
		}
	})
	t.Run("RateLimitedForever", func(t *testing.T) {
		t.Parallel()
		fake, a := newGates(t, func(f *discordtest.Server) { f.RateLimitRoleChanges(1_000_000, 0.001) })
		err := a.GateActions().Grant(ctx, guild, holders, carol)
		var rl *discordgo.RateLimitError
		if !errors.As(err, &rl) || errors.Is(err, core.ErrGateForbidden) {
			t.Errorf("Grant while always rate limited = %v, want the 429 as an error", err)
		}
		if n := requests(fake, http.MethodPut, "/roles/"+holdersID); n != maxRateLimitRetries+1 {
			t.Errorf("%d PUT requests, want %d", n, maxRateLimitRetries+1)
		}
	})
	t.Run("ContextEnds", func(t *testing.T) {
		t.Parallel()
		_, a := newGates(t, func(f *discordtest.Server) { f.RateLimitRoleChanges(1, 60) })
		ctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		if err := a.GateActions().Grant(ctx, guild, holders, carol); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Grant whose context ends while rate limited = %v, want DeadlineExceeded", err)
		}
	})
	t.Run("Forbidden", func(t *testing.T) {
		t.Parallel()
		fake, a := newGates(t, func(f *discordtest.Server) { f.ForbidRoleChanges(true) })
		for _, change := range []func(context.Context, string, core.GateTarget, string) error{a.GateActions().Grant, a.GateActions().Revoke} {
			err := change(ctx, guild, holders, carol)
			var p *core.GateProblem
			if !errors.Is(err, core.ErrGateForbidden) || !errors.As(err, &p) || !p.Forbidden || p.Fix == "" {
				t.Errorf("change while forbidden = %v, want a GateProblem matching ErrGateForbidden", err)
			}
		}
		if n := changes(fake); n != 2 {
			t.Errorf("%d requests, want 2: no retry after 403", n)
		}
	})
	t.Run("RoleDeleted", func(t *testing.T) {
		t.Parallel()
		_, a := newGates(t, nil)
		gone := core.GateTarget{ID: "600000000000000099", Name: "Gone", Kind: core.GateRole}
		if err := a.GateActions().Grant(ctx, guild, gone, carol); !errors.Is(err, core.ErrGateForbidden) {
			t.Errorf("Grant(deleted role) = %v, want ErrGateForbidden", err)
		}
	})
	t.Run("NotInServer", func(t *testing.T) {
		t.Parallel()
		_, a := newGates(t, nil)
		if err := a.GateActions().Grant(ctx, guild, holders, dave); err == nil || errors.Is(err, core.ErrGateForbidden) {
			t.Errorf("Grant(not a member) = %v, want an error that is not ErrGateForbidden", err)
		}
		if err := a.GateActions().Revoke(ctx, guild, holders, dave); err != nil {
			t.Errorf("Revoke(not a member) = %v, want nil: they have no role", err)
		}
	})
}

func TestGates_Tell(t *testing.T) {
	t.Parallel()
	fake, a := newGates(t, func(f *discordtest.Server) { f.CloseDMs(dave) })
	ctx := context.Background()
	n := core.GateNotice{
		Kind: core.NoticeGatePaused, Problem: &core.GateProblem{Reason: "the bot lacks Manage Roles", Fix: "Give it."},
		Gate: core.Gate{Platform: core.Discord, Place: discordtest.DefaultGuildID, Target: holders, Drops: []core.GateDrop{{ID: 1}}},
	}
	want := a.render(bot.Reply{Text: bot.GateNoticeText(n, capabilities)}).content
	if !strings.Contains(want, "<@&"+holdersID+">") {
		t.Fatalf("rendered notice %q does not mention the role as Discord does", want)
	}
	if err := a.GateActions().Tell(ctx, carol, n); err != nil {
		t.Fatalf("Tell = %v", err)
	}
	if got := fake.DMs(carol); len(got) != 1 || got[0].Content != want {
		t.Errorf("DMs(carol) = %+v, want one message %q", got, want)
	}
	if err := a.GateActions().Tell(ctx, dave, n); restCode(err) != discordgo.ErrCodeCannotSendMessagesToThisUser {
		t.Errorf("Tell(closed DMs) = %v, want Discord's 50007", err)
	}
	if err := a.GateActions().Announce(ctx, discordtest.DefaultGuildID, discordtest.DefaultChannelID, n); err != nil {
		t.Fatalf("Announce = %v", err)
	}
	if got := fake.ChannelMessages(discordtest.DefaultChannelID); len(got) != 1 || got[0].Content != want {
		t.Errorf("channel messages = %+v, want one message %q", got, want)
	}
}
