package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// gateTimeout bounds one gate action, 429 waits included: a Bot API that
// hangs cannot hold a sweep of the gates.
const gateTimeout = 30 * time.Second

// inviteLinkName names a gate's join-request link in the group's list of
// invite links (at most 32 characters).
const inviteLinkName = "POAP gate"

// The problems of a gate action Telegram refused: the gate pauses until
// a moderator gives the bot its rights back (see Gates.refused).
var (
	refusedJoins = core.GateProblem{
		Reason: "Telegram refused to let me approve or decline join requests in the group",
		Fix:    "Make sure I am an administrator of the group with the right " + rightInvite + ".",
	}
	refusedBans = core.GateProblem{
		Reason: "Telegram refused to let me remove members from the group",
		Fix:    "Make sure I am an administrator of the group with the right " + rightBan + ".",
	}
	refusedLookup = core.GateProblem{
		Reason: "Telegram refused to tell me who is in the group",
		Fix:    "Make sure I am an administrator of the group.",
	}
)

// Gates carries out gating on Telegram (core.GateActions). The place is
// a group's chat id, and a gate's target is the group itself: members ask
// to join through the gate's join-request invite link, the bot approves
// or declines their requests, and removes a member with a ban followed at
// once by an unban, so that they may ask again. Get it from
// Adapter.GateActions.
type Gates struct{ a *Adapter }

var _ core.GateActions = (*Gates)(nil)

// GateActions returns the adapter's gating actions (*Gates).
func (a *Adapter) GateActions() core.GateActions { return &Gates{a: a} }

// Prepare checks that the bot can gate the group place (target is
// ignored: the group is the target) and returns the group as the gate's
// target. It creates nothing: the gate's join-request invite link is
// CreateInviteLink's, once the gate is stored. It returns a
// *core.GateProblem (errors.Is core.ErrCannotEnforce) when place is not a
// group (the error matches core.ErrNotGroup too), the bot is not in it or
// not an administrator, or may not invite or ban users. Other errors are
// the Bot API's.
func (g *Gates) Prepare(ctx context.Context, place, _ string) (core.GateTarget, error) {
	chatID, err := parseChatID(place)
	if err != nil {
		return core.GateTarget{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, gateTimeout)
	defer cancel()
	r, err := g.enforceable(ctx, chatID)
	if err != nil {
		return core.GateTarget{}, err
	}
	return core.GateTarget{ID: strconv.FormatInt(chatID, 10), Name: r.title, Kind: core.GateGroup}, nil
}

var _ core.GateInviter = (*Gates)(nil)

// CreateInviteLink creates the join-request invite link of the gate on
// the group place, named inviteLinkName in the group's list of links. It
// returns a *core.GateProblem (errors.Is core.ErrCannotEnforce) when
// Telegram refused it for the bot's rights; other errors are the Bot
// API's.
// See https://core.telegram.org/bots/api#createchatinvitelink.
func (g *Gates) CreateInviteLink(ctx context.Context, place string, _ core.GateTarget) (string, error) {
	chatID, err := parseChatID(place)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, gateTimeout)
	defer cancel()
	cfg := tgbotapi.CreateChatInviteLinkConfig{ChatConfig: tgbotapi.ChatConfig{ChatID: chatID}, Name: inviteLinkName, CreatesJoinRequest: true}
	resp, err := g.a.request(ctx, cfg)
	if err != nil {
		if absent(err) || lacksRights(err) {
			g.a.log.Warn("telegram refused the gate's invite link", "chat_id", chatID, "err", err)
			// The rights are read again only to word the fix.
			r, _ := g.readRights(ctx, chatID)
			return "", &core.GateProblem{Reason: "Telegram refused to let me create an invite link for the group", Fix: rightFix(r, rightInvite)}
		}
		return "", fmt.Errorf("telegram: createChatInviteLink: %w", err)
	}
	var link tgbotapi.ChatInviteLink
	if err := json.Unmarshal(resp.Result, &link); err != nil {
		return "", fmt.Errorf("telegram: createChatInviteLink: %w", err)
	}
	if link.InviteLink == "" {
		return "", errors.New("telegram: createChatInviteLink answered no link")
	}
	return link.InviteLink, nil
}

