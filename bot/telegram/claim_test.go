package telegram

import (
	"strconv"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core"
)

// TestAdapter_PrivateClaim: /claim <drop> in the private chat claims for
// the one group of the member's that hands the drop out, and says what to
// do when there is none or several.
func TestAdapter_PrivateClaim(t *testing.T) {
	other := telegramtest.Group(-1009876543210, "Other fans")
	e := newDropsEnv(t)
	e.addDrop(t, group.ID, group.Title, 701, "")
	e.addDrop(t, group.ID, group.Title, 702, "")
	e.addDrop(t, other.ID, other.Title, 702, "")
	e.addDrop(t, group.ID, group.Title, 703, strconv.FormatInt(group.ID, 10))
	e.addDrop(t, group.ID, group.Title, 704, "-1005555555555")
	e.run(t)
	tests := []struct {
		name string
		user telegramtest.User
		// left are the groups the member is not in.
		left  []int64
		line  string
		want  string
		group int64 // the group whose membership must have been checked
	}{
		{name: "OneGroup", user: telegramtest.User{ID: 2001, FirstName: "A"}, line: "/claim 701", want: "/mint/", group: group.ID},
		{name: "Restricted", user: telegramtest.User{ID: 2002, FirstName: "B"}, line: "/claim@TestBot 701", want: "/mint/", group: group.ID},
		{name: "OneOfSeveral", user: telegramtest.User{ID: 2003, FirstName: "C"}, left: []int64{other.ID}, line: "/claim 702", want: "/mint/", group: other.ID},
		{name: "SeveralGroups", user: telegramtest.User{ID: 2004, FirstName: "D"}, line: "/claim 702", want: "several groups you belong to (POAP fans, Other fans)"},
		{name: "NoGroup", user: telegramtest.User{ID: 2005, FirstName: "E"}, left: []int64{group.ID}, line: "/claim 701", want: "isn't handed out in any group you belong to"},
		{name: "UnknownDrop", user: telegramtest.User{ID: 2006, FirstName: "F"}, line: "/claim 799", want: "isn't handed out in any group you belong to"},
		{name: "RequiredGroup", user: telegramtest.User{ID: 2007, FirstName: "G"}, line: "/claim 703", want: "/mint/"},
		{name: "RequiredOtherChat", user: telegramtest.User{ID: 2008, FirstName: "H"}, line: "/claim 704", want: "is only for members with"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, g := range tt.left {
				e.tg.SetStatus(g, tt.user.ID, "left")
			}
			if tt.name == "Restricted" {
				e.tg.SetStatus(group.ID, tt.user.ID, "restricted")
			}
			e.tg.SendText(telegramtest.PrivateChat(tt.user), tt.user, tt.line)
			reply := e.waitMessage(t, telegramtest.To(tt.user.ID))
			if !strings.Contains(reply.Text, tt.want) {
				t.Errorf("%s answered %q, want it to contain %q", tt.line, reply.Text, tt.want)
			}
			if tt.group != 0 && !checkedMember(e.tg, tt.group, tt.user.ID) {
				t.Errorf("no getChatMember of the member in %d", tt.group)
			}
		})
	}
	for _, m := range e.stopped(t) {
		if m.ChatID < 0 {
			t.Errorf("the bot wrote in a group: %s", m)
		}
	}
}

// TestAdapter_PrivateClaim_NoPlaces: /claim in the private chat of a drop
// handed out in no group asks Telegram about no group.
func TestAdapter_PrivateClaim_NoPlaces(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(t)
	e.tg.SendText(telegramtest.PrivateChat(alice), alice, "/claim 701")
	e.waitMessage(t, telegramtest.To(alice.ID))
	e.stopped(t)
	if n := len(e.tg.Calls("getChatMember")); n != 0 {
		t.Errorf("getChatMember called %d times, want 0", n)
	}
}

