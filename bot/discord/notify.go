package discord

import (
	"context"
	"fmt"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
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

// Tell sends the gate notice to the member in private: it opens their DM
// channel (POST /users/@me/channels) and posts the notice there, rendered
// like a reply. A member whose DMs are closed to the bot (50007 Cannot
// send messages to this user) is logged and returned as an error, like
// Discord's other errors.
// See https://discord.com/developers/docs/resources/user#create-dm.
func (g *gates) Tell(ctx context.Context, member string, n core.GateNotice) error {
	var ch *discordgo.Channel
	err := retryRateLimited(ctx, func(o ...discordgo.RequestOption) (err error) {
		ch, err = g.session.UserChannelCreate(member, o...)
		return err
	})
	if err == nil {
		err = g.post(ctx, ch.ID, n)
	}
	if restCode(err) == discordgo.ErrCodeCannotSendMessagesToThisUser {
		g.log.Info("gate notice not delivered: the member's DMs are closed", "member", member, "notice", int(n.Kind))
	}
	if err != nil {
		return fmt.Errorf("discord: tell member %s: %w", member, err)
	}
	return nil
}

// Announce posts the gate notice in the channel of the server, for its
// moderators, rendered like a reply. It returns Discord's error.
func (g *gates) Announce(ctx context.Context, guild, channel string, n core.GateNotice) error {
	if err := g.post(ctx, channelID(channel), n); err != nil {
		return fmt.Errorf("discord: announce in %s of %s: %w", channel, guild, err)
	}
	return nil
}

// post sends the notice's text as a message in the channel, mentioning no
// one.
func (g *gates) post(ctx context.Context, channel string, n core.GateNotice) error {
	m := g.render(bot.Reply{Text: bot.GateNoticeText(n, capabilities)})
	send := &discordgo.MessageSend{Content: m.content, AllowedMentions: noMentions()}
	return retryRateLimited(ctx, func(o ...discordgo.RequestOption) error {
		_, err := g.session.ChannelMessageSendComplex(channel, send, o...)
		return err
	})
}

// momentActions is the adapter's part in Moments: its attachment opener,
// and the notice of a post that a restart interrupted.
type momentActions struct {
	*MediaOpener
	a *Adapter
}

var _ core.MomentAnnouncer = momentActions{}

// MediaOpener returns the adapter's part in Moments: the opener of
// attachments, and AnnounceMoment. It works whether Run runs or not.
func (a *Adapter) MediaOpener() core.MediaOpener { return momentActions{MediaOpener: a.media, a: a} }

// AnnounceMoment posts how a post that a restart interrupted ended, in the
// channel it was posted in, mentioning (and pinging) its member: their
// interaction's reply cannot be edited any more. It returns Discord's
// error.
func (m momentActions) AnnounceMoment(ctx context.Context, n core.MomentNotice) error {
	r := m.a.render(bot.Reply{Text: bot.MomentNoticeText(n)})
	send := &discordgo.MessageSend{
		Content:         r.content,
		AllowedMentions: &discordgo.MessageAllowedMentions{Users: []string{n.Record.Member}},
	}
	err := retryRateLimited(ctx, func(o ...discordgo.RequestOption) error {
		_, err := m.a.session.ChannelMessageSendComplex(n.Record.Channel, send, o...)
		return err
	})
	if err != nil {
		return fmt.Errorf("discord: announce moment %d in %s: %w", n.Record.ID, n.Record.Channel, err)
	}
	return nil
}
