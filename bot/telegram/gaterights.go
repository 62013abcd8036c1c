package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/core"
)

// The administrator rights gating needs, by the names Telegram's apps
// show them.
const (
	rightInvite = "Invite Users via Link"
	rightBan    = "Ban Users"
	rightDelete = "Delete Messages"
)

// The words of the problems that stop a gate; a Reason is a sentence
// without its full stop (the notice adds it), a Fix a whole sentence.
const (
	fixNotGroup = "Run `/gate add` in the group you want to gate."
	reasonAdmin = "I am not an administrator of this group"
	fixAdmin    = "Make me an administrator of the group with the rights " + rightInvite + " and " + rightBan +
		" (group settings, Administrators, Add Admin)."
	reasonGone = "I am no longer in the group"
	fixGone    = "Add me back to the group as an administrator with the rights " + rightInvite + " and " + rightBan + "."
)

// chatRights is what getChat and getChatMember say of a chat and of the
// bot's place in it.
type chatRights struct {
	typ, title string
	// status is the bot's status ("administrator", "creator", "member"...),
	// empty outside groups.
	status                   string
	invite, restrict, delete bool
}

func (r chatRights) group() bool { return r.typ == "group" || r.typ == "supergroup" }
func (r chatRights) admin() bool { return r.status == "administrator" || r.status == "creator" }

// problem says why the bot cannot enforce a gate on the chat, nil when
// it can: the chat is a group, the bot administers it and may both invite
// (approve join requests) and ban (remove members).
func (r chatRights) problem() *core.GateProblem {
	switch {
	case !r.group():
		return notGroup(r.typ)
	case !r.admin():
		return &core.GateProblem{Reason: reasonAdmin, Fix: fixAdmin}
	case !r.invite && !r.restrict:
		return &core.GateProblem{
			Reason: "I may neither invite nor ban users in this group, so I can neither approve join requests nor remove members who no longer qualify",
			Fix:    rightFix(r, rightInvite+" and "+rightBan),
		}
	case !r.invite:
		return &core.GateProblem{Reason: "I may not invite users to this group, so I cannot approve join requests", Fix: rightFix(r, rightInvite)}
	case !r.restrict:
		return &core.GateProblem{Reason: "I may not ban users in this group, so I cannot remove members who no longer qualify", Fix: rightFix(r, rightBan)}
	}
	return nil
}

// notGroup is the problem of a gate asked for in a private chat or a
// channel.
func notGroup(typ string) *core.GateProblem {
	what := "chat"
	switch typ {
	case "private":
		what = "private chat"
	case "channel":
		what = "channel"
	}
	return &core.GateProblem{Reason: "This is a " + what + ", not a group: only a group can be gated", Fix: fixNotGroup}
}

// rightFix says how to give the bot rights ("Ban Users", or two joined
// by "and"), or to make it an administrator first.
func rightFix(r chatRights, rights string) string {
	plural := "right"
	if strings.Contains(rights, " and ") {
		plural = "rights"
	}
	if !r.admin() {
		return "Make me an administrator of the group with the " + plural + " " + rights + "."
	}
	return "In the group's settings, under Administrators, give me the " + plural + " " + rights + "."
}

// readRights reads the chat (getChat) and, for a group, the bot's
// status and rights in it (getChatMember). A bot that is not in the chat
// gets a *core.GateProblem saying so; other failures are the Bot API's
// errors.
func (g *Gates) readRights(ctx context.Context, chatID int64) (chatRights, error) {
	chat, err := g.a.getChat(ctx, chatID)
	if err != nil {
		return chatRights{}, g.lookupError("getChat", err)
	}
	r := chatRights{typ: chat.Type, title: chat.Title}
	if !r.group() {
		return r, nil
	}
	m, err := g.a.getChatMember(ctx, chatID, g.a.api.Self.ID)
	if err != nil {
		return chatRights{}, g.lookupError("getChatMember", err)
	}
	r.status = m.Status
	switch m.Status {
	case "creator":
		r.invite, r.restrict, r.delete = true, true, true
	case "administrator":
		r.invite, r.restrict, r.delete = m.CanInviteUsers, m.CanRestrictMembers, m.CanDeleteMessages
	}
	return r, nil
}

// lookupError is the error of a failed look-up of the chat: a
// *core.GateProblem when the bot is not in it, the wrapped error
// otherwise.
func (g *Gates) lookupError(method string, err error) error {
	if absent(err) {
		g.a.log.Warn("telegram gate: the bot is not in the chat", "method", method, "err", err)
		return &core.GateProblem{Reason: reasonGone, Fix: fixGone}
	}
	return fmt.Errorf("telegram: %s: %w", method, err)
}

