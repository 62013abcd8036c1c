package telegram

import (
	"context"
	"encoding/base64"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core"
)

// validPayload is what Telegram accepts as a /start payload.
var validPayload = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// testAction is the id of a stored action, as the bot sets in
// Button.Action.
const testAction = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

func claimPost(image string) bot.Post {
	return bot.Post{
		Text: "**Drop 197001**: 50 links left.", Image: image, Subject: "drop:1",
		Buttons: []bot.Button{{Label: "Claim", Command: "/claim 197001", Action: testAction}},
	}
}

func groupOrigin(from telegramtest.User) origin {
	return origin{chat: &tgbotapi.Chat{ID: group.ID, Type: "supergroup", Title: group.Title},
		from: &tgbotapi.User{ID: from.ID, FirstName: from.FirstName, UserName: from.Username}, command: "distribute"}
}

// startLink checks a post's only button is a deep link and returns its
// payload.
func startLink(t *testing.T, m telegramtest.Message) string {
	t.Helper()
	if len(m.Buttons) != 1 || len(m.Buttons[0]) != 1 {
		t.Fatalf("post buttons = %+v, want one", m.Buttons)
	}
	b := m.Buttons[0][0]
	u, err := url.Parse(b.URL)
	if err != nil || b.CallbackData != "" || u.Host != "t.me" || u.Path != "/"+telegramtest.DefaultUsername {
		t.Fatalf("post button = %+v, want a URL button to t.me/%s", b, telegramtest.DefaultUsername)
	}
	payload := u.Query().Get("start")
	if !validPayload.MatchString(payload) {
		t.Fatalf("start payload %q is not 1-64 of A-Z a-z 0-9 _ -", payload)
	}
	return payload
}

func TestAdapter_Post(t *testing.T) {
	ctx := context.Background()
	t.Run("PhotoInGroup", func(t *testing.T) {
		e := newEnv(t, Options{})
		p := claimPost("https://img.test/197001.png")
		reply := e.a.withPost(ctx, groupOrigin(alice), bot.Reply{Text: "Posted.", Personal: true, Post: &p})
		if reply.Text != "Posted." || reply.Post != nil {
			t.Errorf("withPost reply = %q (post %v), want %q and no post", reply.Text, reply.Post, "Posted.")
		}
		m := e.waitMessage(t, telegramtest.To(group.ID))
		if m.Method != "sendPhoto" || m.Photo != p.Image || !strings.Contains(m.Text, "<b>Drop 197001</b>") {
			t.Errorf("post = %s photo %q, want a sendPhoto of %s with the text as caption", m, m.Photo, p.Image)
		}
		if got, want := startLink(t, m), linkPrefix+testAction; got != want {
			t.Errorf("start payload = %q, want %q: the action's id, nothing else", got, want)
		}

		p.Text = "**Drop 197001**: 9 links left."
		ref := bot.PostRef{Platform: core.Telegram, Place: "-1001234567890", Channel: "-1001234567890", Message: strconv.Itoa(m.MessageID)}
		if err := e.a.EditPost(ctx, ref, p); err != nil {
			t.Fatalf("EditPost = %v", err)
		}
		edit := e.waitMessage(t, func(m telegramtest.Message) bool { return m.Method == "editMessageCaption" })
		if edit.MessageID != m.MessageID || !strings.Contains(edit.Text, "9 links left") {
			t.Errorf("edit = %s, want the caption of #%d with 9 links left", edit, m.MessageID)
		}
		startLink(t, edit)
	})
	t.Run("TextInGroup", func(t *testing.T) {
		e := newEnv(t, Options{})
		p := claimPost("")
		e.a.withPost(ctx, groupOrigin(alice), bot.Reply{Text: "Posted.", Post: &p})
		m := e.waitMessage(t, telegramtest.To(group.ID))
		if m.Method != "sendMessage" {
			t.Errorf("post = %s, want a sendMessage", m)
		}
		startLink(t, m)
		p.Text = "**Drop 197001**: no links left."
		p.Buttons = nil
		ref := bot.PostRef{Platform: core.Telegram, Place: strconv.FormatInt(group.ID, 10), Channel: strconv.FormatInt(group.ID, 10), Message: strconv.Itoa(m.MessageID)}
		if err := e.a.EditPost(ctx, ref, p); err != nil {
			t.Fatalf("EditPost = %v", err)
		}
		edit := e.waitMessage(t, func(m telegramtest.Message) bool { return m.Method == "editMessageText" })
		if !strings.Contains(edit.Text, "no links left") || len(edit.Buttons) != 0 {
			t.Errorf("edit = %s with buttons %+v, want the new text and no button", edit, edit.Buttons)
		}
		// The edit waits for its turn apart: the Bot API's refusal is
		// logged, not returned.
		ref.Message = "999"
		if err := e.a.EditPost(ctx, ref, p); err != nil {
			t.Fatalf("EditPost(unknown message) = %v, want nil", err)
		}
		if _, err := e.logs.WaitFor(waitCtx(t), func(s string) bool {
			return strings.Contains(s, "telegram post not edited") && strings.Contains(s, "post="+ref.Channel+"/999")
		}); err != nil {
			t.Errorf("the refused edit was not logged: %v\n%s", err, e.logs)
		}
	})
	t.Run("NotEnoughRights", func(t *testing.T) {
		e := newEnv(t, Options{})
		e.tg.Fail("sendMessage", telegramtest.Failure{Code: 400, Description: "Bad Request: not enough rights to send text messages to the chat"})
		p := claimPost("")
		reply := e.a.withPost(ctx, groupOrigin(alice), bot.Reply{Text: "Posted.", Personal: true, Post: &p})
		if !strings.Contains(reply.Text, "not allowed to post") {
			t.Errorf("reply = %q, want it to say the bot may not post there", reply.Text)
		}
	})
}

