package telegram

import (
	"errors"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core"
)

func TestNew(t *testing.T) {
	tg := telegramtest.NewServer(telegramtest.Options{})
	t.Cleanup(tg.Close)

	t.Run("OK", func(t *testing.T) {
		a, err := New(Options{Token: core.Secret(tg.Token), APIURL: tg.URL() + "/"})
		if err != nil {
			t.Fatalf("New() = %v", err)
		}
		if got := a.Username(); got != telegramtest.DefaultUsername {
			t.Errorf("Username() = %q, want %q", got, telegramtest.DefaultUsername)
		}
	})
	t.Run("ErrTokenRefused", func(t *testing.T) {
		const wrong = "999:wrong-secret-token"
		_, err := New(Options{Token: wrong, APIURL: tg.URL()})
		if !errors.Is(err, ErrTokenRefused) {
			t.Fatalf("New(wrong token) = %v, want ErrTokenRefused", err)
		}
		if !strings.Contains(err.Error(), "TELEGRAM_TOKEN") || strings.Contains(err.Error(), wrong) {
			t.Errorf("New(wrong token) = %q, want it to name TELEGRAM_TOKEN and not carry the token", err)
		}
	})
	t.Run("Unreachable", func(t *testing.T) {
		dead := httptest.NewServer(nil)
		dead.Close()
		_, err := New(Options{Token: core.Secret(tg.Token), APIURL: dead.URL})
		if err == nil || !strings.Contains(err.Error(), "TELEGRAM_API_URL") || strings.Contains(err.Error(), tg.Token) {
			t.Errorf("New(unreachable) = %v, want an error naming TELEGRAM_API_URL without the token", err)
		}
	})
	t.Run("EmptyToken", func(t *testing.T) {
		if _, err := New(Options{APIURL: tg.URL()}); err == nil || !strings.Contains(err.Error(), "TELEGRAM_TOKEN") {
			t.Errorf("New(no token) = %v, want an error naming TELEGRAM_TOKEN", err)
		}
	})
}

func TestRun_Polling(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(t)
	ctx := waitCtx(t)
	if _, err := e.tg.WaitCall(ctx, "getUpdates"); err != nil {
		t.Fatal(err)
	}
	if n := len(e.tg.Calls("deleteWebhook")); n != 1 {
		t.Errorf("deleteWebhook called %d times, want 1", n)
	}
	var allowed []string
	if err := e.tg.Calls("getUpdates")[0].Decode("allowed_updates", &allowed); err != nil {
		t.Fatal(err)
	}
	if want := []string{"message", "callback_query", "chat_join_request"}; !cmp.Equal(allowed, want) {
		t.Errorf("getUpdates allowed_updates = %v, want %v", allowed, want)
	}

	calls := e.tg.Calls("setMyCommands")
	if len(calls) != 2 {
		t.Fatalf("setMyCommands called %d times, want 2 (members, administrators)", len(calls))
	}
	var members []tgbotapi.BotCommand
	if err := calls[0].Decode("commands", &members); err != nil {
		t.Fatal(err)
	}
	if got := commandNames(members); !containsAll(got, "help", "poaps") {
		t.Errorf("published commands = %v, want help and poaps among them", got)
	}
	var scope tgbotapi.BotCommandScope
	if err := calls[1].Decode("scope", &scope); err != nil || scope.Type != "all_chat_administrators" {
		t.Errorf("second setMyCommands scope = %+v (%v), want all_chat_administrators", scope, err)
	}
	if err := e.stop(); err != nil {
		t.Errorf("Run() = %v, want nil", err)
	}
}

func commandNames(cmds []tgbotapi.BotCommand) []string {
	var names []string
	for _, c := range cmds {
		names = append(names, c.Command)
	}
	return names
}

func containsAll(have []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			return false
		}
	}
	return true
}

