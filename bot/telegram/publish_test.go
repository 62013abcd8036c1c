package telegram

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core"
)

// TestAdapter_Publish: a post the bot makes by itself goes out as a
// reply's post does (in a group, its command button a deep link to the
// private chat), and Publish returns where it is.
func TestAdapter_Publish(t *testing.T) {
	ctx := context.Background()
	chat := strconv.FormatInt(group.ID, 10)
	ref := bot.PostRef{Platform: core.Telegram, Place: chat, Channel: chat}
	post := bot.Post{Text: "**Attendance of Call**\nPress Claim to get your POAP.", Subject: "drop:7",
		Buttons: []bot.Button{{Label: "Claim", Command: "/claim 7", Action: "act1"}}}

	e := newEnv(t, Options{})
	got, err := e.a.Publish(ctx, ref, post)
	if err != nil {
		t.Fatalf("Publish() = %v", err)
	}
	m := e.waitMessage(t, telegramtest.To(group.ID))
	if want := strconv.Itoa(m.MessageID); got.Message != want || got.Channel != chat || got.Place != chat {
		t.Errorf("Publish() = %+v, want message %s in chat %s", got, want, chat)
	}
	if !strings.Contains(m.Text, "<b>Attendance of Call</b>") || len(m.Buttons) != 1 || len(m.Buttons[0]) != 1 ||
		!strings.HasSuffix(m.Buttons[0][0].URL, "?start="+linkPrefix+"act1") {
		t.Errorf("post = %s with buttons %+v, want the text and a deep link to act1", m, m.Buttons)
	}

	bad := ref
	bad.Channel = "general"
	if _, err := e.a.Publish(ctx, bad, post); !errors.Is(err, errBadChat) {
		t.Errorf("Publish(channel %q) = %v, want errBadChat", bad.Channel, err)
	}
}
