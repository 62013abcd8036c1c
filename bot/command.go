// Package bot is the chat layer over the core's services, the same on
// every platform: the command table (declared once, rendered by each
// adapter), the request a platform event becomes and the platform-neutral
// reply, who may run what, the one place where errors become the words a
// member reads, and the chat's own policies (where a /claim typed in a
// private chat is claimed, what a post says as its drop runs low).
//
// Each chat platform is an Adapter. It is built without the Bot and
// declares its platform, what its chats can do (Capabilities: gates as
// roles or as groups, role mentions, where personal replies go, a
// rehearsal's console) and the parts the core's services act through
// (gate actions, a media opener, editing its posts); the program builds
// the services over those parts and the Bot over the services, and hands
// the Bot to each adapter's Run. Where platforms differ, the commands read
// the capabilities a request carries, never a platform's name, so a new
// platform is a new adapter and nothing here.
package bot

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
)

// OptionType is the type of a command option, as each platform renders it.
type OptionType int

// The option types. Adapters map them to their platform's types: Discord
// slash-command option types, positional words on Telegram and the console.
const (
	TextOption OptionType = iota
	IntegerOption
	BooleanOption
	MemberOption
	RoleOption
	ChannelOption
	AttachmentOption
	// DateTimeOption is a date and time as members type it: 2026-12-01
	// 18:00 (UTC), or RFC 3339 with a zone. Typed, its time may follow the
	// date as a word of its own; platforms without a type for it take
	// text.
	DateTimeOption
)

func (t OptionType) String() string {
	switch t {
	case IntegerOption:
		return "integer"
	case BooleanOption:
		return "boolean"
	case MemberOption:
		return "member"
	case RoleOption:
		return "role"
	case ChannelOption:
		return "channel"
	case AttachmentOption:
		return "attachment"
	case DateTimeOption:
		return "date and time"
	}
	return "text"
}

// ChannelType is a kind of channel a ChannelOption takes. Adapters map
// them to their platform's kinds (Discord's channel types).
type ChannelType int

// The channel types.
const (
	// VoiceChannelType is a voice channel.
	VoiceChannelType ChannelType = iota + 1
	// StageChannelType is a stage channel (speakers and an audience).
	StageChannelType
)

func (t ChannelType) String() string {
	switch t {
	case VoiceChannelType:
		return "voice"
	case StageChannelType:
		return "stage"
	}
	return "channel type " + strconv.Itoa(int(t))
}

// Option is one named argument of a command.
type Option struct {
	Name        string
	Description string
	Type        OptionType
	Required    bool
	// ChannelTypes, for a ChannelOption, are the kinds of channel it
	// takes; none means any. An adapter whose platform offers only those
	// in its picker (Discord) asks it to; a member can still type or
	// forge another channel's id, so whatever looks the channel up checks
	// its kind too.
	ChannelTypes []ChannelType
	// Choices, when set, are the only accepted values.
	Choices []string
	// Hidden options are not rendered as platform options (Discord) nor
	// listed by /help; they carry state such as a page number for buttons.
	Hidden bool
	// MaxLen is the most characters the option takes; zero is its type's
	// (see Limit).
	MaxLen int
	// IDs options are lists of drop ids ("12345,67890"): their numbers
	// are ids, never mistaken for an edit code typed in the wrong place.
	IDs bool
	// Secret options carry a credential (a drop's edit code): no reply
	// repeats them, and adapters remove, where they can, the message
	// that carried one.
	Secret bool
	// Confidential options carry what only some should know (a drop's
	// codeword, told to those who attend): adapters remove, where they
	// can, a message in a group that gives one, as for a Secret option,
	// though a reply may repeat it to the moderator.
	Confidential bool
}

// Limits of what members type, in characters, for options that set no
// MaxLen of their own. Whatever is stored is within them, on every
// database alike.
const (
	MaxTextLen   = 256
	MaxNumberLen = 20
	MaxIDLen     = 100
)

// Limit returns the most characters the option takes.
func (o *Option) Limit() int {
	switch {
	case o.MaxLen > 0:
		return o.MaxLen
	case o.Type == IntegerOption:
		return MaxNumberLen
	case o.Type == MemberOption || o.Type == RoleOption || o.Type == ChannelOption || o.Type == AttachmentOption:
		return MaxIDLen
	}
	return MaxTextLen
}

// Access says who may run a command.
type Access int

