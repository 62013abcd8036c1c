package main

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot/telegram"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// notMade is how the bot refuses a button or a deep link it did not make.
const notMade = "I did not make this button or link"

// oldPayload is a /start payload in the format the bot's claim buttons
// carried before they carried stored actions: base64url of
// "<group>|<command line>". Anyone could write one.
func oldPayload(group int64, line string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(group, 10) + "|" + line))
}

// TestTelegram_CraftedDeepLinks: a /start payload the bot did not make
// runs nothing, whoever opens it, and says so: not a member's /forget,
// /unlink or /link, not a moderator's command. The bot's own Claim button
// still gives a member their link in private, and a forged press of it by
// one who left the group gives nothing.
func TestTelegram_CraftedDeepLinks(t *testing.T) {
	t.Parallel()
	for name, dbURL := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// Some fifteen replies go to each private chat here, one after
			// another; Telegram's three in three seconds would make each
			// wait a second: this test is not about that limit.
			tg, s := startTelegram(t, dbURL, func(m *Main) {
				m.TelegramLimits.Private = telegram.Window{N: 1000, Per: time.Second}
			})
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			group, mod := gatedGroup(tg)
			addTelegramDrop(ctx, t, tg, group, mod)
			member := telegramtest.User{ID: 2001, FirstName: "Member"}
			tg.OpenPrivateChat(member.ID)
			tg.SendText(telegramtest.PrivateChat(member), member, "/link "+sandbox.DemoWallet)
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(member.ID), telegramtest.Contains("Nonce"))); err != nil {
				t.Fatalf("the member's wallet was not linked: %v", err)
			}
			before := memberWallets(ctx, t, s, member.ID)

			id := strconv.FormatInt(group.ID, 10)
			crafted := []struct {
				who  telegramtest.User
				line string
			}{
				{member, "forget"}, {member, "unlink"}, {member, "link rt@evil.example"},
				{mod, "setup moments off"}, {mod, fmt.Sprintf("drop remove %d", sandbox.DemoLinksDropID)},
				{mod, fmt.Sprintf("gate add %d", sandbox.DemoLinksDropID)},
				{mod, fmt.Sprintf("drop network %d base", sandbox.DemoLinksDropID)},
				{mod, fmt.Sprintf("drop deliver %d confirm:1", sandbox.DemoLinksDropID)},
			}
			refusals := map[int64]int{}
			for _, c := range crafted {
				for _, payload := range []string{oldPayload(group.ID, c.line), "b-" + strings.Repeat("A", core.ButtonIDLen), "b-" + c.line} {
					tg.SendText(telegramtest.PrivateChat(c.who), c.who, "/start "+payload)
					refusals[c.who.ID]++
					if _, err := tg.WaitMessages(ctx, refusals[c.who.ID], telegramtest.All(telegramtest.To(c.who.ID), telegramtest.Contains(notMade))); err != nil {
						t.Fatalf("/start for %q (%s) was not refused: %v", c.line, payload, err)
					}
				}
			}
			// A refusal ran nothing: each command's effect is looked for.
			if after := memberWallets(ctx, t, s, member.ID); len(after) != 1 || after[0] != before[0] {
				t.Errorf("the member's wallets = %v, want %v untouched", after, before)
			}
			tenant, err := s.m.DB.UpsertPlace(ctx, core.Place{Platform: core.Telegram, ExternalID: id})
			if err != nil {
				t.Fatal(err)
			}
			if d, err := s.m.DB.DropByEvent(ctx, tenant.ID, sandbox.DemoLinksDropID); err != nil || d.RemovedAt != nil {
				t.Errorf("the drop = %+v, %v; want it still handed out", d, err)
			}
			if gates, err := s.m.DB.PlaceGates(ctx, tenant.ID); err != nil || len(gates) != 0 {
				t.Errorf("gates = %+v, %v; want none", gates, err)
			}
			if off, err := s.m.DB.MomentsOff(ctx, tenant.ID); err != nil || off {
				t.Errorf("MomentsOff = %v, %v; want Moments still on", off, err)
			}
			for _, op := range []string{wire.OpSetMintingNetwork, wire.OpCreateDelivery} {
				if n := s.m.SandboxAPI.Requests(op); n != 0 {
					t.Errorf("%d %s requests reached POAP, want none", n, op)
				}
			}

			// The bot's own Claim button still works for a member.
			tg.SendText(group, mod, fmt.Sprintf("/distribute@%s %d", tg.Username, sandbox.DemoLinksDropID))
			post, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(group.ID), telegramtest.Contains("links left")))
			if err != nil {
				t.Fatalf("no claim message: %v", err)
			}
			payload := deepLinkPayload(t, tg, post)
			tg.SendText(telegramtest.PrivateChat(member), member, "/start "+payload)
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(member.ID), telegramtest.Contains("/mint/"))); err != nil {
				t.Fatalf("the Claim button gave the member no link: %v", err)
			}

			// One who left presses it with forged callback data: nothing.
			outsider := telegramtest.User{ID: 3001, FirstName: "Outsider"}
			tg.SetStatus(group.ID, outsider.ID, "left")
			tg.OpenPrivateChat(outsider.ID)
			action := strings.TrimPrefix(payload, "b-")
			for _, data := range []string{"b:" + action, fmt.Sprintf("cmd:claim %d", sandbox.DemoLinksDropID)} {
				tg.PressData(post, outsider, data)
				if _, err := tg.WaitCallWhere(ctx, "answerCallbackQuery", func(c telegramtest.Call) bool { return c.Params["show_alert"] == "true" }); err != nil {
					t.Fatalf("the forged press %q was not refused: %v", data, err)
				}
			}
			tg.SendText(telegramtest.PrivateChat(outsider), outsider, "/start "+payload)
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(outsider.ID), telegramtest.Contains("for the members of the group"))); err != nil {
				t.Fatalf("the outsider's deep link was not refused: %v", err)
			}
			for _, m := range tg.Messages() {
				if m.ChatID == outsider.ID && strings.Contains(m.Text, "/mint/") {
					t.Errorf("one who left the group got a link: %s", m)
				}
			}
		})
	}
}