// TestAdapter_ActFor: the adapter's part in a /claim from the private
// chat (the bot's claimFrom has the rest, with its own tests).
func TestAdapter_ActFor(t *testing.T) {
	t.Run("ErrGroupCheck", func(t *testing.T) {
		e := newDropsEnv(t)
		e.addDrop(t, group.ID, group.Title, 701, "")
		e.run(t)
		e.tg.Fail("getChatMember", telegramtest.Failure{Code: 400, Description: "Bad Request: chat not found"})
		e.tg.SendText(telegramtest.PrivateChat(alice), alice, "/claim 701")
		reply := e.waitMessage(t, telegramtest.To(alice.ID))
		if want := "I could not check which of your groups hand this drop out"; !strings.Contains(reply.Text, want) {
			t.Errorf("/claim 701 with getChatMember failing answered %q, want %q", reply.Text, want)
		}
	})
	t.Run("NotAGroup", func(t *testing.T) {
		e := newEnv(t, Options{})
		req, err := e.a.actFor(privateOrigin(alice))(t.Context(), core.Place{Platform: core.Telegram, ExternalID: "1002"})
		if req != nil || err != nil || len(e.tg.Calls("getChatMember")) != 0 {
			t.Errorf("actFor(a private chat) = %+v, %v; want it left out, unasked", req, err)
		}
	})
	t.Run("Roles", func(t *testing.T) {
		e := newEnv(t, Options{})
		req, err := e.a.actFor(privateOrigin(alice))(t.Context(), core.Place{Platform: core.Telegram, ExternalID: strconv.FormatInt(group.ID, 10)})
		want := strconv.FormatInt(group.ID, 10)
		if err != nil || req.Place.ExternalID != want || len(req.Roles) != 1 || req.Roles[0] != want {
			t.Errorf("actFor() = %+v, %v; want the group as place and role", req, err)
		}
	})
}

// TestAdapter_GroupRoles: a /claim typed in a group counts as membership
// of the group for a drop that requires it; so does a button pressed there
// once getChatMember says the presser belongs to the group, while one who
// left gets nothing, since anyone who can read a public group can press.
func TestAdapter_GroupRoles(t *testing.T) {
	e := newDropsEnv(t)
	e.addDrop(t, group.ID, group.Title, 705, strconv.FormatInt(group.ID, 10))
	e.run(t)
	e.tg.SendText(group, alice, "/claim@TestBot 705")
	e.waitMessage(t, telegramtest.All(telegramtest.To(alice.ID), telegramtest.Contains("/mint/")))

	claim := e.action(t, group.ID, "", "/claim 705")
	if err := e.a.sendReply(t.Context(), group.ID, bot.Reply{Text: "Claim here", Buttons: []bot.Button{{Label: "Claim", Command: "/claim 705", Action: claim}}}); err != nil {
		t.Fatal(err)
	}
	post := e.waitMessage(t, telegramtest.To(group.ID))
	carol := telegramtest.User{ID: 1003, FirstName: "Carol"}
	if _, err := e.tg.PressButton(post, carol, "Claim"); err != nil {
		t.Fatal(err)
	}
	e.waitMessage(t, telegramtest.All(telegramtest.To(carol.ID), telegramtest.Contains("/mint/")))
	if !checkedMember(e.tg, group.ID, carol.ID) {
		t.Error("the press ran without a membership check")
	}

	e.tg.SetStatus(group.ID, bob.ID, "left")
	if _, err := e.tg.PressButton(post, bob, "Claim"); err != nil {
		t.Fatal(err)
	}
	answer, err := e.tg.WaitCallWhere(waitCtx(t), "answerCallbackQuery", func(c telegramtest.Call) bool { return c.Params["text"] != "" })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(answer.Params["text"], "for the members of the group") || answer.Params["show_alert"] != "true" {
		t.Errorf("answer to the press of one who left = %v, want an alert saying the button is for members", answer.Params)
	}
	for _, m := range e.stopped(t) {
		if m.ChatID == bob.ID {
			t.Errorf("one who left the group got a message: %s", m)
		}
	}
}

func checkedMember(tg *telegramtest.Server, chatID, userID int64) bool {
	for _, c := range tg.Calls("getChatMember") {
		if c.Params["chat_id"] == strconv.FormatInt(chatID, 10) && c.Params["user_id"] == strconv.FormatInt(userID, 10) {
			return true
		}
	}
	return false
}

func privateOrigin(from telegramtest.User) origin {
	return origin{chat: &tgbotapi.Chat{ID: from.ID, Type: "private"},
		from: &tgbotapi.User{ID: from.ID, FirstName: from.FirstName, UserName: from.Username}, command: "claim"}
}
