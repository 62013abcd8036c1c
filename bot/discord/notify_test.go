package discord

import (
	"context"
	"testing"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/core"
)

func TestAdapter_Notify(t *testing.T) {
	t.Parallel()
	fake := discordtest.NewServer(t, discordtest.Options{})
	a, err := newAdapter(plainBot(), Options{Token: core.Secret(fake.Token()), APIURL: fake.URL()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const text = "Only 2 mint links left for **Drop** (drop `1`). Moderators: `/drop topup 1` asks POAP for more."

	t.Run("OK", func(t *testing.T) {
		ref := bot.PostRef{Platform: core.Discord, Place: fake.GuildID(), Channel: discordtest.DefaultChannelID, Message: "1"}
		if err := a.Notify(ctx, ref, text); err != nil {
			t.Fatalf("Notify() = %v", err)
		}
		msgs := fake.ChannelMessages(discordtest.DefaultChannelID)
		if len(msgs) != 1 {
			t.Fatalf("%d channel messages, want 1", len(msgs))
		}
		if m := msgs[0]; m.Content != text || len(m.Buttons) != 0 || len(m.Embeds) != 0 {
			t.Errorf("notice = %q with buttons %+v and embeds %+v, want %q alone", m.Content, m.Buttons, m.Embeds, text)
		}
	})
	t.Run("MissingPermissions", func(t *testing.T) {
		const channel = "300000000000000078"
		fake.DenyChannel(channel)
		ref := bot.PostRef{Platform: core.Discord, Place: fake.GuildID(), Channel: channel, Message: "1"}
		if err := a.Notify(ctx, ref, text); err == nil {
			t.Error("Notify(denied channel) = nil, want an error")
		}
		if msgs := fake.ChannelMessages(channel); len(msgs) != 0 {
			t.Errorf("%d messages in a denied channel", len(msgs))
		}
	})
}
