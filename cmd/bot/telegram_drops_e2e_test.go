package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/poap/sandbox"
)

// startTelegram runs Main with Telegram on a fake, on the database, with
// tune (when not nil) applied to the Main first.
func startTelegram(t *testing.T, databaseURL string, tune func(*Main)) (*telegramtest.Server, *session) {
	t.Helper()
	tg := telegramtest.NewServer(telegramtest.Options{})
	t.Cleanup(tg.Close)
	s := startMainTuned(t, map[string]string{"DATABASE_URL": databaseURL, "TELEGRAM_TOKEN": tg.Token, "TELEGRAM_API_URL": tg.URL()}, false, tune)
	return tg, s
}

// telegramGroup returns the test group and its moderator, made an admin
// of the group on tg.
func telegramGroup(tg *telegramtest.Server) (telegramtest.Chat, telegramtest.User) {
	group := telegramtest.Group(-1001234567890, "POAP fans")
	mod := telegramtest.User{ID: 900, FirstName: "Mod", Username: "mod"}
	tg.SetAdmins(group.ID, mod.ID)
	return group, mod
}

// addTelegramDrop types /drop add of the demo drop in the group as mod and
// returns the private confirmation.
func addTelegramDrop(ctx context.Context, t *testing.T, tg *telegramtest.Server, group telegramtest.Chat, mod telegramtest.User) telegramtest.Message {
	t.Helper()
	return addTelegramDropOf(ctx, t, tg, group, mod, sandbox.DemoLinksDropID, sandbox.DemoEditCode)
}

// addTelegramDropOf is addTelegramDrop for the drop id with its edit code.
func addTelegramDropOf(ctx context.Context, t *testing.T, tg *telegramtest.Server, group telegramtest.Chat, mod telegramtest.User, id int64, code string) telegramtest.Message {
	t.Helper()
	tg.SendText(group, mod, fmt.Sprintf("/drop@%s add %d %s delivery:link", tg.Username, id, code))
	m, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(mod.ID), telegramtest.Contains("is set up here")))
	if err != nil {
		t.Fatalf("the drop was not set up: %v", err)
	}
	return m
}

// TestDropAdd_TelegramGroup: a /drop add typed in a group carries the edit
// code; the bot deletes it at once and confirms in the private chat, and
// says to delete it by hand when it may not.
func TestDropAdd_TelegramGroup(t *testing.T) {
	t.Parallel()
	for name, dbURL := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tg, _ := startTelegram(t, dbURL, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			group, mod := telegramGroup(tg)
			confirm := addTelegramDrop(ctx, t, tg, group, mod)
			if strings.Contains(confirm.Text, "delete it yourself") {
				t.Errorf("confirmation = %q, want no warning after a deletion", confirm.Text)
			}
			del, err := tg.WaitCall(ctx, "deleteMessage")
			if err != nil || del.Params["chat_id"] != strconv.FormatInt(group.ID, 10) {
				t.Fatalf("deleteMessage = %+v, %v; want a deletion in the group", del, err)
			}
			for _, m := range tg.MemberMessages(group.ID) {
				if strings.Contains(m.Text, sandbox.DemoEditCode) && !m.Deleted {
					t.Errorf("the group keeps a message with the edit code: %+v", m)
				}
			}

			other := telegramtest.Group(-1009876543210, "Other fans")
			tg.SetAdmins(other.ID, mod.ID)
			tg.Fail("deleteMessage", telegramtest.Failure{Code: 400, Description: "Bad Request: message can't be deleted"})
			tg.SendText(other, mod, fmt.Sprintf("/drop add %d %s", sandbox.DemoLinksDropID, sandbox.DemoEditCode))
			warned, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(mod.ID), telegramtest.Contains("delete it yourself")))
			if err != nil {
				t.Fatalf("no warning when the message could not be deleted: %v", err)
			}
			if !strings.Contains(warned.Text, "right to delete messages") {
				t.Errorf("warning = %q, want it to ask for the right to delete messages", warned.Text)
			}
			for _, m := range tg.Messages() {
				if m.ChatID < 0 || strings.Contains(m.Text, sandbox.DemoEditCode) {
					t.Errorf("the bot wrote in a group or showed the edit code: %s", m)
				}
			}
		})
	}
}

// TestClaim_TelegramPrivate: /claim <drop> in the bot's private chat finds
// the drop in the one group of the member's that hands it out, and says
// what to do when there is none or several.
func TestClaim_TelegramPrivate(t *testing.T) {
	t.Parallel()
	for name, dbURL := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tg, _ := startTelegram(t, dbURL, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			group, mod := telegramGroup(tg)
			addTelegramDrop(ctx, t, tg, group, mod)
			claim := fmt.Sprintf("/claim %d", sandbox.DemoLinksDropID)

			member := telegramtest.User{ID: 2001, FirstName: "Member"}
			tg.SendText(telegramtest.PrivateChat(member), member, claim)
			first, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(member.ID), telegramtest.Contains("/mint/")))
			if err != nil {
				t.Fatalf("the member got no link: %v", err)
			}
			tg.SendText(group, member, fmt.Sprintf("/claim@%s %d", tg.Username, sandbox.DemoLinksDropID))
			again, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(member.ID), telegramtest.Contains("claimed"), telegramtest.Contains("/mint/")))
			if err != nil || mintLinkRE.FindString(again.Text) != mintLinkRE.FindString(first.Text) {
				t.Errorf("claim in the group = %q, %v; want the same link %s again", again.Text, err, mintLinkRE.FindString(first.Text))
			}

			outsider := telegramtest.User{ID: 3001, FirstName: "Outsider"}
			tg.SetStatus(group.ID, outsider.ID, "left")
			tg.SendText(telegramtest.PrivateChat(outsider), outsider, claim)
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(outsider.ID), telegramtest.Contains("isn't handed out in any group you belong to"))); err != nil {
				t.Errorf("the outsider was not told: %v", err)
			}

			other := telegramtest.Group(-1009876543210, "Other fans")
			tg.SetAdmins(other.ID, mod.ID)
			tg.SendText(other, mod, fmt.Sprintf("/drop add %d %s", sandbox.DemoLinksDropID, sandbox.DemoEditCode))
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(mod.ID), telegramtest.Contains("is set up here"), telegramtest.Contains("no mint links"))); err != nil {
				t.Fatalf("the drop was not set up in the second group: %v", err)
			}
			both := telegramtest.User{ID: 2002, FirstName: "Both"}
			tg.SendText(telegramtest.PrivateChat(both), both, claim)
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(both.ID), telegramtest.Contains("several groups"))); err != nil {
				t.Errorf("the member of both groups was not asked to choose: %v", err)
			}
			for _, m := range tg.Messages() {
				if m.ChatID < 0 && strings.Contains(m.Text+m.Params["reply_markup"], "/mint/") {
					t.Errorf("a mint link was sent to a group: %s", m)
				}
				if (m.ChatID == outsider.ID || m.ChatID == both.ID) && strings.Contains(m.Text, "/mint/") {
					t.Errorf("a link went to %d: %s", m.ChatID, m)
				}
			}
		})
	}
}