// Access levels. Platforms decide what makes a member a moderator: Discord
// permissions (Manage Server for drops, Manage Roles for gates, Manage
// Server or Manage Events for attendance), Telegram chat administrators,
// and the console user.
const (
	Anyone Access = iota
	Members
	ManageDrops
	ManageRoles
	// ManageEvents is ManageDrops, or the platform's right to manage
	// events (Caller.ManagesEvents).
	ManageEvents
)

// Handler runs a command and returns its reply. Errors are turned into words
// by Explain; a handler returns domain sentinels, not user text.
type Handler func(ctx context.Context, req *Request) (Reply, error)

// Command is one entry of the command table. Name is one word ("poaps") or a
// group and a subcommand ("drop add").
type Command struct {
	Name        string
	Description string
	Options     []Option
	Access      Access
	Handler     Handler
	// Public commands answer in the channel by default; the others are
	// personal (ephemeral on Discord, in the private chat on Telegram).
	// Adapters that must acknowledge before the handler ends (Discord's
	// deferral) decide the visibility from it.
	Public bool
	// Long commands (a Moment's upload) run for minutes: adapters
	// acknowledge them at once (Discord defers the interaction without
	// waiting), never run them in the way of other updates, and show the
	// handler's Request.Progress. Their replies are public, answered where
	// the command came from.
	Long bool
	// Timeout bounds the command instead of Options.CommandTimeout when
	// set.
	Timeout time.Duration
	// Linkable commands may be started by a deep link: a post's button
	// on Telegram, which opens the private chat. Only what a post offers
	// every member (a claim) is; never a moderator's command, nor one that
	// changes a member's wallets.
	Linkable bool
	// AnswerInGroup commands answer nothing a member of the place must
	// not see (no codeword, no member's wallet or name), so that an
	// anonymous administrator, who has no private chat, may run them and
	// read the answer in the group. The others tell them to use their own
	// account.
	AnswerInGroup bool
	// Console commands exist only on a rehearsal's console
	// (Capabilities.Rehearsal): other adapters do not list them, help
	// shows them only there, and Handle answers ErrUnknownCommand for them
	// elsewhere.
	Console bool
}

// Group returns the first word of the name, and Sub the second ("" when the
// command has no group).
func (c *Command) Group() string { g, _, _ := strings.Cut(c.Name, " "); return g }

// Sub returns the subcommand word of a grouped command, or "".
func (c *Command) Sub() string { _, s, _ := strings.Cut(c.Name, " "); return s }

// Option returns the declared option with that name, or nil.
func (c *Command) Option(name string) *Option {
	for i := range c.Options {
		if c.Options[i].Name == name {
			return &c.Options[i]
		}
	}
	return nil
}

// TakesFiles reports whether the command takes files (has an Attachment
// option): only those get the media a platform event carries.
func (c *Command) TakesFiles() bool {
	for _, o := range c.Options {
		if o.Type == AttachmentOption {
			return true
		}
	}
	return false
}

// Usage renders the command as a one-line synopsis: /poaps [wallet] [member].
func (c *Command) Usage() string {
	var b strings.Builder
	b.WriteString("/" + c.Name)
	for _, o := range c.Options {
		if o.Hidden || o.Type == AttachmentOption {
			continue
		}
		if o.Required {
			b.WriteString(" <" + o.Name + ">")
		} else {
			b.WriteString(" [" + o.Name + "]")
		}
	}
	return b.String()
}

// Caller is the member who runs a command, in the platform's terms.
type Caller struct {
	ExternalID string
	Name       string
	// ManagesDrops and ManagesRoles are the platform's verdict on the
	// member's rights in this place (see Access).
	ManagesDrops bool
	ManagesRoles bool
	// ManagesEvents is the right to manage the place's events (Discord's
	// Manage Events), which runs /attendance as ManagesDrops does.
	ManagesEvents bool
	// Anonymous is an administrator who posts as the group itself
	// (Telegram's "remain anonymous"): no account stands for them, so
	// ExternalID names the group's anonymous administrators, they run
	// only the commands that AnswerInGroup, and every answer goes to the
	// group.
	Anonymous bool
}

// Chat is the conversation within the place that a command came from.
type Chat struct {
	// Private is true in the bot's private chat (Telegram) or a DM.
	Private bool
	// Channel is the platform's id of the channel the command came from
	// (the chat itself on Telegram), where gate notices to moderators go.
	Channel string
}

