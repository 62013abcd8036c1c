package discordtest

import (
	"context"
	"math"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/bwmarrin/discordgo"
)

// roleLimits are the test knobs of role changes; guarded by Server.mu.
type roleLimits struct {
	forbid     bool
	limited    int // role changes left to answer 429
	retryAfter float64
}

// ForbidRoleChanges makes every role change answer 403 with 50013 Missing
// Permissions, as Discord does once the bot lost Manage Roles; false
// lets them through again.
func (s *Server) ForbidRoleChanges(forbid bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits.forbid = forbid
}

// RateLimitRoleChanges makes the next n role changes answer 429 with
// retry_after (in seconds) and rate limit headers, as Discord does; they
// change nothing.
func (s *Server) RateLimitRoleChanges(n int, retryAfter float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits.limited, s.limits.retryAfter = n, retryAfter
}

// WaitRole waits until the member of the test guild has the role (has
// true) or lacks it (has false; a user not in the guild lacks every
// role).
func (s *Server) WaitRole(ctx context.Context, userID, roleID string, has bool) error {
	return s.wait(ctx, func() bool {
		m, ok := s.guild.members[userID]
		return (ok && slices.Contains(m.Roles, roleID)) == has
	})
}

// changeRole answers PUT and DELETE /guilds/{guild}/members/{user}/roles/{role}
// with 204, 429 (RateLimitRoleChanges), 403 50013 (ForbidRoleChanges, or
// a role the bot may not manage: managed, @everyone, at or above its
// highest role, or the bot lacks Manage Roles), 404 10011 Unknown Role or
// 10007 Unknown Member. A change dispatches GUILD_MEMBER_UPDATE.
func (s *Server) changeRole(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.limits.limited > 0 {
		s.limits.limited--
		rateLimited(w, s.limits.retryAfter)
		return
	}
	role := s.guild.role(r.PathValue("role"))
	m, ok := s.guild.members[r.PathValue("user")]
	switch {
	case s.limits.forbid || (role != nil && !s.botManages(role)):
		writeError(w, http.StatusForbidden, codeMissingPermissions, "Missing Permissions")
		return
	case role == nil:
		writeError(w, http.StatusNotFound, codeUnknownRole, "Unknown Role")
		return
	case !ok:
		writeError(w, http.StatusNotFound, codeUnknownMember, "Unknown Member")
		return
	}
	has := slices.Contains(m.Roles, role.ID)
	switch {
	case r.Method == http.MethodPut && !has:
		m.Roles = append(m.Roles, role.ID)
	case r.Method == http.MethodDelete && has:
		m.Roles = slices.DeleteFunc(m.Roles, func(id string) bool { return id == role.ID })
	default:
		w.WriteHeader(http.StatusNoContent)
		return
	}
	s.notifyLocked()
	s.memberUpdatedLocked(m)
	w.WriteHeader(http.StatusNoContent)
}

// botManages reports whether Discord lets the bot add and remove the
// role: an owner may manage any role but a managed one or @everyone;
// anyone else needs Manage Roles (or Administrator) and a higher role.
// s.mu must be held.
func (s *Server) botManages(role *discordgo.Role) bool {
	if role.Managed || role.ID == s.opts.GuildID {
		return false
	}
	if s.guild.owner == s.opts.AppID {
		return true
	}
	perms, top := int64(0), 0
	if everyone := s.guild.role(s.opts.GuildID); everyone != nil {
		perms = everyone.Permissions
	}
	for _, id := range s.guild.members[s.opts.AppID].Roles {
		if r := s.guild.role(id); r != nil {
			perms |= r.Permissions
			top = max(top, r.Position)
		}
	}
	mayManage := perms&(discordgo.PermissionManageRoles|discordgo.PermissionAdministrator) != 0
	return mayManage && role.Position < top
}

// memberUpdatedLocked dispatches GUILD_MEMBER_UPDATE for m to the
// guild's shard, if it is connected. It is sent under s.mu so that the
// updates go out in the order of the changes.
func (s *Server) memberUpdatedLocked(m *discordgo.Member) {
	for _, c := range s.conns {
		if c.info.Open && s.onShard(s.opts.GuildID, c.info.Shard) {
			u := memberCopy(m)
			u.GuildID = s.opts.GuildID
			_ = c.send(0, "GUILD_MEMBER_UPDATE", u)
			return
		}
	}
}

// rateLimited answers 429 as Discord does: the body with retry_after, in
// seconds, and the bucket's headers.
// See https://discord.com/developers/docs/topics/rate-limits#exceeding-a-rate-limit.
func rateLimited(w http.ResponseWriter, retryAfter float64) {
	after := strconv.FormatFloat(retryAfter, 'f', 3, 64)
	h := w.Header()
	h.Set("Retry-After", strconv.Itoa(int(math.Ceil(retryAfter))))
	h.Set("X-RateLimit-Limit", "10")
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Reset", strconv.FormatFloat(float64(time.Now().UnixMilli())/1000+retryAfter, 'f', 3, 64))
	h.Set("X-RateLimit-Reset-After", after)
	h.Set("X-RateLimit-Bucket", "fake-member-roles")
	h.Set("X-RateLimit-Scope", "user")
	writeJSON(w, http.StatusTooManyRequests, map[string]any{
		"message": "You are being rate limited.", "retry_after": retryAfter, "global": false,
	})
}
