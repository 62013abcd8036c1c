package main

import (
	"context"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

// TestTelegram_HostileText: what a Telegram member's client sends reaches
// the bot as JSON, which the decoder has already made valid UTF-8 (bytes
// that were not UTF-8 become U+FFFD): a wallet with U+FFFD is refused and
// nothing is linked. A display name with direction overrides reaches the
// challenge message and the stored member without them.
func TestTelegram_HostileText(t *testing.T) {
	t.Parallel()
	tg, s := startTelegram(t, "", nil)
	ctx, cancel := context.WithTimeout(context.Background(), gateWait)
	defer cancel()
	// No username: the first name is the display name.
	eve := telegramtest.User{ID: 6061, FirstName: "Eve\u202Egnp.exe\u2066"}
	tg.OpenPrivateChat(eve.ID)
	private := telegramtest.PrivateChat(eve)

	tg.SendText(private, eve, "/link \xff\xfe@example.org")
	if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(eve.ID), telegramtest.Contains("U+FFFD"))); err != nil {
		t.Fatalf("a wallet with U+FFFD was not refused: %v", err)
	}
	tg.SendText(private, eve, "/link "+coretest.TestAddress)
	m, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(eve.ID), telegramtest.Contains("Nonce")))
	if err != nil {
		t.Fatalf("no challenge: %v", err)
	}
	if msg := challengeIn(t, m.Text); !strings.Contains(msg, "Member: Evegnp.exe (6061)\n") {
		t.Errorf("challenge message lacks the cleaned name:\n%s", msg)
	}
	u, err := s.m.DB.FindUser(ctx, core.Telegram, "6061")
	if err != nil || u.Name != "Evegnp.exe" {
		t.Errorf("stored member = %+v, %v; want the name Evegnp.exe", u, err)
	}
	wallets, err := s.m.DB.Wallets(ctx, u.ID)
	if err != nil || len(wallets) != 1 || wallets[0].Value != coretest.TestAddress {
		t.Errorf("wallets = %+v, %v; want only the address", wallets, err)
	}
}