// Setup checks the bot's place in the chat for /setup check: the chat is
// a group, the bot administers it, and may invite users (join requests),
// ban users (removals) and delete messages (commands that carry a drop's
// edit code). A chat that is not a group, or that Telegram would not
// describe, gets one line.
func (g *Gates) Setup(ctx context.Context, place string) []core.SetupLine {
	chatID, err := parseChatID(place)
	if err != nil {
		return []core.SetupLine{{Check: "This chat is a group", Fix: fixNotGroup}}
	}
	ctx, cancel := context.WithTimeout(ctx, gateTimeout)
	defer cancel()
	r, err := g.readRights(ctx, chatID)
	var p *core.GateProblem
	switch {
	case errors.As(err, &p):
		return []core.SetupLine{{Check: "I am in this group", Fix: p.Fix}}
	case err != nil:
		g.a.log.Warn("telegram setup check failed", "chat_id", chatID, "err", err)
		return []core.SetupLine{{Check: "Telegram tells me about this group", Fix: "Telegram did not answer just now: run `/setup check` again in a minute."}}
	}
	if !r.group() {
		return []core.SetupLine{{Check: "This chat is a group", Fix: "Run `/setup check` in the group you want to set up."}}
	}
	return []core.SetupLine{
		{Check: "This chat is a group", OK: true},
		setupLine("I am an administrator of the group", r.admin(), fixAdmin),
		setupLine("I may invite users via link, to approve join requests", r.invite, rightFix(r, rightInvite)),
		setupLine("I may ban users, to remove members who no longer qualify", r.restrict, rightFix(r, rightBan)),
		setupLine("I may delete messages, to delete commands that show a drop's edit code", r.delete, rightFix(r, rightDelete)),
	}
}

// setupLine is a line of /setup check, with its fix when it failed.
func setupLine(check string, ok bool, fix string) core.SetupLine {
	if ok {
		fix = ""
	}
	return core.SetupLine{Check: check, OK: ok, Fix: fix}
}

// getChat reads a chat's type and title.
// See https://core.telegram.org/bots/api#getchat.
func (a *Adapter) getChat(ctx context.Context, chatID int64) (tgbotapi.Chat, error) {
	resp, err := a.request(ctx, tgbotapi.ChatInfoConfig{ChatConfig: tgbotapi.ChatConfig{ChatID: chatID}})
	if err != nil {
		return tgbotapi.Chat{}, err
	}
	var c tgbotapi.Chat
	if err := json.Unmarshal(resp.Result, &c); err != nil {
		return tgbotapi.Chat{}, err
	}
	return c, nil
}

// absent reports whether err says the bot is not in the chat: removed
// from it, gone from it, or the chat no longer exists. Telegram answers
// 403 "Forbidden: bot was kicked from the supergroup chat" or "bot is not
// a member of the group chat", or 400 "chat not found".
func absent(err error) bool {
	var apiErr *tgbotapi.Error
	if !errors.As(err, &apiErr) {
		return false
	}
	m := apiErr.Message
	switch apiErr.Code {
	case http.StatusForbidden:
		return strings.Contains(m, "kicked") || strings.Contains(m, "not a member") || strings.Contains(m, "chat not found")
	case http.StatusBadRequest:
		return strings.Contains(m, "chat not found")
	}
	return false
}

// lacksRights reports whether err says the bot lacks an administrator
// right: 400 "not enough rights to restrict/unrestrict chat member", "not
// enough rights to manage chat invite links", "CHAT_ADMIN_REQUIRED",
// "need administrator rights in the channel chat" and their kin, or
// another 403 than absent's.
func lacksRights(err error) bool {
	var apiErr *tgbotapi.Error
	if errors.As(err, &apiErr) && apiErr.Code == http.StatusForbidden {
		return !absent(err)
	}
	return apiSays(err, "not enough rights", "CHAT_ADMIN_REQUIRED", "administrator rights", "have no rights", "RIGHT_FORBIDDEN")
}

// apiSays reports whether err is a 400 of the Bot API that carries one
// of words.
func apiSays(err error, words ...string) bool {
	var apiErr *tgbotapi.Error
	if !errors.As(err, &apiErr) || apiErr.Code != http.StatusBadRequest {
		return false
	}
	for _, w := range words {
		if strings.Contains(apiErr.Message, w) {
			return true
		}
	}
	return false
}
