package discord

import (
	"context"
	"fmt"
	"slices"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/core"
)

// Standing says whether the member is in the server and has the role:
// from the member cache when it knows the member, else from GET
// /guilds/{guild}/members/{user} (404 Unknown Member: not in the server),
// whose answer it keeps. It returns Discord's other errors.
// See https://discord.com/developers/docs/resources/guild#get-guild-member.
func (g *gates) Standing(ctx context.Context, guild string, target core.GateTarget, member string) (core.Standing, error) {
	k := memberKey{guild, member}
	if e, ok := g.members.get(k); ok {
		return core.Standing{InPlace: e.in, Has: e.in && hasRole(guild, e.roles, target.ID)}, nil
	}
	stamp := g.members.stamp()
	var m *discordgo.Member
	err := retryRateLimited(ctx, func(o ...discordgo.RequestOption) (err error) {
		m, err = g.session.GuildMember(guild, member, o...)
		return err
	})
	switch {
	case err == nil:
		g.members.store(k, true, m.Roles, stamp)
		return core.Standing{InPlace: true, Has: hasRole(guild, m.Roles, target.ID)}, nil
	case restCode(err) == discordgo.ErrCodeUnknownMember:
		g.members.store(k, false, nil, stamp)
		return core.Standing{}, nil
	}
	return core.Standing{}, fmt.Errorf("discord: read member %s of %s: %w", member, guild, err)
}

// hasRole reports whether a member of guild with roles has role: every
// member has @everyone, whose id is the guild's and which Discord lists
// with nobody's roles.
func hasRole(guild string, roles []string, role string) bool {
	return role == guild || slices.Contains(roles, role)
}

// Grant gives the member the role (PUT
// /guilds/{guild}/members/{user}/roles/{role}) through the server's
// queue, waiting out 429s a few times. It returns a *core.GateProblem
// with Forbidden set (errors.Is core.ErrGateForbidden) when Discord
// refuses for lack of a permission or the role no longer exists, an
// error when the member is not in the server, Discord's other errors.
// See https://discord.com/developers/docs/resources/guild#add-guild-member-role.
func (g *gates) Grant(ctx context.Context, guild string, target core.GateTarget, member string) error {
	return g.change(ctx, guild, target, member, true)
}

// Revoke takes the role away from the member (DELETE
// /guilds/{guild}/members/{user}/roles/{role}), as Grant gives it. A
// member who left the server has no role to take: nil.
// See https://discord.com/developers/docs/resources/guild#remove-guild-member-role.
func (g *gates) Revoke(ctx context.Context, guild string, target core.GateTarget, member string) error {
	return g.change(ctx, guild, target, member, false)
}

// Decline does nothing: Discord gates are roles, with no join requests.
func (g *gates) Decline(context.Context, string, core.GateTarget, string) error { return nil }

// change adds or removes the role in the server's queue and keeps the
// member cache up to date.
func (g *gates) change(ctx context.Context, guild string, target core.GateTarget, member string, add bool) error {
	err := g.queues.do(ctx, guild, func(ctx context.Context) error {
		return retryRateLimited(ctx, func(o ...discordgo.RequestOption) error {
			if add {
				return g.session.GuildMemberRoleAdd(guild, member, target.ID, o...)
			}
			return g.session.GuildMemberRoleRemove(guild, member, target.ID, o...)
		})
	})
	k := memberKey{guild, member}
	switch code := restCode(err); {
	case err == nil:
		g.members.roleChanged(k, target.ID, add)
		return nil
	case code == discordgo.ErrCodeUnknownMember && !add:
		return nil
	case code == discordgo.ErrCodeUnknownRole:
		return &core.GateProblem{
			Forbidden: true,
			Reason:    fmt.Sprintf("the role %s no longer exists in this server", roleLabel(target)),
			Fix:       "Remove this gate with `/gate remove`, then gate another role.",
		}
	case forbidden(err):
		verb := "give"
		if !add {
			verb = "take away"
		}
		return &core.GateProblem{
			Forbidden: true,
			Reason: fmt.Sprintf("Discord refused to let the bot %s the role %s: it lacks the Manage Roles permission, or its role is no longer above %s",
				verb, roleLabel(target), roleLabel(target)),
			Fix: fmt.Sprintf("Give the bot's role the Manage Roles permission and drag it above %s in Server Settings → Roles.", roleLabel(target)),
		}
	}
	op := "add role"
	if !add {
		op = "remove role"
	}
	return fmt.Errorf("discord: %s %s of member %s in %s: %w", op, target.ID, member, guild, err)
}

// roleLabel names a gate's role for a moderator: its name, else its id.
func roleLabel(t core.GateTarget) string {
	if t.Name == "" {
		return "`" + t.ID + "`"
	}
	return quoteName(t.Name)
}