func TestAdapter_PrivateChat(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(t)
	e.tg.SendText(telegramtest.PrivateChat(alice), alice, "/help")
	m := e.waitMessage(t, telegramtest.To(alice.ID))
	if m.ParseMode != "HTML" || !strings.Contains(m.Text, "<b>Test POAP bot</b> brings POAPs") {
		t.Errorf("reply = %q (parse mode %q), want the HTML help", m.Text, m.ParseMode)
	}

	e.tg.SendText(telegramtest.PrivateChat(alice), alice, "hello there")
	hint := e.waitMessage(t, telegramtest.All(telegramtest.To(alice.ID), telegramtest.Contains(privateHint)))

	e.tg.SendText(telegramtest.PrivateChat(alice), alice, "/start poaps")
	start := e.waitMessage(t, func(m telegramtest.Message) bool { return m.ChatID == alice.ID && m.MessageID > hint.MessageID })
	if !strings.Contains(start.Text, "brings POAPs") {
		t.Errorf("/start answered %q, want the help", start.Text)
	}
	e.stopped(t)
	if n := len(e.tg.Calls("getChatMember")); n != 0 {
		t.Errorf("getChatMember called %d times in a private chat, want 0", n)
	}
}

func TestAdapter_Group(t *testing.T) {
	t.Run("PersonalReplyInPrivate", func(t *testing.T) {
		e := newEnv(t, Options{})
		e.run(t)
		e.tg.SendText(group, alice, "/help@TestBot")
		m := e.waitMessage(t, telegramtest.To(alice.ID))
		if !strings.Contains(m.Text, "brings POAPs") {
			t.Errorf("private reply = %q, want the help", m.Text)
		}
		if got := sentTo(e.stopped(t), group.ID); len(got) != 0 {
			t.Errorf("sent to the group: %v, want nothing", got)
		}
	})
	t.Run("NeverStarted", func(t *testing.T) {
		e := newEnv(t, Options{})
		e.tg.NeverStarted(bob.ID)
		e.run(t)
		e.tg.SendText(group, bob, "/poaps@TestBot "+demo)
		note := e.waitMessage(t, telegramtest.To(group.ID))
		for _, want := range []string{`<a href="tg://user?id=1002">Bob</a>`, "I can only answer you in private", "https://t.me/TestBot?start=poaps", "send the command again"} {
			if !strings.Contains(note.Text, want) {
				t.Errorf("group note = %q, want it to contain %q", note.Text, want)
			}
		}
		all := e.stopped(t)
		if got := sentTo(all, group.ID); len(got) != 1 || strings.Contains(got[0].Text, "Drop") || len(got[0].Buttons) != 0 {
			t.Errorf("sent to the group: %v, want only the note, nothing personal", got)
		}
		if got := sentTo(all, bob.ID); len(got) != 0 {
			t.Errorf("stored for bob: %v, want nothing (403)", got)
		}
	})
	t.Run("Ignored", func(t *testing.T) {
		e := newEnv(t, Options{})
		e.run(t)
		e.tg.SendText(group, alice, "/help@OtherBot")
		e.tg.SendText(group, alice, "/frobnicate")
		e.tg.SendText(group, alice, "just chatting")
		e.tg.SendText(group, alice, "/frobnicate@TestBot")
		m := e.waitMessage(t, telegramtest.To(alice.ID))
		if !strings.Contains(m.Text, "I don't know the command") {
			t.Errorf("reply to /frobnicate@TestBot = %q, want the unknown-command reply", m.Text)
		}
		if got := e.stopped(t); len(got) != 1 {
			t.Errorf("sent %v, want only the reply to /frobnicate@TestBot", got)
		}
	})
}

// actionData is the callback data of a command button: the prefix and an
// action's id.
var actionData = regexp.MustCompile(`^b:[A-Z2-7]{26}$`)

