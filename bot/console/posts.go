package console

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// place is the console's one place and channel: its platform id
// and where a post without a channel goes.
const place = "console"

// Place is the console's one place, where its commands run.
func Place() core.Place { return core.Place{Platform: core.Console, ExternalID: place, Name: place} }

// publish prints a reply's post (/distribute's claim message) as the
// channel would show it, its command buttons with the line to type, and
// reports it with Bot.Posted so that its count of links left is kept up to
// date (EditPost prints each change). The post is printed whole, in one
// write.
func (c *Console) publish(ctx context.Context, b *bot.Bot, p bot.Post) {
	ref := bot.PostRef{Platform: core.Console, Place: place, Channel: place}
	if ch := strings.TrimSpace(p.Channel); ch != "" {
		ref.Channel = ch
	}
	ref, s := c.renderPost(ref, p)
	if err := b.Posted(context.WithoutCancel(ctx), ref, p); err != nil {
		s.WriteString("  (Its count of links left will not follow the claims: it could not be recorded.)\n")
	}
	s.WriteString("---\n")
	c.printf("%s", s.String())
}

// Publish prints a post the bot makes by itself (a session's summary) as
// publish does, and returns where it is; the caller records it.
func (c *Console) Publish(_ context.Context, ref bot.PostRef, p bot.Post) (bot.PostRef, error) {
	if strings.TrimSpace(ref.Channel) == "" {
		ref.Channel = place
	}
	ref, s := c.renderPost(ref, p)
	s.WriteString("---\n")
	c.printf("%s", s.String())
	return ref, nil
}

// renderPost names the post's message in ref and writes the post as the
// channel would show it, its command buttons with the line to type.
func (c *Console) renderPost(ref bot.PostRef, p bot.Post) (bot.PostRef, *strings.Builder) {
	ref.Message = "post-" + rand.Text()
	var s strings.Builder
	fmt.Fprintf(&s, "--- posted %s ---\n%s\n", channelWords(ref.Channel), bot.PlainText(p.Text))
	writeButtons(&s, p.Buttons)
	return ref, &s
}

// EditPost prints the change of a post published from the console, one
// short line: the post's last line (its count of links left) and its
// buttons. The bot hands each change over once.
func (c *Console) EditPost(_ context.Context, ref bot.PostRef, p bot.Post) error {
	text := bot.PlainText(p.Text)
	if i := strings.LastIndex(text, "\n"); i >= 0 {
		text = text[i+1:]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[post %s updated] %s\n", channelWords(ref.Channel), strings.TrimSpace(text))
	writeButtons(&b, p.Buttons)
	c.printf("%s", b.String())
	return nil
}

// Notify prints a notice posted beside a published post (a drop running
// low).
func (c *Console) Notify(_ context.Context, ref bot.PostRef, text string) error {
	c.printf("[notice %s] %s\n", channelWords(ref.Channel), bot.PlainText(text))
	return nil
}

// channelWords says where a post is: here, or in the channel named.
func channelWords(channel string) string {
	if channel == place {
		return "here"
	}
	return "in " + channel
}

// writeButtons writes a reply's or a post's buttons, one a line: a link
// with its address, a command with the line that does what pressing it
// would (the console has nothing to press).
func writeButtons(b *strings.Builder, buttons []bot.Button) {
	for _, btn := range buttons {
		switch {
		case btn.URL != "":
			fmt.Fprintf(b, "  [%s] %s\n", btn.Label, btn.URL)
		case btn.Command != "":
			fmt.Fprintf(b, "  [%s] type: %s\n", btn.Label, btn.Command)
		}
	}
}
