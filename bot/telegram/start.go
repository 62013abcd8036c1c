package telegram

import (
	"context"
	"encoding/base64"
	"regexp"
	"strconv"
	"strings"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// A post's command button in a group is a deep link,
// t.me/<bot>?start=<linkPrefix><action id>: it opens the presser's private
// chat, where /start follows it (see followLink). The id names an action
// the bot stored when it made the button (core.ButtonAction); nothing else
// travels in the link. Telegram allows 1 to 64 of A-Z, a-z, 0-9, _ and -
// in a payload; the prefix and a 26-character id fit.
// See https://core.telegram.org/bots/features#deep-linking.
const linkPrefix = "b-"

// commandPayload matches the payloads of the deep links in the group notes
// that only open the private chat (see deepLink): a command word.
var commandPayload = regexp.MustCompile(`^[a-z0-9_]{1,32}$`)

// start answers /start and its deep links (t.me/<bot>?start=<payload>):
//   - no payload, or a command word (a group note's link, which only opens
//     the private chat): /help;
//   - a post's button (linkPrefix and an action id): what the bot stored
//     for it, for the group it was posted in, once getChatMember says the
//     member belongs there (followLink);
//   - a claim message's button from before actions were stored: a claim of
//     that drop for that group, and nothing else (legacyClaim);
//   - anything else was not made by the bot: refused, and nothing runs.
func (a *Adapter) start(ctx context.Context, o origin, payload string) bot.Reply {
	if payload == "" || commandPayload.MatchString(payload) || !o.private() {
		reply, _ := a.bot.HandleLine(ctx, a.newRequest(ctx, o), "/help", "")
		return reply
	}
	if id, ok := strings.CutPrefix(payload, linkPrefix); ok {
		return a.followLink(ctx, o, id)
	}
	if group, eventID, ok := parseLegacyPayload(payload); ok {
		return a.legacyClaim(ctx, o, group, eventID)
	}
	a.log.Info("telegram /start with a payload the bot did not make; refused")
	return a.refusal(ctx, o, core.ErrButtonUnknown)
}

// followLink runs the action of a post's button, id, for the member in the
// place it was made for, after checking that they belong to it.
func (a *Adapter) followLink(ctx context.Context, o origin, id string) bot.Reply {
	place, err := a.bot.LinkPlace(ctx, core.Telegram, id)
	if err != nil {
		return a.refusal(ctx, o, err)
	}
	group, err := strconv.ParseInt(place, 10, 64)
	if err != nil {
		return a.refusal(ctx, o, core.ErrButtonUnknown)
	}
	req, err := a.groupRequest(ctx, o, group)
	if err != nil {
		return bot.Reply{Text: words(err), Personal: true}
	}
	reply, _ := a.bot.FollowLink(ctx, req, id)
	return reply
}

// refusal is the answer to a deep link or a button that runs nothing.
func (a *Adapter) refusal(ctx context.Context, o origin, err error) bot.Reply {
	return a.bot.Refusal(a.newRequest(ctx, o), err)
}

// parseLegacyPayload reads the payload of a claim message's button posted
// before the bot stored its buttons' actions: base64url, without padding, of
// "<group chat id>|claim <drop id>". Such a link claims nothing a member could
// not claim by typing /claim <drop> in the private chat (the group's
// membership is checked the same way), so claim messages already posted keep
// working; any other line such a payload carries is refused (ok false),
// since anyone could have written it.
func parseLegacyPayload(payload string) (group, eventID int64, ok bool) {
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return 0, 0, false
	}
	id, line, found := strings.Cut(string(raw), "|")
	group, err = strconv.ParseInt(id, 10, 64)
	if !found || err != nil || group >= 0 {
		return 0, 0, false
	}
	word, drop, found := strings.Cut(line, " ")
	if !found || word != "claim" {
		return 0, 0, false
	}
	eventID, err = strconv.ParseInt(drop, 10, 64)
	if err != nil || eventID <= 0 || strconv.FormatInt(eventID, 10) != drop {
		return 0, 0, false
	}
	return group, eventID, true
}

// legacyClaim claims eventID for the member in group, after checking that
// they belong to it, as an old claim message's button did.
func (a *Adapter) legacyClaim(ctx context.Context, o origin, group, eventID int64) bot.Reply {
	req, err := a.groupRequest(ctx, o, group)
	if err != nil {
		return bot.Reply{Text: words(err), Personal: true}
	}
	reply, _ := a.bot.HandleLine(ctx, req, "/claim "+strconv.FormatInt(eventID, 10), "")
	reply.Post = nil
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
	return groupRequestFor(o, core.Place{Platform: core.Telegram, ExternalID: strconv.FormatInt(group, 10)}, admin), nil
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
func groupRequestFor(o origin, place core.Place, admin bool) *bot.Request {
	return &bot.Request{
		Place: place,
		Caps:  capabilities,
		Caller: bot.Caller{
			ExternalID: strconv.FormatInt(o.from.ID, 10), Name: displayName(o.from),
			ManagesDrops: admin, ManagesRoles: admin,
		},
		Roles: []string{place.ExternalID},
	}
}
