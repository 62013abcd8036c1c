package discord

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/core"
)

// botRights is what the bot may do in a server: its permissions, from
// @everyone's and its roles' (all of them for the owner or with
// Administrator), and its highest role, which the roles it gives must be
// below. Role management is a server-wide permission: channel overwrites
// do not change it.
type botRights struct {
	guild *discordgo.Guild
	owner bool
	perms int64
	top   *discordgo.Role // nil when the bot has no role, @everyone's included
}

// rights reads the server (owner and roles) and the bot's member. A server
// the bot is not in (or cannot see) is a *core.GateProblem.
// See https://discord.com/developers/docs/topics/permissions#permission-hierarchy.
func (g *gates) rights(ctx context.Context, guild string) (botRights, error) {
	me, err := g.self(ctx)
	if err != nil {
		return botRights{}, err
	}
	var gd *discordgo.Guild
	var member *discordgo.Member
	err = retryRateLimited(ctx, func(o ...discordgo.RequestOption) (err error) {
		gd, err = g.session.Guild(guild, o...)
		return err
	})
	if err == nil {
		err = retryRateLimited(ctx, func(o ...discordgo.RequestOption) (err error) {
			member, err = g.session.GuildMember(guild, me, o...)
			return err
		})
	}
	switch code := restCode(err); {
	case err == nil:
		return newRights(gd, member, me), nil
	case code == discordgo.ErrCodeUnknownGuild || code == discordgo.ErrCodeMissingAccess || code == discordgo.ErrCodeUnknownMember:
		return botRights{}, &core.GateProblem{
			Reason: "the bot is not in this server, or cannot see it",
			Fix:    "Invite the bot to the server again with its invite link.",
		}
	}
	return botRights{}, fmt.Errorf("discord: read server %s: %w", guild, err)
}

func newRights(gd *discordgo.Guild, member *discordgo.Member, me string) botRights {
	r := botRights{guild: gd, owner: gd.OwnerID == me}
	if everyone := roleByID(gd.Roles, gd.ID); everyone != nil {
		r.perms, r.top = everyone.Permissions, everyone
	}
	for _, id := range member.Roles {
		role := roleByID(gd.Roles, id)
		if role == nil {
			continue
		}
		r.perms |= role.Permissions
		if r.top == nil || role.Position > r.top.Position {
			r.top = role
		}
	}
	if r.owner || r.perms&discordgo.PermissionAdministrator != 0 {
		r.perms = discordgo.PermissionAll
	}
	return r
}

// has reports whether the bot has every permission of p.
func (r botRights) has(p int64) bool { return r.perms&p == p }

// outranks reports whether the bot's highest role is above role, so that
// Discord lets it give and take role; the owner outranks every role.
func (r botRights) outranks(role *discordgo.Role) bool {
	return r.owner || (r.top != nil && role.Position < r.top.Position)
}

// ownRole reports whether the bot has a role of its own, above
// @everyone.
func (r botRights) ownRole() bool { return r.top != nil && r.top.ID != r.guild.ID }

// grantFix says how to give the bot the permissions named by what.
func (r botRights) grantFix(what string) string {
	if !r.ownRole() {
		return "In Server Settings → Roles, give the bot a role with " + what + "."
	}
	return fmt.Sprintf("In Server Settings → Roles, give the bot's role %s %s.", quoteName(r.top.Name), what)
}

// aboveFix says how to put the bot's role above role.
func (r botRights) aboveFix(role string) string {
	if !r.ownRole() {
		return "In Server Settings → Roles, give the bot a role above " + role + "."
	}
	return fmt.Sprintf("Drag the bot's role %s above %s in Server Settings → Roles.", quoteName(r.top.Name), role)
}

// self returns the bot's user id: from READY while the gateway is open,
// else read once with GET /users/@me.
func (g *gates) self(ctx context.Context) (string, error) {
	g.session.State.RLock()
	id := ""
	if u := g.session.State.User; u != nil {
		id = u.ID
	}
	g.session.State.RUnlock()
	g.mu.Lock()
	defer g.mu.Unlock()
	if id != "" || g.botID != "" {
		return cmp.Or(id, g.botID), nil
	}
	var u *discordgo.User
	err := retryRateLimited(ctx, func(o ...discordgo.RequestOption) (err error) {
		u, err = g.session.User("@me", o...)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("discord: read the bot's user: %w", err)
	}
	g.botID = u.ID
	return u.ID, nil
}

// findRole finds the role target names: an id, a <@&id> mention, or a
// name (any case) no other role has.
func findRole(roles []*discordgo.Role, target string) (*discordgo.Role, *core.GateProblem) {
	target = strings.TrimSpace(target)
	id := strings.TrimSuffix(strings.TrimPrefix(target, "<@&"), ">")
	if role := roleByID(roles, id); role != nil {
		return role, nil
	}
	var found []*discordgo.Role
	for _, role := range roles {
		if strings.EqualFold(role.Name, strings.TrimPrefix(target, "@")) {
			found = append(found, role)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, &core.GateProblem{
			Reason: fmt.Sprintf("this server has no role %s", quoteName(target)),
			Fix:    "Pick the role from the list the command offers, or create it first in Server Settings → Roles.",
		}
	}
	return nil, &core.GateProblem{
		Reason: fmt.Sprintf("%d roles are named %s", len(found), quoteName(target)),
		Fix:    "Pick the role from the list the command offers, or rename the others.",
	}
}

func roleByID(roles []*discordgo.Role, id string) *discordgo.Role {
	for _, role := range roles {
		if role.ID == id {
			return role
		}
	}
	return nil
}

// restCode returns Discord's JSON error code of a REST error, 0 when
// there is none.
func restCode(err error) int {
	var re *discordgo.RESTError
	if errors.As(err, &re) && re.Message != nil {
		return re.Message.Code
	}
	return 0
}

// restStatus returns the HTTP status of a REST error, 0 when there is
// none.
func restStatus(err error) int {
	var re *discordgo.RESTError
	if errors.As(err, &re) && re.Response != nil {
		return re.Response.StatusCode
	}
	return 0
}

// forbidden reports whether Discord refused for lack of a permission.
func forbidden(err error) bool {
	return restStatus(err) == http.StatusForbidden || restCode(err) == discordgo.ErrCodeMissingPermissions
}
