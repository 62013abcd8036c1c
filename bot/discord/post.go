package discord

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// withPost publishes the reply's Post, when it has one, before the reply
// goes out, so that the moderator's one answer says whether it worked: a
// failure to publish is added to the reply's text. The reply itself is
// still bounded by the acknowledgement timer of onInteraction, which defers
// the interaction when publishing is slow.
func (a *Adapter) withPost(ctx context.Context, s *discordgo.Session, i *discordgo.Interaction, r bot.Reply) bot.Reply {
	if r.Post == nil {
		return r
	}
	p := *r.Post
	r.Post = nil
	if note := a.publish(ctx, s, i, p); note != "" {
		r.Text = strings.TrimSpace(r.Text + "\n\n" + note)
	}
	return r
}

// publish sends the post to its channel (the interaction's when empty) and
// reports where with Bot.Posted. It returns what to tell the moderator
// when the post could not be published, "" otherwise; a failure to record
// it is only logged: the post is out, it just will not be edited.
func (a *Adapter) publish(ctx context.Context, s *discordgo.Session, i *discordgo.Interaction, p bot.Post) string {
	channel := channelID(p.Channel)
	if channel == "" {
		channel = i.ChannelID
	}
	var ref bot.PostRef
	err := a.call(ctx, i, "publish post", func(o ...discordgo.RequestOption) (err error) {
		ref, err = a.sendPost(s, bot.PostRef{Platform: core.Discord, Place: i.GuildID, Channel: channel}, p, o...)
		return err
	})
	if err != nil {
		return postFailure(err, channel, p.Summary != 0)
	}
	if err := a.bot.Posted(context.WithoutCancel(ctx), ref, p); err != nil {
		a.log.Warn("published post not recorded; it will not be updated", "channel", ref.Channel, "message", ref.Message, "subject", p.Subject, "err", err)
	}
	return ""
}

// Publish sends the post to ref's channel outside any interaction (a
// session's summary the bot posts by itself) and returns where it is. It
// returns Discord's error.
// See https://discord.com/developers/docs/resources/message#create-message.
func (a *Adapter) Publish(ctx context.Context, ref bot.PostRef, p bot.Post) (bot.PostRef, error) {
	ctx, cancel := context.WithTimeout(ctx, restTimeout)
	defer cancel()
	ref.Channel = channelID(ref.Channel)
	out, err := a.sendPost(a.session, ref, p, discordgo.WithContext(ctx))
	if err != nil {
		return bot.PostRef{}, fmt.Errorf("discord: publish post in %s: %w", ref.Channel, err)
	}
	return out, nil
}

// sendPost sends the post, rendered, to ref's channel, and returns ref
// with the message's ids: the one way a post goes out, for a command's
// reply (publish) and for the bot's own (Publish).
func (a *Adapter) sendPost(s *discordgo.Session, ref bot.PostRef, p bot.Post, o ...discordgo.RequestOption) (bot.PostRef, error) {
	m := a.renderPost(p)
	send := &discordgo.MessageSend{Content: m.content, Embeds: m.embeds, Components: m.components, AllowedMentions: noMentions()}
	msg, err := s.ChannelMessageSendComplex(ref.Channel, send, o...)
	if err != nil {
		return bot.PostRef{}, err
	}
	ref.Message = msg.ID
	if msg.ChannelID != "" {
		ref.Channel = msg.ChannelID
	}
	return ref, nil
}

// EditPost replaces a published post's text, image and buttons with p's
// (ChannelMessageEditComplex). It returns Discord's error, a 429 waited out
// within the REST timeout.
// See https://discord.com/developers/docs/resources/message#edit-message.
func (a *Adapter) EditPost(ctx context.Context, ref bot.PostRef, p bot.Post) error {
	ctx, cancel := context.WithTimeout(ctx, restTimeout)
	defer cancel()
	m := a.renderPost(p)
	edit := &discordgo.MessageEdit{
		ID: ref.Message, Channel: ref.Channel,
		Content: &m.content, Embeds: &m.embeds, Components: &m.components, AllowedMentions: noMentions(),
	}
	if _, err := a.session.ChannelMessageEditComplex(edit, discordgo.WithContext(ctx)); err != nil {
		return fmt.Errorf("discord: edit post %s in %s: %w", ref.Message, ref.Channel, err)
	}
	return nil
}

// renderPost renders a post like a reply, with its image as the embed's
// large image rather than a thumbnail. Command buttons carry "cmd:<line>"
// and run for whoever presses them (see job).
func (a *Adapter) renderPost(p bot.Post) message {
	m := a.render(bot.Reply{Text: p.Text, Buttons: p.Buttons})
	if p.Image != "" {
		m.embeds = append(m.embeds, &discordgo.MessageEmbed{Image: &discordgo.MessageEmbedImage{URL: p.Image}})
	}
	return m
}

// channelID accepts a channel id or a <#id> mention.
func channelID(s string) string {
	s = strings.TrimSpace(s)
	return strings.TrimSuffix(strings.TrimPrefix(s, "<#"), ">")
}

// postFailure words why a post could not be published, for the moderator.
func postFailure(err error, channel string, summary bool) string {
	fix, unknown, other := "then run /distribute again.", "Pick a text channel I can see, then run /distribute again.",
		"Please run /distribute again in a minute."
	if summary {
		// An attendance summary stays owed: the bot tells it once the
		// stop's hold on it (core.AttendanceSummaryLease) ends.
		later := fmt.Sprintf("in about %d minutes", int(core.AttendanceSummaryLease.Minutes()))
		fix = "and I will post it there " + later + "."
		unknown = "I will try again " + later + "."
		other = unknown
	}
	var re *discordgo.RESTError
	if errors.As(err, &re) {
		code := 0
		if re.Message != nil {
			code = re.Message.Code
		}
		switch {
		case code == discordgo.ErrCodeMissingPermissions || code == discordgo.ErrCodeMissingAccess ||
			(re.Response != nil && re.Response.StatusCode == http.StatusForbidden):
			return fmt.Sprintf("I could not post the claim message in <#%s>: I lack permissions there. "+
				"Give me View Channel, Send Messages and Embed Links in that channel, %s", channel, fix)
		case code == discordgo.ErrCodeUnknownChannel:
			return "I could not post the claim message: I don't know that channel. " + unknown
		}
	}
	return "I could not post the claim message in <#" + channel + "> just now. " + other
}
