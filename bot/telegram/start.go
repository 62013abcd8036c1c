package telegram

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// maxStartPayload is Telegram's limit on a /start payload: 1 to 64 of
// A-Z, a-z, 0-9, _ and -.
// See https://core.telegram.org/bots/features#deep-linking.
const maxStartPayload = 64

// startPayload encodes a command a group post's button runs, for the deep
// link t.me/<bot>?start=<payload>. The format is base64url without padding
// of "<group chat id>|<command line without the slash>", the line in its
// compact form ("-1001234567890|claim 197001" becomes a 36-character
// payload); base64url uses only the characters a payload allows. ok is
// false when the payload would be longer than 64 characters.
func (a *Adapter) startPayload(group int64, line string) (string, bool) {
	if cmd, opts, err := a.bot.ParseLine(line, ""); err == nil {
		if compact, ok := compactLine(cmd, opts); ok {
			line = compact
		}
	}
	raw := strconv.FormatInt(group, 10) + "|" + strings.TrimPrefix(strings.TrimSpace(line), "/")
	payload := base64.RawURLEncoding.EncodeToString([]byte(raw))
	return payload, len(payload) <= maxStartPayload
}

// parseStartPayload decodes a payload of startPayload. ok is false for any
// other payload: the command words of the deep links in group notes
// ("claim") are not valid base64url of a group id and a line.
func parseStartPayload(payload string) (group int64, line string, ok bool) {
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return 0, "", false
	}
	id, line, found := strings.Cut(string(raw), "|")
	group, err = strconv.ParseInt(id, 10, 64)
	if !found || err != nil || group >= 0 || strings.TrimSpace(line) == "" {
		return 0, "", false
	}
	return group, "/" + line, true
}

// start answers /start and its deep links (t.me/<bot>?start=<payload>). A
// payload of startPayload, from a group post's button, runs its command in
// the private chat for the group: as the member, with the group as the
// place, once getChatMember says they belong to it. Any other payload is
// empty (the member opened the chat by hand) or the command word of a
// group note (see deepLink), and /start answers like /help.
func (a *Adapter) start(ctx context.Context, o origin, payload string) bot.Reply {
	group, line, ok := parseStartPayload(payload)
	if !ok || !o.private() {
		a.log.Debug("telegram /start", "payload", payload, "private", o.private())
		reply, _ := a.bot.HandleLine(ctx, a.newRequest(ctx, o), "/help", "")
		return reply
	}
	req, err := a.groupRequest(ctx, o, group)
	if err != nil {
		return bot.Reply{Text: words(err), Personal: true}
	}
	reply, ok := a.bot.HandleLine(ctx, req, line, "")
	if !ok {
		reply, _ = a.bot.HandleLine(ctx, req, "/help", "")
	}
	if reply.Post != nil {
		// A deep link runs a member's command; it publishes nothing.
		a.log.Warn("telegram deep-linked command asked to publish a post; ignored", "group", group)
		reply.Post = nil
	}
	return reply
}

// groupRequest is the request of a member acting for a group from the
// private chat, after checking with getChatMember that they belong to it
// (see membership). The group is among the request's Roles: a drop that
// requires membership of its group is claimable there.
func (a *Adapter) groupRequest(ctx context.Context, o origin, group int64) (*bot.Request, error) {
	admin, err := a.membership(ctx, group, o.from.ID)
	if err != nil {
		return nil, err
	}
	return groupRequestFor(o, bot.Place{ExternalID: strconv.FormatInt(group, 10)}, admin), nil
}

// membership checks with getChatMember that the member belongs to the
// group: members, administrators, the creator, and restricted members who
// are still in it; not those who left or were removed. admin says whether
// they administer it. errNotInGroup, or errMemberCheck when the Bot API
// could not tell.
func (a *Adapter) membership(ctx context.Context, group, userID int64) (admin bool, err error) {
	m, err := a.getChatMember(ctx, group, userID)
	if err != nil {
		a.log.Warn("telegram getChatMember failed for a membership check", "chat_id", group, "err", err)
		return false, errMemberCheck
	}
	admin = m.Status == "creator" || m.Status == "administrator"
	if !admin && m.Status != "member" && (m.Status != "restricted" || !m.IsMember) {
		return false, errNotInGroup
	}
	return admin, nil
}

// groupRequestFor is the request of a member, verified to belong to the
// group place, acting for it from the private chat.
func groupRequestFor(o origin, place bot.Place, admin bool) *bot.Request {
	return &bot.Request{
		Platform: core.Telegram,
		Place:    place,
		Caller: bot.Caller{
			ExternalID: strconv.FormatInt(o.from.ID, 10), Name: displayName(o.from),
			ManagesDrops: admin, ManagesRoles: admin,
		},
		Roles: []string{place.ExternalID},
	}
}
