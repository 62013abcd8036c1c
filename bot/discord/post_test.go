package discord

import (
	"context"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/core"
)

// claimPost is a drop's claim message as /distribute makes it.
var claimPost = bot.Post{
	Text: "**Drop 197001**: 50 links left.", Image: "https://img.test/197001.png", Subject: "drop:1",
	Buttons: []bot.Button{{Label: "Claim", Command: "/claim 197001", Action: "CLAIMCLAIMCLAIMCLAIMCLAIMC"}},
}

func TestAdapter_Post(t *testing.T) {
	t.Parallel()
	fake := discordtest.NewServer(t, discordtest.Options{})
	a, err := newAdapter(plainBot(), Options{Token: core.Secret(fake.Token()), APIURL: fake.URL()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	build := func(t *testing.T) *discordgo.Interaction {
		t.Helper()
		_, raw, err := fake.Build(discordtest.InteractionSpec{User: discordtest.Moderator, Data: &discordgo.ApplicationCommandInteractionData{Name: "distribute"}})
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}

	t.Run("Publish", func(t *testing.T) {
		p := claimPost
		reply := a.withPost(ctx, a.session, build(t), bot.Reply{Text: "Posted.", Personal: true, Post: &p})
		if reply.Text != "Posted." || reply.Post != nil {
			t.Errorf("withPost reply = %q (post %v), want %q and no post", reply.Text, reply.Post, "Posted.")
		}
		msgs := fake.ChannelMessages(discordtest.DefaultChannelID)
		if len(msgs) != 1 {
			t.Fatalf("%d channel messages, want 1", len(msgs))
		}
		m := msgs[0]
		claim, ok := m.Button("Claim")
		if m.Content != p.Text || !ok || claim.CustomID != "b:CLAIMCLAIMCLAIMCLAIMCLAIMC" || claim.Style == discordgo.LinkButton {
			t.Errorf("post = %q with buttons %+v, want %q with a Claim command button carrying its action's id", m.Content, m.Buttons, p.Text)
		}
		if len(m.Embeds) != 1 || m.Embeds[0].Image == nil || m.Embeds[0].Image.URL != p.Image {
			t.Errorf("post embeds = %+v, want the image %s", m.Embeds, p.Image)
		}
	})
	t.Run("OtherChannel", func(t *testing.T) {
		p := claimPost
		p.Channel = "<#300000000000000099>"
		a.withPost(ctx, a.session, build(t), bot.Reply{Text: "Posted.", Post: &p})
		if msgs := fake.ChannelMessages("300000000000000099"); len(msgs) != 1 {
			t.Errorf("%d messages in the chosen channel, want 1", len(msgs))
		}
	})
	t.Run("MissingPermissions", func(t *testing.T) {
		const channel = "300000000000000077"
		fake.DenyChannel(channel)
		p := claimPost
		p.Channel = channel
		reply := a.withPost(ctx, a.session, build(t), bot.Reply{Text: "Posted.", Personal: true, Post: &p})
		if !strings.Contains(reply.Text, "lack permissions") || !strings.Contains(reply.Text, "<#"+channel+">") {
			t.Errorf("reply = %q, want it to say the bot lacks permissions in <#%s>", reply.Text, channel)
		}
		if msgs := fake.ChannelMessages(channel); len(msgs) != 0 {
			t.Errorf("%d messages in a denied channel", len(msgs))
		}
	})
	t.Run("EditPost", func(t *testing.T) {
		p := claimPost
		a.withPost(ctx, a.session, build(t), bot.Reply{Text: "Posted.", Post: &p})
		msgs := fake.ChannelMessages(discordtest.DefaultChannelID)
		m := msgs[len(msgs)-1]
		p.Text = "**Drop 197001**: 9 links left."
		ref := bot.PostRef{Platform: core.Discord, Place: discordtest.DefaultGuildID, Channel: m.ChannelID, Message: m.ID}
		if err := a.EditPost(ctx, ref, p); err != nil {
			t.Fatalf("EditPost = %v", err)
		}
		msgs = fake.ChannelMessages(discordtest.DefaultChannelID)
		got := msgs[len(msgs)-1]
		if _, ok := got.Button("Claim"); got.Content != p.Text || got.Edits != 1 || !ok || len(got.Embeds) != 1 {
			t.Errorf("edited post = %q, %d edits, buttons %+v, embeds %d; want %q, 1 edit, the Claim button and the image",
				got.Content, got.Edits, got.Buttons, len(got.Embeds), p.Text)
		}
		ref.Message = "999"
		if err := a.EditPost(ctx, ref, p); err == nil {
			t.Error("EditPost(unknown message) = nil, want an error")
		}
	})
}