// Request is a command invocation as the adapters hand it to the bot.
// Options holds the raw text of every given option, by name.
type Request struct {
	// Place is where the command runs: a Discord server (or a DM), a
	// Telegram chat, the console; its Platform is the adapter's.
	Place  core.Place
	Chat   Chat
	Caller Caller
	// Caps are what the platform can do, as its adapter declares them.
	Caps Capabilities
	// Roles are the caller's role ids in this place (Discord), or the ids
	// of the groups they belong to (Telegram), for drops that require
	// one. They live here rather than in Caller so that Caller stays
	// comparable.
	Roles   []string
	Command string
	Options map[string]string
	// Media are the files that came with the command, in the order the
	// member attached them (Discord attachment options media, media2..;
	// a Telegram message's photo, video, animation or document, an album's
	// items, or those of the message replied to; the console's media:
	// paths). Adapters fill it; the handler opens them through the opener
	// the adapter gives the Moments service (Adapter.MediaOpener).
	Media []Media
	// Key is the platform's id of the event that carried the command
	// (a Discord interaction, a Telegram message or album), the same when
	// the platform delivers it again; empty when there is none.
	Key string
	// ActFor, when the adapter sets it on a request from a private chat,
	// lets the caller act for a place of the platform from there: a
	// /claim of a drop handed out in one place they belong to claims it
	// there (Telegram's groups, whose claim messages are public).
	ActFor ActFor
	// VoiceChannel, when the adapter sets it (Discord, following voice
	// states for attendance), names a voice or stage channel the command
	// gave (from the interaction's resolved data, "" when unknown) and
	// tells who is in it now: /attendance start counts them from the
	// start. The console keeps its own (its stand-ins).
	// It refuses a channel that is not a voice or stage channel of the
	// place with a *NotVoiceChannelError, whatever the member typed or
	// forged; other errors are the platform's.
	VoiceChannel func(ctx context.Context, channelID string) (name string, current []core.VoiceState, err error)
	// ScheduledEvent, when the adapter sets it (Discord), looks up one of
	// the place's scheduled events by its id or its name, for
	// /attendance start event:. Errors: ErrNoScheduledEvent,
	// ErrScheduledEventAmbiguous, the platform's.
	ScheduledEvent func(ctx context.Context, ref string) (ScheduledEvent, error)
	// Progress, when the adapter sets it, shows an interim reply of a Long
	// command in place of the previous one (Discord edits the deferred
	// response, Telegram its reply message); the final reply replaces the
	// last. The bot calls it from the handler's goroutine, at most once
	// every ProgressInterval, and never after the handler returned.
	Progress func(Reply)
}

// Media is a file attached to a request. What the platform says about it
// (Name, Type, Size) is a claim: the Moments service reads the file's first
// bytes before trusting its type, and counts its bytes as it streams.
type Media struct {
	// Ref is the file's reference on its platform, which the adapter's
	// opener (core.MediaOpener) opens, also after a restart: a Discord
	// attachment URL, a Telegram file_id, a console path.
	Ref string
	// Name is the file name the platform gives, "" when none (a Telegram
	// photo).
	Name string
	// Type is the MIME type the platform declares, "" when none.
	Type string
	// Size is the size the platform declares in bytes, 0 when unknown.
	Size int64
	// Unavailable, when not empty, says why the platform will not hand the
	// file to the bot (Telegram's cloud Bot API serves bots files of at
	// most 20 MB); the handler refuses the request with it.
	Unavailable string
}

// ProgressInterval is the least time between two Request.Progress calls:
// both platforms limit how often one message may be edited.
const ProgressInterval = 2 * time.Second

// Text returns the option's text as given, or "" when it was not.
func (r *Request) Text(name string) string { return r.Options[name] }

// Int returns the option as an integer, with ok false when it was not given.
// A value that is not a whole number is an *OptionError.
func (r *Request) Int(name string) (n int64, ok bool, err error) {
	s, ok := r.Options[name]
	if !ok || s == "" {
		return 0, false, nil
	}
	n, err = strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, true, &OptionError{Option: name, Reason: "must be a whole number"}
	}
	return n, true, nil
}

// NotVoiceChannelError means that a channel given to count attendance
// in is not a voice or stage channel of the place (a text channel, another
// server's, none).
type NotVoiceChannelError struct {
	// ChannelID is the channel's id, safe to mention; "" when what was
	// given is not even an id.
	ChannelID string
}

func (e *NotVoiceChannelError) Error() string {
	return fmt.Sprintf("channel %q is not a voice or stage channel", e.ChannelID)
}

// OptionError says which option of a command was wrong, and why.
type OptionError struct {
	Option string
	Reason string
}

func (e *OptionError) Error() string { return fmt.Sprintf("option %s: %s", e.Option, e.Reason) }
