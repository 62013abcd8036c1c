package telegram

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
)

// gatedMoment is a /moment that shows "Uploading", waits for the test,
// shows "Processing", waits again, and answers with a bold Moment.
func gatedMoment(first, second <-chan struct{}) *bot.Command {
	wait := func(ctx context.Context, gate <-chan struct{}) error {
		select {
		case <-gate:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return momentCommand(func(ctx context.Context, req *bot.Request) (bot.Reply, error) {
		req.Progress(bot.Reply{Text: "Uploading 1 of 1 <file>"})
		if err := wait(ctx, first); err != nil {
			return bot.Reply{}, err
		}
		req.Progress(bot.Reply{Text: "Processing"})
		if err := wait(ctx, second); err != nil {
			return bot.Reply{}, err
		}
		return bot.Reply{Text: "Posted your **Moment** 7"}, nil
	})
}

func TestAdapter_LongCommand(t *testing.T) {
	e := newEnv(t, Options{})
	first, second := make(chan struct{}), make(chan struct{})
	e.withCommand(gatedMoment(first, second))
	e.run(t)
	ctx := waitCtx(t)
	cmd := e.tg.SendMedia(group, alice, "/moment 42 hi", telegramtest.PhotoMedia("p1", 10))

	progress := e.waitMessage(t, telegramtest.All(telegramtest.To(group.ID), telegramtest.Contains("Uploading")))
	if progress.Method != "sendMessage" || progress.ReplyTo != cmd || progress.ParseMode != "HTML" || !strings.Contains(progress.Text, "&lt;file&gt;") {
		t.Errorf("progress = %s in reply to %d (%s), want an HTML message in reply to %d", progress, progress.ReplyTo, progress.ParseMode, cmd)
	}

	// The long command waits; another update is answered meanwhile.
	e.tg.SendText(telegramtest.PrivateChat(bob), bob, "/help")
	if help := e.waitMessage(t, telegramtest.To(bob.ID)); !strings.Contains(help.Text, "brings POAPs") {
		t.Errorf("reply to bob = %q, want the help", help.Text)
	}

	close(first)
	edits, err := e.tg.WaitEdits(ctx, group.ID, progress.MessageID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if edits[0].Method != "editMessageText" || edits[0].Text != "Processing" {
		t.Errorf("first edit = %s, want Processing", edits[0])
	}

	// Run, stopping, cuts the long command (what a Moment's upload leaves
	// is taken up by the next process) and waits for its final reply,
	// which still goes out.
	defer close(second)
	if err := e.stop(); err != nil {
		t.Fatalf("Run() = %v", err)
	}
	edits = e.tg.Edits(group.ID, progress.MessageID)
	var texts []string
	for _, m := range edits {
		texts = append(texts, m.Text)
	}
	if want := []string{"Processing", "error: " + context.Canceled.Error()}; strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Errorf("edits = %q, want %q", texts, want)
	}
	var posted []telegramtest.Message
	for _, m := range sentTo(e.tg.Messages(), group.ID) {
		if m.Method == "sendMessage" {
			posted = append(posted, m)
		}
	}
	if len(posted) != 1 {
		t.Errorf("messages sent to the group: %v, want the progress message alone", posted)
	}
}

func TestAdapter_LongCommandEditFails(t *testing.T) {
	// The progress message is gone (a moderator deleted it): the final
	// reply is sent anew, in reply to the command.
	e := newEnv(t, Options{})
	first, second := make(chan struct{}), make(chan struct{})
	close(second)
	e.withCommand(gatedMoment(first, second))
	e.run(t)
	cmd := e.tg.SendMedia(group, alice, "/moment 42 hi", telegramtest.PhotoMedia("p1", 10))
	e.waitMessage(t, telegramtest.Contains("Uploading"))
	e.tg.Fail("editMessageText", telegramtest.Failure{Code: 400, Description: "Bad Request: message to edit not found"})
	e.tg.Fail("editMessageText", telegramtest.Failure{Code: 400, Description: "Bad Request: message to edit not found"})
	close(first)
	final := e.waitMessage(t, telegramtest.All(telegramtest.Method("sendMessage"), telegramtest.Contains("Posted")))
	if final.ChatID != group.ID || final.ReplyTo != cmd {
		t.Errorf("final reply = %s in reply to %d, want it in the group in reply to %d", final, final.ReplyTo, cmd)
	}
}

func TestAdapter_LongCommandOutlivesUpdateTimeout(t *testing.T) {
	// A long command is bounded by its own Timeout, not by the update's.
	e := newEnv(t, Options{UpdateTimeout: time.Millisecond})
	first, second := make(chan struct{}), make(chan struct{})
	close(second)
	e.withCommand(gatedMoment(first, second))
	e.run(t)
	chat := telegramtest.PrivateChat(alice)
	e.tg.SendMedia(chat, alice, "/moment 42 hi", telegramtest.PhotoMedia("p1", 10))
	progress := e.waitMessage(t, telegramtest.Contains("Uploading"))
	close(first)
	final := e.waitMessage(t, telegramtest.Contains("Posted your <b>Moment</b>"))
	if final.Method != "editMessageText" || final.MessageID != progress.MessageID {
		t.Errorf("final reply = %s, want an edit of the progress message #%d", final, progress.MessageID)
	}
}