func TestAdapter_Button(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(t)
	e.tg.SendText(group, alice, "/poaps "+demo)
	page1 := e.waitMessage(t, telegramtest.All(telegramtest.To(alice.ID), telegramtest.Method("sendMessage")))
	if len(page1.Buttons) != 1 || len(page1.Buttons[0]) != 1 || page1.Buttons[0][0].Text != "Next" ||
		!actionData.MatchString(page1.Buttons[0][0].CallbackData) {
		t.Fatalf("buttons = %+v, want one Next button carrying an action's id", page1.Buttons)
	}
	if _, err := e.tg.PressButton(page1, alice, "Next"); err != nil {
		t.Fatal(err)
	}
	page2 := e.waitMessage(t, telegramtest.All(telegramtest.To(alice.ID), telegramtest.Contains("page 2 of 2")))
	if !strings.Contains(page2.Text, "14. <b>Drop 01</b>") {
		t.Errorf("page 2 = %q", page2.Text)
	}
	// One for the command's rights in the group, one when the page's
	// button, in the private chat, runs for the group: that the member
	// still belongs to it.
	if n := len(e.tg.Calls("getChatMember")); n != 2 {
		t.Errorf("getChatMember called %d times, want 2: the command's rights, and the press's membership", n)
	}
	// Once she left the group, its buttons run nothing for her.
	e.tg.SetStatus(group.ID, alice.ID, "left")
	if _, err := e.tg.PressButton(page1, alice, "Next"); err != nil {
		t.Fatal(err)
	}
	alert, err := e.tg.WaitCallWhere(waitCtx(t), "answerCallbackQuery", func(c telegramtest.Call) bool { return c.Params["show_alert"] == "true" })
	if err != nil || !strings.Contains(alert.Params["text"], "for the members of the group") {
		t.Errorf("press after leaving = %v, %v; want an alert that the button is for the group's members", alert.Params, err)
	}
	pages := 0
	for _, m := range e.tg.Messages() {
		if strings.Contains(m.Text, "POAPs of") {
			pages++
		}
	}
	if pages != 2 {
		t.Errorf("%d pages sent, want the first two only", pages)
	}
	e.stopped(t)
	if n := len(e.tg.Calls("answerCallbackQuery")); n != 2 {
		t.Errorf("answerCallbackQuery called %d times, want 2", n)
	}
}

func TestAdapter_ButtonNeverStarted(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(t)
	o := origin{chat: &tgbotapi.Chat{ID: group.ID, Type: group.Type}, from: &tgbotapi.User{ID: alice.ID}}
	next := e.action(t, group.ID, "", "/poaps "+demo+" page:2")
	e.a.send(t.Context(), o, bot.Reply{Text: "Browse", Buttons: []bot.Button{{Label: "Next", Command: "/poaps " + demo + " page:2", Action: next}}})
	inGroup := e.waitMessage(t, telegramtest.To(group.ID))
	e.tg.NeverStarted(bob.ID)
	if _, err := e.tg.PressButton(inGroup, bob, "Next"); err != nil {
		t.Fatal(err)
	}
	answer, err := e.tg.WaitCall(waitCtx(t), "answerCallbackQuery")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := answer.Params["url"], "https://t.me/TestBot?start=poaps"; got != want {
		t.Errorf("callback answer url = %q, want %q", got, want)
	}
	if got := sentTo(e.stopped(t), group.ID); len(got) != 1 {
		t.Errorf("sent to the group: %v, want only the message with the button", got)
	}
}

func TestAdapter_RateLimited(t *testing.T) {
	e := newEnv(t, Options{})
	e.tg.Fail("sendMessage", telegramtest.Failure{Code: 429, Description: "Too Many Requests: retry after 1", RetryAfter: 1})
	e.run(t)
	e.tg.SendText(telegramtest.PrivateChat(alice), alice, "/help")
	e.waitMessage(t, telegramtest.To(alice.ID))
	if n := len(e.tg.Calls("sendMessage")); n != 2 {
		t.Errorf("sendMessage called %d times, want 2 (429, then the retry)", n)
	}
}

