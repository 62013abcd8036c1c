package discordtest

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/bwmarrin/discordgo"
)

// The test guild's roles and owner, as a new fake starts with them.
const (
	// DefaultBotRoleID is the bot's own role: managed by its integration,
	// at position DefaultBotRolePosition, with Manage Roles, View Channels
	// and Send Messages.
	DefaultBotRoleID       = "500000000000000005"
	DefaultBotRoleName     = "poapbot"
	DefaultBotRolePosition = 10
	// DefaultOwnerID owns the test guild.
	DefaultOwnerID = "1"
	// EveryonePermissions are @everyone's permissions.
	EveryonePermissions = discordgo.PermissionViewChannel | discordgo.PermissionSendMessages
)

// Discord's JSON error codes of guilds and members.
const (
	codeUnknownGuild  = 10004
	codeUnknownMember = 10007
	codeUnknownRole   = 10011
)

// guildState is the test guild's owner, roles and members; guarded by
// Server.mu.
type guildState struct {
	owner string
	// roles are in the order added, @everyone (whose id is the guild's)
	// first.
	roles   []discordgo.Role
	members map[string]*discordgo.Member
}

func newGuildState(o Options) guildState {
	g := guildState{owner: DefaultOwnerID, members: map[string]*discordgo.Member{}}
	g.roles = []discordgo.Role{
		{ID: o.GuildID, Name: "@everyone", Permissions: EveryonePermissions},
		{
			ID: DefaultBotRoleID, Name: DefaultBotRoleName, Managed: true, Position: DefaultBotRolePosition,
			Permissions: discordgo.PermissionManageRoles | EveryonePermissions,
		},
	}
	bot := &discordgo.User{ID: o.AppID, Username: "poapbot", Bot: true}
	g.members[o.AppID] = &discordgo.Member{User: bot, Roles: []string{DefaultBotRoleID}, JoinedAt: time.Unix(1700000000, 0).UTC()}
	return g
}

// role returns the role with that id, nil when there is none.
func (g *guildState) role(id string) *discordgo.Role {
	for i := range g.roles {
		if g.roles[i].ID == id {
			return &g.roles[i]
		}
	}
	return nil
}

// guildRoutes registers the routes of the guild, its roles and members.
func (s *Server) guildRoutes() {
	s.mux.HandleFunc("GET /api/{v}/guilds/{guild}", s.authed(s.inGuild(s.getGuild)))
	s.mux.HandleFunc("GET /api/{v}/guilds/{guild}/roles", s.authed(s.inGuild(s.getRoles)))
	s.mux.HandleFunc("GET /api/{v}/guilds/{guild}/members/{user}", s.authed(s.inGuild(s.getMember)))
	s.mux.HandleFunc("PUT /api/{v}/guilds/{guild}/members/{user}/roles/{role}", s.authed(s.inGuild(s.changeRole)))
	s.mux.HandleFunc("DELETE /api/{v}/guilds/{guild}/members/{user}/roles/{role}", s.authed(s.inGuild(s.changeRole)))
}

// inGuild answers 404 Unknown Guild for any guild but the test guild.
func (s *Server) inGuild(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("guild") != s.opts.GuildID {
			writeError(w, http.StatusNotFound, codeUnknownGuild, "Unknown Guild")
			return
		}
		h(w, r)
	}
}

// getGuild answers GET /guilds/{guild}: its id, name, owner and roles.
func (s *Server) getGuild(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	g := map[string]any{
		"id": s.opts.GuildID, "name": s.opts.GuildName, "owner_id": s.guild.owner,
		"roles": slices.Clone(s.guild.roles), "emojis": []any{}, "features": []string{},
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, g)
}

// getRoles answers GET /guilds/{guild}/roles.
func (s *Server) getRoles(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	roles := slices.Clone(s.guild.roles)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, roles)
}

// getMember answers GET /guilds/{guild}/members/{user}, 404 Unknown
// Member for a user who is not in the guild.
func (s *Server) getMember(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	m, ok := s.guild.members[r.PathValue("user")]
	var out discordgo.Member
	if ok {
		out = memberCopy(m)
	}
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, codeUnknownMember, "Unknown Member")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// memberCopy copies m, without its guild id as Discord's member routes
// answer.
func memberCopy(m *discordgo.Member) discordgo.Member {
	out := *m
	u := *m.User
	out.User, out.Roles, out.GuildID = &u, slices.Clone(m.Roles), ""
	if out.Roles == nil {
		out.Roles = []string{}
	}
	return out
}

// AddRole adds a role to the test guild, or replaces the one with its id.
func (s *Server) AddRole(role discordgo.Role) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.guild.role(role.ID); r != nil {
		*r = role
	} else {
		s.guild.roles = append(s.guild.roles, role)
	}
	s.notifyLocked()
}

// AddMember puts a user in the test guild with the given roles, without
// telling the bot (see Join). name is the user's username and global
// name.
func (s *Server) AddMember(userID, name string, roles ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addMemberLocked(userID, name, roles)
}

func (s *Server) addMemberLocked(userID, name string, roles []string) *discordgo.Member {
	m := &discordgo.Member{
		User:     &discordgo.User{ID: userID, Username: name, GlobalName: name},
		Roles:    append([]string{}, roles...),
		JoinedAt: s.now().UTC(),
	}
	s.guild.members[userID] = m
	s.notifyLocked()
	return m
}

// Join puts a user in the test guild, as AddMember, and dispatches
// GUILD_MEMBER_ADD to the guild's shard, as Discord does when someone
// joins.
func (s *Server) Join(ctx context.Context, userID, name string) error {
	s.mu.Lock()
	m := memberCopy(s.addMemberLocked(userID, name, nil))
	s.mu.Unlock()
	m.GuildID = s.opts.GuildID
	return s.Dispatch(ctx, "GUILD_MEMBER_ADD", m)
}

// Leave takes a user out of the test guild and dispatches
// GUILD_MEMBER_REMOVE.
func (s *Server) Leave(ctx context.Context, userID string) error {
	s.mu.Lock()
	m, ok := s.guild.members[userID]
	delete(s.guild.members, userID)
	s.notifyLocked()
	s.mu.Unlock()
	user := &discordgo.User{ID: userID}
	if ok {
		user = m.User
	}
	return s.Dispatch(ctx, "GUILD_MEMBER_REMOVE", map[string]any{"guild_id": s.opts.GuildID, "user": user})
}

// SetBotRoles replaces the bot's roles in the test guild (by default
// DefaultBotRoleID alone): its permissions are those of its roles and
// @everyone.
func (s *Server) SetBotRoles(roles ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.guild.members[s.opts.AppID].Roles = append([]string{}, roles...)
	s.notifyLocked()
}

// SetOwner makes the user the test guild's owner, who has every
// permission.
func (s *Server) SetOwner(userID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.guild.owner = userID
	s.notifyLocked()
}

// MemberRoles returns the roles of a member of the test guild, nil when
// the user is not in it.
func (s *Server) MemberRoles(userID string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.guild.members[userID]; ok {
		return append([]string{}, m.Roles...)
	}
	return nil
}
