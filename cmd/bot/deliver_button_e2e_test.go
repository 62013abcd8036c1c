package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/poap/sandbox"
)

// TestDelivery_TelegramDraftInPrivate: a /drop deliver whose words hold six
// digits may carry an edit code, so the bot deletes it from the group and
// answers in the moderator's private chat; the draft's button, pressed
// there, creates the delivery for the group, once getChatMember says the
// moderator administers it.
func TestDelivery_TelegramDraftInPrivate(t *testing.T) {
	t.Parallel()
	tg, s := startTelegram(t, "", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sb := s.m.SandboxAPI
	group, mod := telegramGroup(tg)
	tg.OpenPrivateChat(mod.ID)
	drop, code := sb.CreateDrop(sandbox.Drop{Name: "Group Delivery"}, 0)
	addTelegramDropOf(ctx, t, tg, group, mod, drop.ID, code)
	u := telegramtest.User{ID: 2101, FirstName: "Ann"}
	tg.OpenPrivateChat(u.ID)
	key := memberKey(10)
	telegramVerify(ctx, t, tg, u, coretest.Address(key), signer(key))

	tg.SendText(group, mod, fmt.Sprintf(`/drop@%s deliver %d title:"Meetup 202405"`, tg.Username, drop.ID))
	draft, err := tg.WaitMessage(ctx, telegramtest.Contains("Delivery draft"))
	if err != nil {
		t.Fatalf("no draft: %v", err)
	}
	if draft.ChatID != mod.ID {
		t.Errorf("the draft went to chat %d, want the moderator's private chat %d", draft.ChatID, mod.ID)
	}
	if _, err := tg.PressButton(draft, mod, "Create the delivery"); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.WaitMessage(ctx, telegramtest.Contains("Delivery created")); err != nil {
		t.Fatalf("the draft's button did not create the delivery: %v; answers %+v", err, tg.Calls("answerCallbackQuery"))
	}
}
