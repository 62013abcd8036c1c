package main

import (
	"context"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core/coretest"
)

// TestGate_TelegramWhyJoinRequests: a verified member declined for
// lacking the drop asks /why in private and reads the group, the missing
// drop, how to qualify and the invite link; a requester without a
// verified wallet reads that their request is pending, and what to do.
func TestGate_TelegramWhyJoinRequests(t *testing.T) {
	t.Parallel()
	for name, dbURL := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tg, s := startTelegram(t, dbURL, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 3*gateWait)
			defer cancel()
			group, mod := gatedGroup(tg)
			drop := gatedDrop(t, s, "Gated Meetup", coretest.TestAddress)
			addGroupGate(ctx, t, tg, group, mod, drop)

			bob := telegramtest.User{ID: 1002, FirstName: "Bob"}
			tg.OpenPrivateChat(bob.ID)
			bobKey := coretest.MustKey(strings.Repeat("12", 32))
			telegramVerify(ctx, t, tg, bob, coretest.Address(bobKey), func(m string) string { return coretest.Sign(bobKey, m) })
			tg.RequestJoin(group.ID, bob)
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(bob.ID), telegramtest.Contains("Missing: <b>Gated Meetup</b>"))); err != nil {
				t.Fatalf("the declined member was not told which drop is missing: %v", err)
			}
			tg.SendText(telegramtest.PrivateChat(bob), bob, "/why")
			why, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(bob.ID), telegramtest.Contains("needs")))
			if err != nil {
				t.Fatalf("no /why for the declined member: %v", err)
			}
			for _, want := range []string{
				"<b>POAP fans</b> needs a POAP of <b>Gated Meetup</b>",
				"verified, holds none of the drops",
				"the request was declined on ", "for lacking <b>Gated Meetup</b>",
				"link a wallet that holds the missing POAPs",
				"ask to join again through the group's invite link: https://t.me/+",
			} {
				if !strings.Contains(why.Text, want) {
					t.Errorf("/why of the declined member lacks %q:\n%s", want, why.Text)
				}
			}

			carol := telegramtest.User{ID: 1003, FirstName: "Carol"}
			tg.OpenPrivateChat(carol.ID)
			tg.RequestJoin(group.ID, carol)
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(carol.ID), telegramtest.Contains("You asked to join"))); err != nil {
				t.Fatalf("a requester without a wallet was not told how to verify: %v", err)
			}
			tg.SendText(telegramtest.PrivateChat(carol), carol, "/why")
			why, err = tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(carol.ID), telegramtest.Contains("is pending while")))
			if err != nil {
				t.Fatalf("no /why for the pending requester: %v", err)
			}
			for _, want := range []string{"<b>POAP fans</b> needs", "You have no wallet linked", "the request is pending while you have no verified wallet"} {
				if !strings.Contains(why.Text, want) {
					t.Errorf("/why of the pending requester lacks %q:\n%s", want, why.Text)
				}
			}
		})
	}
}
