package bot

import (
	"context"

	"github.com/poapbot/poapbot/core"
)

// Capabilities are what a platform's chats can do, as its adapter declares
// them; the adapter puts them on each request (Request.Caps). The commands
// read them where platforms differ, so that the bot names no platform: a
// new adapter says what it can do, and the commands follow.
type Capabilities struct {
	// GroupGates: a gate is the group the command runs in, entered by a
	// join request the bot approves (Telegram). Otherwise a gate is a role
	// the bot gives, named by the command's role option.
	GroupGates bool
	// RoleMentions: a role is shown as the platform's mention of its id
	// (Discord). Otherwise it is shown by its name.
	RoleMentions bool
	// EveryoneRole: the place's id is also the id of the role every member
	// of it has (Discord's @everyone), which requires nothing.
	EveryoneRole bool
	// PrivateReplies: a personal reply goes to the member's private chat,
	// away from the place (Telegram), so that a button in it does not run
	// where the command came from. Otherwise a personal reply is shown in
	// the place to the member alone (Discord's ephemeral messages, the
	// console).
	PrivateReplies bool
	// Rehearsal: the adapter is the console of a rehearsal, where the
	// Console commands are offered.
	Rehearsal bool
	// Voice: the platform tells the bot who is in its voice or stage
	// channels (Discord; the console's stand-ins), so /attendance counts
	// them. Otherwise /attendance says it can't (Telegram shows bots
	// nothing of a video chat).
	Voice bool
	// FilesHint says, for /help, how files go with a command.
	FilesHint string
}

// Adapter is one chat platform's connection, as the services and the Bot
// see it. It is built without the Bot: it connects, and declares what the
// platform can do and the parts the core's services act through; the
// services and the Bot are built over those (see Adapters), and Run then
// serves the Bot's commands on the platform. A new platform is one
// package that implements it, and one line where the program lists its
// adapters.
type Adapter interface {
	// Platform is the platform the adapter connects.
	Platform() core.Platform
	// Capabilities say what the platform's chats can do; the adapter
	// puts them on each request.
	Capabilities() Capabilities
	// GateActions do the platform's part in gating: give and take a role
	// or admission to a group, and tell members and moderators.
	GateActions() core.GateActions
	// MediaOpener opens the files members attach, for Moments; when it is
	// also a core.MomentAnnouncer, it tells a place how a resumed post
	// ended.
	MediaOpener() core.MediaOpener
	// PostEditor keeps the posts the adapter published up to date.
	PostEditor
	// Run serves b's commands until ctx is done.
	Run(ctx context.Context, b *Bot) error
}

// PostEditor keeps published posts (Reply.Post) up to date, for
// Bot.PostUpdates and Bot.Notices, and publishes the posts the bot makes
// by itself.
type PostEditor interface {
	// Publish sends p, outside any command, to ref's channel in ref's
	// place (p.Channel is ignored), and returns where it is, Message
	// set. The caller records it with Bot.Posted; p's command buttons
	// must be sealed (Bot.SealPost).
	Publish(ctx context.Context, ref PostRef, p Post) (PostRef, error)
	// EditPost brings the post to p.
	EditPost(ctx context.Context, ref PostRef, p Post) error
	// Notify posts a notice in the channel of the post.
	Notify(ctx context.Context, ref PostRef, text string) error
}

// Adapters are the adapters a process runs, one per platform.
type Adapters []Adapter

// GateActions returns the adapters' parts in gating, by platform, for
// core.GateServiceDeps.
func (as Adapters) GateActions() map[core.Platform]core.GateActions {
	m := make(map[core.Platform]core.GateActions, len(as))
	for _, a := range as {
		m[a.Platform()] = a.GateActions()
	}
	return m
}

// MediaOpeners returns the adapters' openers of files, by platform, for
// core.MomentServiceDeps.
func (as Adapters) MediaOpeners() map[core.Platform]core.MediaOpener {
	m := make(map[core.Platform]core.MediaOpener, len(as))
	for _, a := range as {
		m[a.Platform()] = a.MediaOpener()
	}
	return m
}

// Editor returns the editor of the platform's posts, or nil.
func (as Adapters) Editor(p core.Platform) PostEditor {
	for _, a := range as {
		if a.Platform() == p {
			return a
		}
	}
	return nil
}
