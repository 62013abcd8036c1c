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

func TestCallbackData(t *testing.T) {
	e := newEnv(t, Options{})
	tests := []struct {
		line   string
		want   string
		wantOK bool
	}{
		{"/poaps wallet:" + demo + " page:2", "cmd:poaps " + demo + " page:2", true},
		{"/poaps page:3", "cmd:poaps page:3", true},
		{"/poaps member:@alice page:2", "cmd:poaps member:@alice page:2", true},
		{"/poaps \"vitalik dot eth\"", "cmd:poaps \"vitalik dot eth\"", true},
		{"/help", "cmd:help", true},
		{"/poaps wallet:" + demo + " member:@" + strings.Repeat("a", 30), "", false},
	}
	for _, tt := range tests {
		got, ok := e.a.callbackData(tt.line)
		if ok != tt.wantOK || (ok && got != tt.want) {
			t.Errorf("callbackData(%q) = %q, %v; want %q, %v", tt.line, got, ok, tt.want, tt.wantOK)
		}
		if !ok {
			continue
		}
		// The compact line must run the same command with the same options.
		wantCmd, wantOpts, err1 := e.a.bot.ParseLine(tt.line, "")
		gotCmd, gotOpts, err2 := e.a.bot.ParseLine("/"+strings.TrimPrefix(got, callbackPrefix), "")
		if err1 != nil || err2 != nil || wantCmd != gotCmd || !cmp.Equal(wantOpts, gotOpts) {
			t.Errorf("callbackData(%q) = %q parses to %v %v (%v), want %v %v", tt.line, got, gotCmd.Name, gotOpts, err2, wantCmd.Name, wantOpts)
		}
	}
}

func TestKeyboard_LeavesOutLongCommands(t *testing.T) {
	e := newEnv(t, Options{})
	kb := e.a.keyboard([]bot.Button{
		{Label: "Site", URL: "https://poap.test"},
		{Label: "Too long", Command: "/poaps wallet:" + demo + " member:@" + strings.Repeat("a", 30)},
	})
	if kb == nil || len(kb.InlineKeyboard) != 1 || kb.InlineKeyboard[0][0].Text != "Site" {
		t.Errorf("keyboard = %+v, want only the URL button", kb)
	}
	if e.a.keyboard(nil) != nil {
		t.Errorf("keyboard(nil) is not nil")
	}
}
