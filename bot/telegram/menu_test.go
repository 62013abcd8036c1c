package telegram

import (
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot"
)

func TestMenu(t *testing.T) {
	cmds := []*bot.Command{
		{Name: "help", Description: "What this bot can do"},
		{Name: "claim", Description: strings.Repeat("x", 300), Access: bot.Members},
		{Name: "drop add", Description: "Register a drop", Access: bot.ManageDrops},
		{Name: "drop list", Description: "Drops with stock", Access: bot.ManageDrops},
		{Name: "Gate check", Description: "Dry run", Access: bot.ManageRoles},
		{Name: "bad-name", Description: "Not a Telegram command name"},
	}
	long := strings.Repeat("x", 255) + "…"
	t.Run("Members", func(t *testing.T) {
		want := []tgbotapi.BotCommand{{Command: "help", Description: "What this bot can do"}, {Command: "claim", Description: long}}
		if diff := cmp.Diff(want, menu(cmds, false)); diff != "" {
			t.Errorf("menu(members) (-want +got):\n%s", diff)
		}
	})
	t.Run("Moderators", func(t *testing.T) {
		want := []tgbotapi.BotCommand{
			{Command: "help", Description: "What this bot can do"},
			{Command: "claim", Description: long},
			{Command: "drop", Description: "add, list (e.g. /drop add)"},
			{Command: "gate", Description: "check (e.g. /gate check)"},
		}
		if diff := cmp.Diff(want, menu(cmds, true)); diff != "" {
			t.Errorf("menu(moderators) (-want +got):\n%s", diff)
		}
	})
}

func TestKeyboard(t *testing.T) {
	e := newEnv(t, Options{})
	kb := e.a.keyboard([]bot.Button{
		{Label: "Site", URL: "https://poap.test"},
		{Label: "Next", Command: "/poaps page:2", Action: testAction},
		{Label: "Not stored", Command: "/poaps page:3"},
	})
	want := [][]tgbotapi.InlineKeyboardButton{
		tgbotapi.NewInlineKeyboardRow(tgbotapi.NewInlineKeyboardButtonURL("Site", "https://poap.test")),
		tgbotapi.NewInlineKeyboardRow(tgbotapi.NewInlineKeyboardButtonData("Next", "b:"+testAction)),
	}
	if kb == nil || !cmp.Equal(kb.InlineKeyboard, want) {
		t.Errorf("keyboard = %+v, want %+v: the action's id, and no button without one", kb, want)
	}
	if e.a.keyboard(nil) != nil {
		t.Errorf("keyboard(nil) is not nil")
	}
}
