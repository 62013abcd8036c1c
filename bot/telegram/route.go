package telegram

import (
	"context"
	"html"
	"regexp"
	"strconv"
	"sync"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// send delivers the reply to a typed command. When a personal reply cannot
// reach the member's private chat, the group gets a note saying how to
// open it, never the personal content.
func (a *Adapter) send(ctx context.Context, o origin, r bot.Reply) {
	if a.deliver(ctx, o, r) {
		a.noteInGroup(ctx, o)
	}
}

// deliver sends a reply where it belongs: a personal one to the member's
// private chat (whose id is the member's id), a public one to the chat the
// command came from. It reports whether a personal reply to a command
// from a group could not reach the member; other failures are logged.
func (a *Adapter) deliver(ctx context.Context, o origin, r bot.Reply) (unreachableInPrivate bool) {
	chatID := o.chat.ID
	if r.Personal {
		chatID = o.from.ID
	}
	err := a.sendReply(ctx, chatID, r)
	if err == nil {
		return false
	}
	if r.Personal && !o.private() && unreachable(err) {
		return true
	}
	a.log.Warn("telegram reply not sent", "chat_id", chatID, "command", o.command, "err", err)
	return false
}

// noteInGroup tells a member in the group that their answer waits in the
// private chat they have not opened yet. This and the callback answer in
// handleCallback are the only words the adapter itself says to members.
func (a *Adapter) noteInGroup(ctx context.Context, o origin) {
	link := a.deepLink(o.command)
	text := mention(o.from) + ", I can only answer you in private: open " + html.EscapeString(link) +
		" and press Start, then send the command again."
	p := tgbotapi.Params{
		"chat_id": strconv.FormatInt(o.chat.ID, 10), "text": text, "parse_mode": tgbotapi.ModeHTML,
		"link_preview_options": `{"is_disabled":true}`,
	}
	if _, err := a.makeRequest(ctx, "sendMessage", p); err != nil {
		a.log.Warn("telegram group note not sent", "chat_id", o.chat.ID, "err", err)
	}
}

// mention names a member in HTML: @username, or a link to the account
// when they have no username, its text their first name without the
// characters that change the direction of text.
func mention(u *tgbotapi.User) string {
	if u.UserName != "" {
		return "@" + html.EscapeString(u.UserName)
	}
	name := core.StripDirectionControls(u.FirstName)
	return `<a href="tg://user?id=` + strconv.FormatInt(u.ID, 10) + `">` + html.EscapeString(name) + "</a>"
}

// notPayload matches what a start payload may not hold: Telegram allows
// A-Z, a-z, 0-9, _ and -, up to 64 characters.
var notPayload = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// deepLink opens the bot's private chat and sends /start <payload>; the
// payload is the command word, read by the start hook.
// See https://core.telegram.org/bots/features#deep-linking.
func (a *Adapter) deepLink(command string) string {
	payload := notPayload.ReplaceAllString(command, "_")
	if payload == "" {
		payload = "help"
	}
	return "https://t.me/" + a.username + "?start=" + bot.Shorten(payload, 64)
}

// adminTTL is how long an administrator lookup is trusted: long enough to
// spare the API during a burst of commands, short enough that a demoted
// admin loses moderator rights within a minute.
const adminTTL = time.Minute

// maxAdminEntries bounds the cache; past it, expired entries are dropped,
// and everything if that is not enough.
const maxAdminEntries = 10000

type adminKey struct{ chat, user int64 }

type adminEntry struct {
	admin   bool
	expires time.Time
}

// adminCache remembers getChatMember verdicts briefly.
type adminCache struct {
	mu  sync.Mutex
	m   map[adminKey]adminEntry
	now func() time.Time
}

func newAdminCache() *adminCache {
	return &adminCache{m: map[adminKey]adminEntry{}, now: time.Now}
}

func (c *adminCache) get(k adminKey) (admin, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok || c.now().After(e.expires) {
		return false, false
	}
	return e.admin, true
}

func (c *adminCache) put(k adminKey, admin bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if len(c.m) >= maxAdminEntries {
		for key, e := range c.m {
			if now.After(e.expires) {
				delete(c.m, key)
			}
		}
		if len(c.m) >= maxAdminEntries {
			clear(c.m)
		}
	}
	c.m[k] = adminEntry{admin: admin, expires: now.Add(adminTTL)}
}

// isAdmin reports whether the member administers the chat (creator or
// administrator). A failed lookup counts as "no" and is not cached.
func (a *Adapter) isAdmin(ctx context.Context, chatID, userID int64) bool {
	k := adminKey{chatID, userID}
	if admin, ok := a.admins.get(k); ok {
		return admin
	}
	status, err := a.getChatMemberStatus(ctx, chatID, userID)
	if err != nil {
		a.log.Warn("telegram getChatMember failed; treating the member as no administrator", "chat_id", chatID, "err", err)
		return false
	}
	admin := status == "creator" || status == "administrator"
	a.admins.put(k, admin)
	return admin
}
