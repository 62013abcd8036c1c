package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/poap/sandbox"
)

// The moderator's lines of the tests below: remove the demo drop, add it
// again, edit it.
var (
	removeLine = fmt.Sprintf("/drop remove %d", sandbox.DemoLinksDropID)
	readdLine  = fmt.Sprintf("/drop add %d edit_code:%s delivery:link", sandbox.DemoLinksDropID, sandbox.DemoEditCode)
	editLine   = fmt.Sprintf("/drop edit %d", sandbox.DemoLinksDropID)
)

// TestDropAgain_Discord: a drop removed and added again gives the member
// the same link; /drop edit changes its codeword, and @everyone clears its
// role.
func TestDropAgain_Discord(t *testing.T) {
	t.Parallel()
	for name, url := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, _ := startDiscord(t, url, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			addDiscordDrop(ctx, t, srv)
			member := discordMembers(1)[0]
			msg, _ := discordReply(ctx, t, srv.Command(member, claimLine), containing("/mint/"))
			first := mintLinkRE.FindString(msg.Content)
			mod := discordtest.Moderator
			discordReply(ctx, t, srv.Command(mod, removeLine), containing("gives each member the same link back"))
			discordReply(ctx, t, srv.Command(mod, readdLine), containing("is set up here again"))
			again, _ := discordReply(ctx, t, srv.Command(member, claimLine), containing("/mint/"))
			if got := mintLinkRE.FindString(again.Content); got != first {
				t.Errorf("link after the drop was added again = %q, want %q", got, first)
			}
			discordReply(ctx, t, srv.Command(mod, editLine+" codeword:sun required_role:42"), containing("• codeword: none → `sun`"))
			discordReply(ctx, t, srv.Command(mod, editLine+" required_role:"+srv.GuildID()), containing("→ none (everyone here)"))
			discordReply(ctx, t, srv.Command(member, claimLine+" codeword:sun"), containing(first))
		})
	}
}

// TestDropAgain_Telegram: the same on Telegram, from a group.
func TestDropAgain_Telegram(t *testing.T) {
	t.Parallel()
	for name, url := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tg, _ := startTelegram(t, url, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			group, mod := telegramGroup(tg)
			addTelegramDrop(ctx, t, tg, group, mod)
			member := telegramtest.User{ID: 2001, FirstName: "Member"}
			tg.SendText(telegramtest.PrivateChat(member), member, claimLine)
			first, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(member.ID), telegramtest.Contains("/mint/")))
			if err != nil {
				t.Fatalf("the member got no link: %v", err)
			}
			modSays := func(line, want string) {
				t.Helper()
				tg.SendText(group, mod, "/drop@"+tg.Username+line[len("/drop"):])
				if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(mod.ID), telegramtest.Contains(want))); err != nil {
					t.Fatalf("%s: %v", line, err)
				}
			}
			modSays(removeLine, "gives each member the same link back")
			modSays(readdLine, "is set up here again")
			tg.SendText(telegramtest.PrivateChat(member), member, claimLine)
			again, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(member.ID), telegramtest.Contains("claimed"), telegramtest.Contains("/mint/")))
			if err != nil || mintLinkRE.FindString(again.Text) != mintLinkRE.FindString(first.Text) {
				t.Errorf("claim after the drop was added again = %q, %v; want the same link %s", again.Text, err, mintLinkRE.FindString(first.Text))
			}
			modSays(editLine+" ends:2031-01-01", "• ends: none (never) → 2031-01-01 at 00:00 UTC")
		})
	}
}

// TestDropAgain_Console: on the console, a member with a link gets it
// again and a member minted to is told they have it, after the drop was
// removed and added again with a codeword, which /drop edit then removes.
func TestDropAgain_Console(t *testing.T) {
	t.Parallel()
	for name, url := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startMainTuned(t, map[string]string{"DATABASE_URL": url}, true, nil)
			consoleAnswer(t, s, fmt.Sprintf("/drop add %d %s", sandbox.DemoLinksDropID, sandbox.DemoEditCode), "is set up here")
			consoleAnswer(t, s, "/as bob", "You are now bob")
			first := mintLinkRE.FindString(consoleAnswer(t, s, claimLine, "/mint/"))
			consoleAnswer(t, s, "/as carol", "You are now carol")
			consoleAnswer(t, s, "/link "+coretest.Address(memberKey(21)), "Signing is free")
			consoleAnswer(t, s, claimLine, "Minted ")
			consoleAnswer(t, s, "/as console", "the moderator")
			consoleAnswer(t, s, removeLine, "gives each member the same link back")
			consoleAnswer(t, s, fmt.Sprintf("/drop add %d %s codeword:sun", sandbox.DemoLinksDropID, sandbox.DemoEditCode), "is set up here again")
			consoleAnswer(t, s, "/as bob", "You are now bob")
			if got := mintLinkRE.FindString(consoleAnswer(t, s, claimLine+" sun", "here is your mint link again")); got != first {
				t.Errorf("bob's link after the drop was added again = %q, want %q", got, first)
			}
			consoleAnswer(t, s, "/as carol", "You are now carol")
			consoleAnswer(t, s, claimLine+" sun", "You have it already")
			consoleAnswer(t, s, "/as console", "the moderator")
			consoleAnswer(t, s, editLine+" codeword:none", "• codeword: sun → none")
			consoleAnswer(t, s, "/as carol", "You are now carol")
			consoleAnswer(t, s, claimLine, "You have it already")
		})
	}
}