// TestAdapter_FollowLink: a group post's deep link runs its stored action
// in the presser's private chat, for members of the group only; a link
// the bot did not make runs nothing.
func TestAdapter_FollowLink(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(t)
	claim := e.action(t, group.ID, "", "/claim 197001")
	t.Run("Member", func(t *testing.T) {
		e.tg.SendText(telegramtest.PrivateChat(alice), alice, "/start "+linkPrefix+claim)
		// No drop is set up in this test: the claim ran, for the group,
		// and answered so.
		e.waitMessage(t, telegramtest.All(telegramtest.To(alice.ID), telegramtest.Contains("197001")))
		checked := false
		for _, c := range e.tg.Calls("getChatMember") {
			checked = checked || (c.Params["chat_id"] == strconv.FormatInt(group.ID, 10) && c.Params["user_id"] == strconv.FormatInt(alice.ID, 10))
		}
		if !checked {
			t.Error("no getChatMember of the member in the group")
		}
	})
	t.Run("Left", func(t *testing.T) {
		e.tg.SetStatus(group.ID, bob.ID, "left")
		e.tg.SendText(telegramtest.PrivateChat(bob), bob, "/start "+linkPrefix+claim)
		e.waitMessage(t, telegramtest.All(telegramtest.To(bob.ID), telegramtest.Contains("for the members of the group")))
	})
	carol := telegramtest.User{ID: 1003, FirstName: "Carol"}
	refused := telegramtest.All(telegramtest.To(carol.ID), telegramtest.Contains("I did not make this button or link"))
	for name, payload := range map[string]string{
		// An action a post never has: a member's own command.
		"NotLinkable": linkPrefix + e.action(t, group.ID, "", "/forget"),
		// A reply's button, made for one member.
		"ReplyButton": linkPrefix + e.action(t, group.ID, strconv.FormatInt(carol.ID, 10), "/claim 197001"),
		"NeverMade":   linkPrefix + strings.Repeat("A", core.ButtonIDLen),
		"Junk":        "b-!!",
		// The old format with a line the bot never posts.
		"OldForget": base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(group.ID, 10) + "|forget")),
	} {
		t.Run(name, func(t *testing.T) {
			before := len(e.tg.Messages())
			e.tg.SendText(telegramtest.PrivateChat(carol), carol, "/start "+payload)
			m := e.waitMessage(t, func(m telegramtest.Message) bool { return refused(m) && m.MessageID > before })
			if strings.Contains(m.Text, "forgot") {
				t.Errorf("reply = %q, want a refusal only", m.Text)
			}
		})
	}
	t.Run("OldClaim", func(t *testing.T) {
		old := base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(group.ID, 10) + "|claim 197001"))
		dave := telegramtest.User{ID: 1004, FirstName: "Dave"}
		e.tg.SendText(telegramtest.PrivateChat(dave), dave, "/start "+old)
		e.waitMessage(t, telegramtest.All(telegramtest.To(dave.ID), telegramtest.Contains("197001")))
	})
	if err := e.stop(); err != nil {
		t.Fatal(err)
	}
	for _, m := range e.tg.Messages() {
		if m.ChatID == group.ID {
			t.Errorf("something was sent to the group: %s", m)
		}
		if m.ChatID == bob.ID && strings.Contains(m.Text, "197001") {
			t.Errorf("a non-member got the answer: %s", m)
		}
	}
}

func TestParseLegacyPayload(t *testing.T) {
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		payload   string
		wantGroup int64
		wantDrop  int64
		wantOK    bool
	}{
		{enc("-1001234567890|claim 197001"), -1001234567890, 197001, true},
		{"", 0, 0, false},
		{"claim", 0, 0, false},
		{"help", 0, 0, false},
		{enc("1001|claim 1"), 0, 0, false}, // a private chat is no group
		{enc("-1001|"), 0, 0, false},
		{enc("-1001 claim 1"), 0, 0, false},
		{enc("-1001|forget"), 0, 0, false},
		{enc("-1001|link rt@evil.example"), 0, 0, false},
		{enc("-1001|claim 1 codeword:x"), 0, 0, false},
		{enc("-1001|claim 01"), 0, 0, false},
		{enc("-1001|claim -1"), 0, 0, false},
		{enc("-1001|drop deliver 197001 confirm:1"), 0, 0, false},
		{"!!", 0, 0, false},
	}
	for _, tt := range tests {
		group, drop, ok := parseLegacyPayload(tt.payload)
		if group != tt.wantGroup || drop != tt.wantDrop || ok != tt.wantOK {
			t.Errorf("parseLegacyPayload(%q) = %d, %d, %v; want %d, %d, %v", tt.payload, group, drop, ok, tt.wantGroup, tt.wantDrop, tt.wantOK)
		}
	}
}