// Check makes Prepare's checks: nil when the bot can enforce a gate on
// the group place now, a *core.GateProblem when it cannot, the Bot API's
// error when it could not tell.
func (g *Gates) Check(ctx context.Context, place string, _ core.GateTarget) error {
	chatID, err := parseChatID(place)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, gateTimeout)
	defer cancel()
	_, err = g.enforceable(ctx, chatID)
	return err
}

// enforceable reads the bot's rights in the chat and returns them, with
// the problem that stops a gate there, if any.
func (g *Gates) enforceable(ctx context.Context, chatID int64) (chatRights, error) {
	r, err := g.readRights(ctx, chatID)
	if err != nil {
		return r, err
	}
	p := r.problem()
	switch {
	case p == nil:
		return r, nil
	case !r.group():
		return r, fmt.Errorf("%w: %w", core.ErrNotGroup, p)
	}
	return r, p
}

// Standing says whether the member is in the group (creator,
// administrator, member, or restricted but a member); having the target
// is the same thing. A user Telegram does not know is not in it.
// See https://core.telegram.org/bots/api#getchatmember.
func (g *Gates) Standing(ctx context.Context, place string, _ core.GateTarget, member string) (core.Standing, error) {
	chatID, userID, err := parseChatUser(place, member)
	if err != nil {
		return core.Standing{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, gateTimeout)
	defer cancel()
	m, err := g.a.getChatMember(ctx, chatID, userID)
	switch {
	case apiSays(err, "user not found", "member not found", "PARTICIPANT_ID_INVALID"):
		return core.Standing{}, nil
	case err != nil:
		return core.Standing{}, g.refused("getChatMember", err, refusedLookup)
	}
	in := m.Status == "creator" || m.Status == "administrator" || m.Status == "member" || (m.Status == "restricted" && m.IsMember)
	return core.Standing{InPlace: in, Has: in}, nil
}

// Grant approves the member's request to join the group. A request
// handled already (HIDE_REQUESTER_MISSING) or a member in the group
// already is core.ErrJoinRequestGone: the bot did not admit them. A refusal for want of a right is a
// *core.GateProblem matching core.ErrGateForbidden.
// See https://core.telegram.org/bots/api#approvechatjoinrequest.
func (g *Gates) Grant(ctx context.Context, place string, _ core.GateTarget, member string) error {
	chatID, userID, err := parseChatUser(place, member)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, gateTimeout)
	defer cancel()
	_, err = g.a.request(ctx, tgbotapi.ApproveChatJoinRequestConfig{ChatConfig: tgbotapi.ChatConfig{ChatID: chatID}, UserID: userID})
	if err != nil && apiSays(err, "HIDE_REQUESTER_MISSING", "USER_ALREADY_PARTICIPANT") {
		// Not admitted by the bot: an administrator answered, the member
		// withdrew, or joined otherwise. No grant is recorded for it.
		return fmt.Errorf("telegram: approve %d in %d: %w", userID, chatID, core.ErrJoinRequestGone)
	}
	return g.joinAnswered("approveChatJoinRequest", chatID, userID, err)
}

// Decline declines the member's request to join the group, like Grant.
// See https://core.telegram.org/bots/api#declinechatjoinrequest.
func (g *Gates) Decline(ctx context.Context, place string, _ core.GateTarget, member string) error {
	chatID, userID, err := parseChatUser(place, member)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, gateTimeout)
	defer cancel()
	_, err = g.a.request(ctx, tgbotapi.DeclineChatJoinRequest{ChatConfig: tgbotapi.ChatConfig{ChatID: chatID}, UserID: userID})
	return g.joinAnswered("declineChatJoinRequest", chatID, userID, err)
}

// joinAnswered is the error of an answer to a join request: nil when the
// request was handled before (by the bot on another replica, an
// administrator, or the member withdrawing it).
func (g *Gates) joinAnswered(method string, chatID, userID int64, err error) error {
	switch {
	case err == nil:
		return nil
	case apiSays(err, "HIDE_REQUESTER_MISSING", "USER_ALREADY_PARTICIPANT"):
		g.a.log.Debug("telegram join request handled already", "method", method, "chat_id", chatID, "user_id", userID, "err", err)
		return nil
	}
	return g.refused(method, err, refusedJoins)
}

