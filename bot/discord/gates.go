package discord

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// gates does gating's actions on Discord (core.GateActions): the place is
// a server (guild) id, the target a role id. It reads the server's roles
// and the bot's member over REST, keeps members' roles in a bounded cache
// fed by the gateway, and adds and removes roles through one queue per
// server.
type gates struct {
	session *discordgo.Session
	log     *slog.Logger
	render  func(bot.Reply) message
	members *memberCache
	queues  *guildQueues

	mu    sync.Mutex
	botID string // the bot's user id, once read
}

var _ core.GateActions = (*gates)(nil)

// GateActions returns the adapter's gating actions for core's gate
// service. They work whether Run is running or not; while it runs,
// members' roles are mostly answered from the gateway's events.
func (a *Adapter) GateActions() core.GateActions { return a.gates }

// Prepare checks that the bot can give and take the role target (an id, a
// <@&id> mention or a role's name) in the server, and returns it. It
// returns a *core.GateProblem (errors.Is core.ErrCannotEnforce) when the
// role is unknown, is @everyone, is managed by an integration, or the bot
// lacks Manage Roles or a role above it; Discord's error when the server
// cannot be read. It changes nothing.
func (g *gates) Prepare(ctx context.Context, guild, target string) (core.GateTarget, error) {
	r, err := g.rights(ctx, guild)
	if err != nil {
		return core.GateTarget{}, err
	}
	role, problem := findRole(r.guild.Roles, target)
	if problem == nil {
		problem = r.problemWith(role)
	}
	if problem != nil {
		return core.GateTarget{}, problem
	}
	return core.GateTarget{ID: role.ID, Name: role.Name, Kind: core.GateRole}, nil
}

// Check is Prepare for the role of an existing gate: nil when the bot can
// give and take it now, a *core.GateProblem when not (the role was deleted
// among others), Discord's error when the server cannot be read.
func (g *gates) Check(ctx context.Context, guild string, target core.GateTarget) error {
	r, err := g.rights(ctx, guild)
	if err != nil {
		return err
	}
	role := roleByID(r.guild.Roles, target.ID)
	if role == nil {
		return &core.GateProblem{
			Reason: fmt.Sprintf("the role %s no longer exists in this server", quoteName(target.Name)),
			Fix:    "Remove this gate with `/gate remove`, then gate another role.",
		}
	}
	if p := r.problemWith(role); p != nil {
		return p
	}
	return nil
}

// problemWith says why the bot cannot give and take role, nil when it
// can.
func (r botRights) problemWith(role *discordgo.Role) *core.GateProblem {
	switch {
	case role.ID == r.guild.ID:
		return &core.GateProblem{
			Reason: "@everyone is the role of every member: it cannot be given or taken",
			Fix:    "Create a role for holders in Server Settings → Roles, then gate that role.",
		}
	case role.Managed:
		return &core.GateProblem{
			Reason: fmt.Sprintf("the role %s is managed by an integration (a bot's own role, the Server Booster role or a linked app): "+
				"nobody can give or take it by hand", quoteName(role.Name)),
			Fix: "Create a role of your own for holders in Server Settings → Roles, then gate that role.",
		}
	case !r.has(discordgo.PermissionManageRoles):
		return &core.GateProblem{
			Reason: "the bot lacks the Manage Roles permission in this server",
			Fix:    r.grantFix("the Manage Roles permission"),
		}
	case !r.outranks(role):
		return &core.GateProblem{
			Reason: fmt.Sprintf("the role %s is not below the bot's highest role, and Discord lets a bot give only the roles below its own",
				quoteName(role.Name)),
			Fix: r.aboveFix(quoteName(role.Name)),
		}
	}
	return nil
}

// Setup checks the bot's rights in the server for /setup check: Manage
// Roles, its highest role (gated roles must be below it), and View
// Channels with Send Messages for the notices to moderators.
func (g *gates) Setup(ctx context.Context, guild string) []core.SetupLine {
	r, err := g.rights(ctx, guild)
	if err != nil {
		g.log.Warn("setup check: reading the server failed", "guild", guild, "err", err)
		return []core.SetupLine{{
			Check: "The bot can read this server's roles and its own", OK: false,
			Fix: "Check that the bot is still in this server, then run the check again in a minute.",
		}}
	}
	lines := []core.SetupLine{{
		Check: "Manage Roles permission, to give and take gated roles", OK: r.has(discordgo.PermissionManageRoles),
		Fix: r.grantFix("the Manage Roles permission"),
	}, r.hierarchyLine(), {
		Check: "View Channels and Send Messages, to tell moderators when a gate pauses",
		OK:    r.has(discordgo.PermissionViewChannel | discordgo.PermissionSendMessages),
		Fix:   r.grantFix("View Channels and Send Messages (or allow them in the channel where you add gates)"),
	}}
	for i := range lines {
		if lines[i].OK {
			lines[i].Fix = ""
		}
	}
	return lines
}

// maxRolesNamed is how many roles above the bot's the setup line names.
const maxRolesNamed = 5

// hierarchyLine reports the bot's highest role and the roles above it,
// which it cannot gate. The gates are not known here: the line fails only
// when the bot has no role of its own, below which roles could be.
func (r botRights) hierarchyLine() core.SetupLine {
	switch {
	case r.owner:
		return core.SetupLine{Check: "The bot owns this server: it can give every role", OK: true}
	case !r.ownRole():
		return core.SetupLine{
			Check: "The bot has no role of its own: it can give no role",
			Fix:   "In Server Settings → Roles, give the bot a role above the roles you gate.",
		}
	}
	roles := slices.Clone(r.guild.Roles)
	slices.SortStableFunc(roles, func(a, b *discordgo.Role) int { return b.Position - a.Position })
	var above []string
	for _, role := range roles {
		if !role.Managed && role.ID != r.top.ID && !r.outranks(role) {
			above = append(above, quoteName(role.Name))
		}
	}
	check := fmt.Sprintf("The bot's highest role is %s (position %d): it can gate only the roles below it", quoteName(r.top.Name), r.top.Position)
	if n := len(above); n > maxRolesNamed {
		above = append(above[:maxRolesNamed], fmt.Sprintf("and %d more", n-maxRolesNamed))
	}
	if len(above) > 0 {
		check += ", not " + strings.Join(above, ", ")
	}
	return core.SetupLine{Check: check, OK: true}
}

// quoteName shows a role's name in bold, its Markdown escaped.
func quoteName(name string) string {
	if name == "" {
		return "(unnamed)"
	}
	return "**" + bot.Escape(name) + "**"
}