// memberWallets lists the wallets the Telegram member linked.
func memberWallets(ctx context.Context, t *testing.T, s *session, id int64) []string {
	t.Helper()
	u, err := s.m.DB.FindUser(ctx, core.Telegram, strconv.FormatInt(id, 10))
	if errors.Is(err, core.ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	ws, err := s.m.DB.Wallets(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, w := range ws {
		out = append(out, w.Value)
	}
	return out
}

// TestTelegram_SendersNotPeople: a channel posting in a group, a linked
// channel's automatic forward and Channel_Bot are no members: their
// commands are refused in the group, with no link and no wallet for them.
// An anonymous administrator is the group's administrator: their /gate add
// is answered in the group and works, and a member's command is refused.
func TestTelegram_SendersNotPeople(t *testing.T) {
	t.Parallel()
	for name, dbURL := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tg, s := startTelegram(t, dbURL, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			group, mod := gatedGroup(tg)
			addTelegramDrop(ctx, t, tg, group, mod)
			channel := telegramtest.Channel(-1005550000001, "POAP news")
			claim := fmt.Sprintf("/claim@%s %d", tg.Username, sandbox.DemoLinksDropID)
			link := fmt.Sprintf("/link@%s %s", tg.Username, sandbox.DemoWallet)

			tg.SendOnBehalf(group, telegramtest.ChannelBot, channel, claim, false)
			tg.SendOnBehalf(group, telegramtest.ServiceAccount, channel, link, true)
			tg.SendOnBehalf(group, telegramtest.ServiceAccount, channel, claim, true)
			notBot := telegramtest.ChannelBot
			notBot.IsBot = false
			tg.SendText(group, notBot, link)
			if _, err := tg.WaitMessages(ctx, 4, telegramtest.All(telegramtest.To(group.ID), telegramtest.Contains("post as yourself"))); err != nil {
				t.Fatalf("the chats' commands were not refused in the group: %v", err)
			}
			for _, u := range []telegramtest.User{telegramtest.ChannelBot, telegramtest.ServiceAccount} {
				if ws := memberWallets(ctx, t, s, u.ID); len(ws) != 0 {
					t.Errorf("%s has wallets %v, want none", u.Username, ws)
				}
			}

			anon := telegramtest.GroupAnonymousBot
			tg.SendOnBehalf(group, anon, group, fmt.Sprintf("/gate@%s add %d", tg.Username, sandbox.DemoLinksDropID), false)
			added, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(group.ID), telegramtest.Contains("join-request link")))
			if err != nil {
				t.Fatalf("the anonymous administrator's /gate add was not answered in the group: %v", err)
			}
			if !strings.Contains(added.Text, "https://t.me/+") {
				t.Errorf("/gate add answer lacks the invite link:\n%s", added.Text)
			}
			tenant, err := s.m.DB.UpsertPlace(ctx, core.Place{Platform: core.Telegram, ExternalID: strconv.FormatInt(group.ID, 10)})
			if err != nil {
				t.Fatal(err)
			}
			if gates, err := s.m.DB.PlaceGates(ctx, tenant.ID); err != nil || len(gates) != 1 {
				t.Errorf("gates = %+v, %v; want the one added", gates, err)
			}
			tg.SendOnBehalf(group, anon, group, claim, false)
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(group.ID), telegramtest.Contains("anonymous administrator"))); err != nil {
				t.Fatalf("the anonymous administrator's /claim was not refused: %v", err)
			}

			for _, m := range tg.Messages() {
				if strings.Contains(m.Text, "/mint/") {
					t.Errorf("a mint link went out: %s", m)
				}
				if m.ChatID == telegramtest.ChannelBot.ID || m.ChatID == telegramtest.ServiceAccount.ID || m.ChatID == anon.ID {
					t.Errorf("the bot wrote to a stand-in account: %s", m)
				}
			}
		})
	}
}