// Revoke removes the member from the group: a ban, then at once an unban
// (only_if_banned), so that they may ask to join again. A refusal for
// want of a right is a *core.GateProblem matching core.ErrGateForbidden;
// when the unban fails the member stays banned, and the error says so.
// See https://core.telegram.org/bots/api#banchatmember.
func (g *Gates) Revoke(ctx context.Context, place string, _ core.GateTarget, member string) error {
	chatID, userID, err := parseChatUser(place, member)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, gateTimeout)
	defer cancel()
	m := tgbotapi.ChatMemberConfig{ChatID: chatID, UserID: userID}
	// The ban ends by itself after banLength, should the unban below
	// fail: the member is never left banned for good.
	ban := tgbotapi.BanChatMemberConfig{ChatMemberConfig: m, UntilDate: time.Now().Add(banLength).Unix()}
	if _, err := g.a.request(ctx, ban); err != nil {
		return g.refused("banChatMember", err, refusedBans)
	}
	if _, err := g.a.request(ctx, tgbotapi.UnbanChatMemberConfig{ChatMemberConfig: m, OnlyIfBanned: true}); err != nil {
		return fmt.Errorf("telegram: user %d removed from %d but still banned: %w", userID, chatID, g.refused("unbanChatMember", err, refusedBans))
	}
	return nil
}

// banLength is how long the ban of a removal lasts should its unban fail:
// over Telegram's 30 seconds, under which a ban is for ever.
const banLength = 2 * time.Minute

// refused is the error of a gate action that failed: a copy of p, or
// the problem of a bot no longer in the group, marked Forbidden (the gate
// pauses) when Telegram refused for either reason; the Bot API's error
// otherwise.
func (g *Gates) refused(method string, err error, p core.GateProblem) error {
	switch {
	case absent(err):
		p = core.GateProblem{Reason: reasonGone, Fix: fixGone}
	case !lacksRights(err):
		return fmt.Errorf("telegram: %s: %w", method, err)
	}
	g.a.log.Warn("telegram refused a gate action", "method", method, "err", err)
	p.Forbidden = true
	return &p
}

// Tell writes the notice to the member in private (a join requester can
// be written to so), rendered like a reply.
// See https://core.telegram.org/bots/api#sendmessage.
func (g *Gates) Tell(ctx context.Context, member string, n core.GateNotice) error {
	userID, err := strconv.ParseInt(strings.TrimSpace(member), 10, 64)
	if err != nil {
		return fmt.Errorf("telegram: %q is not a user id", member)
	}
	return g.say(ctx, userID, n)
}

// Announce writes the notice in channel, or in the group place when
// channel is empty.
func (g *Gates) Announce(ctx context.Context, place, channel string, n core.GateNotice) error {
	if strings.TrimSpace(channel) == "" {
		channel = place
	}
	chatID, err := parseChatID(channel)
	if err != nil {
		return err
	}
	return g.say(ctx, chatID, n)
}

// say sends the words of a notice to a chat.
func (g *Gates) say(ctx context.Context, chatID int64, n core.GateNotice) error {
	text := bot.GateNoticeText(n, capabilities)
	if text == "" {
		return fmt.Errorf("telegram: gate notice of kind %d has no words", n.Kind)
	}
	ctx, cancel := context.WithTimeout(ctx, gateTimeout)
	defer cancel()
	if err := g.a.sendReply(ctx, chatID, bot.Reply{Text: text}); err != nil {
		return fmt.Errorf("telegram: gate notice to %d: %w", chatID, err)
	}
	return nil
}

// parseChatID reads a chat id.
func parseChatID(s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("telegram: %q is not a chat id", s)
	}
	return id, nil
}

// parseChatUser reads a chat id and a user id.
func parseChatUser(place, member string) (chatID, userID int64, err error) {
	if chatID, err = parseChatID(place); err != nil {
		return 0, 0, err
	}
	if userID, err = strconv.ParseInt(strings.TrimSpace(member), 10, 64); err != nil {
		return 0, 0, fmt.Errorf("telegram: %q is not a user id", member)
	}
	return chatID, userID, nil
}
