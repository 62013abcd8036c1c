package discord

import (
	"context"
	"fmt"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/bot"
)

// Notify posts text, rendered like a reply's, as a new message in ref's
// channel (ChannelMessageSendComplex), mentioning no one: the notices of
// Bot.Notices beside a published post. It returns Discord's error, a 429
// waited out within the REST timeout.
// See https://discord.com/developers/docs/resources/message#create-message.
func (a *Adapter) Notify(ctx context.Context, ref bot.PostRef, text string) error {
	ctx, cancel := context.WithTimeout(ctx, restTimeout)
	defer cancel()
	m := a.render(bot.Reply{Text: text})
	send := &discordgo.MessageSend{Content: m.content, AllowedMentions: noMentions()}
	if _, err := a.session.ChannelMessageSendComplex(ref.Channel, send, discordgo.WithContext(ctx)); err != nil {
		return fmt.Errorf("discord: notify in %s: %w", ref.Channel, err)
	}
	return nil
}
