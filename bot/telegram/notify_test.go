package telegram

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core"
)

func TestAdapter_Notify(t *testing.T) {
	ctx := context.Background()
	const text = "Only 2 mint links left for **Drop** (drop `1`). Moderators: `/drop topup 1` asks POAP for more."
	chat := strconv.FormatInt(group.ID, 10)
	ref := bot.PostRef{Platform: core.Telegram, Place: chat, Channel: chat, Message: "5"}

	t.Run("OK", func(t *testing.T) {
		e := newEnv(t, Options{})
		if err := e.a.Notify(ctx, ref, text); err != nil {
			t.Fatalf("Notify() = %v", err)
		}
		m := e.waitMessage(t, telegramtest.To(group.ID))
		if m.Method != "sendMessage" || m.ParseMode != tgbotapi.ModeHTML || len(m.Buttons) != 0 ||
			!strings.Contains(m.Text, "<b>Drop</b>") || !strings.Contains(m.Text, "<code>/drop topup 1</code>") {
			t.Errorf("notice = %s with buttons %+v, want an HTML sendMessage of the text alone", m, m.Buttons)
		}
	})
	t.Run("Refused", func(t *testing.T) {
		e := newEnv(t, Options{})
		e.tg.Fail("sendMessage", telegramtest.Failure{Code: 403, Description: "Forbidden: bot was kicked from the supergroup chat"})
		var apiErr *tgbotapi.Error
		if err := e.a.Notify(ctx, ref, text); !errors.As(err, &apiErr) || apiErr.Code != 403 {
			t.Errorf("Notify(kicked) = %v, want the Bot API's 403", err)
		}
	})
	t.Run("BadChat", func(t *testing.T) {
		e := newEnv(t, Options{})
		bad := ref
		bad.Channel = "general"
		if err := e.a.Notify(ctx, bad, text); !errors.Is(err, errBadChat) {
			t.Errorf("Notify(channel %q) = %v, want errBadChat", bad.Channel, err)
		}
	})
}
