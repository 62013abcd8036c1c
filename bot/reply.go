package bot

import (
	"regexp"
	"strings"

	"github.com/poapbot/poapbot/core"
)

// Reply is the platform-neutral answer to a command. Text uses a small
// Markdown subset every adapter can render: **bold**, `code`, fenced code
// blocks and [label](url) links.
type Reply struct {
	Text string
	// Personal replies are ephemeral on Discord and go to the private chat
	// on Telegram.
	Personal bool
	// Image is shown with the reply when the platform can (a thumbnail).
	Image string
	// Pictures are images shown with the reply where the platform can
	// (Discord embeds, a Telegram media group), at most MaxPictures, each
	// with its caption. The text still names what they show, so nothing
	// is lost where they cannot be shown (the console).
	Pictures []Picture
	// Buttons are link buttons (URL set) or command buttons (Command set:
	// a command line the adapter runs for whoever presses it).
	Buttons []Button
	// File, when set, is a document sent with the reply (an export):
	// adapters attach it, the console saves it and prints its path.
	File *File
	// Post, when set, is a message to publish in a channel besides the
	// reply (/distribute): the adapter publishes it, then reports where
	// with Bot.Posted so that later updates (Bot.PostUpdates) can edit it.
	Post *Post
}

// Picture is an image of a reply: its address, a caption, and the page
// it links to, if any.
type Picture struct {
	URL     string
	Caption string
	Link    string
}

// MaxPictures is the most pictures one reply shows: Discord's limit of
// embeds in a message, and Telegram's of photos in a media group.
const MaxPictures = 10

// Post is a message the bot publishes in a channel and keeps up to date,
// such as a drop's claim message with the number of links left.
type Post struct {
	// Channel is the platform's channel id; empty means the channel the
	// command came from.
	Channel string
	Text    string
	Image   string
	// Buttons are as in Reply. A command button in a post runs for whoever
	// presses it, in the place the post is in; on Telegram it opens the
	// presser's private chat first (a t.me deep link), where the personal
	// answer goes.
	Buttons []Button
	// Subject says what the post shows, for its updates ("drop:42").
	Subject string
	// Summary is the attendance session whose summary the post tells, 0
	// for none: once the post is published (Posted), the summary is owed
	// no more.
	Summary int64
}

// PostRef says where a published post is.
type PostRef struct {
	Platform core.Platform
	// Place is the place's id on its platform (the Discord server, the Telegram
	// chat), Channel and Message the platform's ids of the message.
	Place   string
	Channel string
	Message string
}

// PostUpdate is new content for a published post.
type PostUpdate struct {
	Ref  PostRef
	Post Post
}

// File is a document attached to a reply.
type File struct {
	// Name is the file name to offer, without a directory.
	Name        string
	ContentType string
	Data        []byte
}

// Button is a link or a command under a reply.
type Button struct {
	Label string
	URL   string
	// Command is the line a command button runs. It stays in the bot:
	// platforms carry Action.
	Command string
	// Action is the id of the stored action the command button runs
	// (core.ButtonAction), which the bot sets before the reply leaves it:
	// adapters carry it on the platform (Telegram's callback data or deep
	// link, Discord's custom_id) and give it back to Bot.Press, never the
	// command line. Adapters leave out a command button without one.
	Action string
	// Public says the command answers in the channel: a platform that
	// acknowledges a press before its answer (Discord) takes the
	// acknowledgement's visibility from it.
	Public bool
}

// CodeBegin and CodeEnd frame a code block in PlainText, so that a member
// copying a challenge message by hand takes exactly the lines between.
const (
	CodeBegin = "----- begin exact text -----"
	CodeEnd   = "----- end -----"
)

var mdLink = regexp.MustCompile(`\[([^\]]+)\]\((https?://[^)\s]+)\)`)

// PlainText renders Markdown-subset text for a plain terminal: mentions as
// Mention.Plain says, links become "label <url>", bold marks and code-span
// fences are dropped, escaped characters are shown as they are, and the
// lines of a code block are kept exactly as they are (no indent: a
// challenge message copied from the terminal must be the exact text),
// between the lines CodeBegin and CodeEnd.
func PlainText(s string) string {
	s = RenderMentions(s, Mention.Plain)
	var out []string
	inFence := false
	for line := range strings.SplitSeq(s, "\n") {
		if IsFence(line) {
			inFence = !inFence
			out = append(out, map[bool]string{true: CodeBegin, false: CodeEnd}[inFence])
			continue
		}
		if !inFence {
			line = plainLine(line)
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// plainLine renders one line outside code blocks for PlainText.
func plainLine(line string) string {
	var b strings.Builder
	for _, seg := range SplitCode(line) {
		if seg.Code {
			b.WriteString(seg.Text)
			continue
		}
		b.WriteString(RenderText(seg.Text, func(t string) string {
			// Bold marks go, even around a code span.
			return strings.ReplaceAll(mdLink.ReplaceAllString(t, "$1 <$2>"), "**", "")
		}, func(r rune) string { return string(r) }))
	}
	return b.String()
}
