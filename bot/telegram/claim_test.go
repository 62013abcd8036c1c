package telegram

import (
	"context"
	"errors"
	"fmt"
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

// TestAdapter_PrivateClaim_NoDropPlacer: without Options.Drops, /claim in
// the private chat looks for the drop in the private chat, as before.
func TestAdapter_PrivateClaim_NoDropPlacer(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(t)
	e.tg.SendText(telegramtest.PrivateChat(alice), alice, "/claim 701")
	e.waitMessage(t, telegramtest.To(alice.ID))
	e.stopped(t)
	if n := len(e.tg.Calls("getChatMember")); n != 0 {
		t.Errorf("getChatMember called %d times, want 0", n)
	}
}

func TestAdapter_ClaimPlace(t *testing.T) {
	t.Run("ErrPlaceLookup", func(t *testing.T) {
		e := newEnv(t, Options{Drops: failingPlacer{}})
		_, err := e.a.claimPlace(t.Context(), privateOrigin(alice), 701)
		if !errors.Is(err, errPlaceLookup) {
			t.Errorf("claimPlace() = %v, want errPlaceLookup", err)
		}
	})
	t.Run("StoreUnavailable", func(t *testing.T) {
		e := newEnv(t, Options{Drops: downPlacer{}})
		if _, err := e.a.claimPlace(t.Context(), privateOrigin(alice), 701); !errors.Is(err, core.ErrStoreUnavailable) {
			t.Errorf("claimPlace() = %v, want core.ErrStoreUnavailable", err)
		}
		// The command then runs as typed, where the bot words the outage.
		if _, ok := e.a.privateClaim(t.Context(), privateOrigin(alice), "/claim 701"); ok {
			t.Error("privateClaim() with the storage down answered itself, want the command run as typed")
		}
	})
	t.Run("ErrGroupCheck", func(t *testing.T) {
		e := newEnv(t, Options{Drops: placesOf{group.ID}})
		e.tg.Fail("getChatMember", telegramtest.Failure{Code: 400, Description: "Bad Request: chat not found"})
		_, err := e.a.claimPlace(t.Context(), privateOrigin(alice), 701)
		if !errors.Is(err, errGroupCheck) {
			t.Errorf("claimPlace() = %v, want errGroupCheck", err)
		}
	})
	t.Run("Roles", func(t *testing.T) {
		e := newEnv(t, Options{Drops: placesOf{group.ID}})
		req, err := e.a.claimPlace(t.Context(), privateOrigin(alice), 701)
		want := strconv.FormatInt(group.ID, 10)
		if err != nil || req.Place.ExternalID != want || len(req.Roles) != 1 || req.Roles[0] != want {
			t.Errorf("claimPlace() = %+v, %v; want the group as place and role", req, err)
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

type failingPlacer struct{}

func (failingPlacer) DropPlaces(context.Context, core.Platform, int64) ([]core.Place, error) {
	return nil, errors.New("database down")
}

// placesOf hands every drop out in the given chats.
type placesOf []int64

func (p placesOf) DropPlaces(context.Context, core.Platform, int64) ([]core.Place, error) {
	var out []core.Place
	for _, id := range p {
		out = append(out, core.Place{Platform: core.Telegram, ExternalID: strconv.FormatInt(id, 10)})
	}
	return out, nil
}

func privateOrigin(from telegramtest.User) origin {
	return origin{chat: &tgbotapi.Chat{ID: from.ID, Type: "private"},
		from: &tgbotapi.User{ID: from.ID, FirstName: from.FirstName, UserName: from.Username}, command: "claim"}
}

// downPlacer lists places from a database that is down.
type downPlacer struct{}

func (downPlacer) DropPlaces(context.Context, core.Platform, int64) ([]core.Place, error) {
	return nil, fmt.Errorf("drop places: %w", core.ErrStoreUnavailable)
}
