package telegram

import (
	"bytes"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
)

// TestAdapter_Document checks how a reply with a file is sent: as a
// document in the member's private chat, captioned with the text when it
// fits, and never to the group the command came from.
func TestAdapter_Document(t *testing.T) {
	csv := []byte("link,member,wallet,state,time\nhttps://poap.xyz/mint/abc,m1,,handed_out,2026-01-01T00:00:00Z\n")
	file := &bot.File{Name: "drop-1-links.csv", ContentType: "text/csv", Data: csv}
	fromGroup := origin{chat: &tgbotapi.Chat{ID: group.ID, Type: "supergroup", Title: "POAP fans"}, from: &tgbotapi.User{ID: alice.ID, UserName: "alice"}}
	long := strings.Repeat("A line of the export's summary.\n", 40)

	t.Run("Caption", func(t *testing.T) {
		e := newEnv(t, Options{})
		reply := bot.Reply{Text: "Export of **the drop**", Personal: true, File: file, Buttons: []bot.Button{{Label: "Open", URL: "https://poap.xyz"}}}
		e.a.send(waitCtx(t), fromGroup, reply)
		ms := e.tg.Messages()
		if len(ms) != 1 || ms[0].Method != "sendDocument" || ms[0].ChatID != alice.ID {
			t.Fatalf("sent %v, want one sendDocument to the private chat", ms)
		}
		wantDocument(t, ms[0], csv)
		if ms[0].Text != "Export of <b>the drop</b>" || ms[0].ParseMode != "HTML" || len(ms[0].Buttons) != 1 {
			t.Errorf("caption = %q (%s), buttons %v; want the HTML text and the button", ms[0].Text, ms[0].ParseMode, ms[0].Buttons)
		}
	})
	t.Run("LongText", func(t *testing.T) {
		e := newEnv(t, Options{})
		e.a.send(waitCtx(t), fromGroup, bot.Reply{Text: long, Personal: true, File: file})
		ms := e.tg.Messages()
		if len(ms) != 2 || ms[0].Method != "sendMessage" || ms[1].Method != "sendDocument" ||
			ms[0].ChatID != alice.ID || ms[1].ChatID != alice.ID {
			t.Fatalf("sent %v, want the text, then the document, in the private chat", ms)
		}
		wantDocument(t, ms[1], csv)
		if ms[1].Text != "" {
			t.Errorf("document caption = %q, want none", ms[1].Text)
		}
	})
	t.Run("TooLarge", func(t *testing.T) {
		e := newEnv(t, Options{})
		big := &bot.File{Name: "drop-1-links.csv", Data: make([]byte, maxDocument+1)}
		e.a.send(waitCtx(t), fromGroup, bot.Reply{Text: "Export of the drop", Personal: true, File: big})
		ms := e.tg.Messages()
		if len(ms) != 1 || ms[0].Method != "sendMessage" || ms[0].ChatID != alice.ID || !strings.Contains(ms[0].Text, "50 MB") {
			t.Errorf("sent %v, want one message naming the 50 MB limit", ms)
		}
	})
	t.Run("NeverStarted", func(t *testing.T) {
		e := newEnv(t, Options{})
		e.tg.NeverStarted(alice.ID)
		e.a.send(waitCtx(t), fromGroup, bot.Reply{Text: "Export", Personal: true, File: file})
		ms := e.tg.Messages()
		if len(ms) != 1 || ms[0].ChatID != group.ID || ms[0].Document != nil || !strings.Contains(ms[0].Text, "?start=") {
			t.Errorf("sent %v, want only the note with the deep link in the group", ms)
		}
	})
}

// wantDocument checks that m uploaded the file with data.
func wantDocument(t *testing.T, m telegramtest.Message, data []byte) {
	t.Helper()
	d := m.Document
	if d == nil || d.Name != "drop-1-links.csv" || d.Size != len(data) || !bytes.Equal(d.Data, data) {
		t.Errorf("document = %+v, want drop-1-links.csv with %d bytes", d, len(data))
	}
}