func TestAdapter_NewRequest(t *testing.T) {
	e := newEnv(t, Options{})
	e.tg.SetAdmins(group.ID, alice.ID)
	groupChat := &tgbotapi.Chat{ID: group.ID, Type: group.Type, Title: group.Title}
	tests := []struct {
		name string
		o    origin
		want bot.Request
	}{
		{"GroupAdmin", origin{chat: groupChat, from: &tgbotapi.User{ID: alice.ID, FirstName: "Alice", UserName: "alice"}},
			bot.Request{Place: core.Place{Platform: core.Telegram, ExternalID: strconv.FormatInt(group.ID, 10), Name: "POAP fans"}, Chat: bot.Chat{Channel: strconv.FormatInt(group.ID, 10)}, Caps: capabilities,
				Caller: bot.Caller{ExternalID: "1001", Name: "alice", ManagesDrops: true, ManagesRoles: true},
				Roles:  []string{strconv.FormatInt(group.ID, 10)}}},
		{"GroupMember", origin{chat: groupChat, from: &tgbotapi.User{ID: bob.ID, FirstName: "Bob"}},
			bot.Request{Place: core.Place{Platform: core.Telegram, ExternalID: strconv.FormatInt(group.ID, 10), Name: "POAP fans"}, Chat: bot.Chat{Channel: strconv.FormatInt(group.ID, 10)}, Caps: capabilities,
				Caller: bot.Caller{ExternalID: "1002", Name: "Bob"}, Roles: []string{strconv.FormatInt(group.ID, 10)}}},
		{"AnonymousAdmin", origin{chat: groupChat, from: &tgbotapi.User{ID: groupAnonymousBotID, FirstName: "Group", UserName: "GroupAnonymousBot", IsBot: true}, anonymous: true},
			bot.Request{Place: core.Place{Platform: core.Telegram, ExternalID: strconv.FormatInt(group.ID, 10), Name: "POAP fans"}, Chat: bot.Chat{Channel: strconv.FormatInt(group.ID, 10)}, Caps: capabilities,
				Caller: bot.Caller{ExternalID: strconv.FormatInt(group.ID, 10), Name: "anonymous administrator", ManagesDrops: true, ManagesRoles: true, Anonymous: true}}},
		{"Private", origin{chat: &tgbotapi.Chat{ID: alice.ID, Type: "private"}, from: &tgbotapi.User{ID: alice.ID, FirstName: "Alice", UserName: "alice"}},
			bot.Request{Place: core.Place{Platform: core.Telegram, ExternalID: "1001", Name: "alice"}, Chat: bot.Chat{Private: true, Channel: "1001"}, Caps: capabilities,
				Caller: bot.Caller{ExternalID: "1001", Name: "alice"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := e.a.newRequest(t.Context(), tt.o)
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("newRequest (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAdapter_PublicReply(t *testing.T) {
	e := newEnv(t, Options{})
	o := origin{chat: &tgbotapi.Chat{ID: group.ID, Type: group.Type}, from: &tgbotapi.User{ID: alice.ID}}
	e.a.send(t.Context(), o, bot.Reply{Text: "Claim your POAP below", Buttons: []bot.Button{{Label: "Open", URL: "https://poap.test/x"}}})
	m := e.waitMessage(t, nil)
	want := [][]telegramtest.Button{{{Text: "Open", URL: "https://poap.test/x"}}}
	if m.ChatID != group.ID || !cmp.Equal(m.Buttons, want) {
		t.Errorf("public reply went to %d with buttons %v, want the group %d with %v", m.ChatID, m.Buttons, group.ID, want)
	}
}

// TestMention_DirectionControls: a first name with direction overrides
// cannot reorder the group note that names its member.
func TestMention_DirectionControls(t *testing.T) {
	u := &tgbotapi.User{ID: 7, FirstName: "\u202eboB\u202c"}
	if got, want := mention(u), `<a href="tg://user?id=7">boB</a>`; got != want {
		t.Errorf("mention(%q) = %q, want %q", u.FirstName, got, want)
	}
	if got := displayName(u); got != "boB" {
		t.Errorf("displayName(%q) = %q, want boB", u.FirstName, got)
	}
}
