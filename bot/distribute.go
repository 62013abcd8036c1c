package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/poapbot/poapbot/core"
)

// maxPostMessage is the most characters of a moderator's words on a claim
// message.
const maxPostMessage = 500

func (b *Bot) distributeCommand() *Command {
	return &Command{
		Name:        "distribute",
		Description: "Post a claim message with a Claim button and the live count of links left",
		Access:      ManageDrops,
		Public:      true,
		// The answer says where the claim message went; the message is
		// for everyone.
		AnswerInGroup: true,
		Options: []Option{
			{Name: "drop", Type: IntegerOption, Description: "the drop's id (not needed when one drop is open here)"},
			{Name: "channel", Type: ChannelOption, Description: "where to post it (default: here)"},
			{Name: "message", Type: TextOption, MaxLen: maxPostMessage, Description: fmt.Sprintf("your words above the count (up to %d characters)", maxPostMessage)},
		},
		Handler: b.distribute,
	}
}

// distribute answers the moderator and hands the adapter the claim message
// to publish (Reply.Post); the adapter reports where with Posted.
func (b *Bot) distribute(ctx context.Context, req *Request) (Reply, error) {
	id, _, err := req.Int("drop")
	if err != nil {
		return Reply{}, err
	}
	if id < 0 {
		return Reply{}, &OptionError{Option: "drop", Reason: "must be a drop id, a number above 0"}
	}
	intro := strings.TrimSpace(req.Text("message"))
	dist, err := b.drops.Distribute(ctx, member(req), req.Place, id)
	if err != nil {
		return Reply{}, err
	}
	channel := channelID(req.Text("channel"))
	post := claimPost(channel, intro, dist.Drop, dist.Stock)
	text := fmt.Sprintf("Posted the claim message for %s in %s. Its count of links left follows the claims.",
		dropTitle(dist.Drop), channelText(channel))
	return Reply{Personal: true, Text: text, Post: &post}, nil
}

// claimPost renders a drop's claim message: the intro (the moderator's
// words, or a default), the count of links left, the drop's image and a
// Claim button while links are left. /distribute and the updates both use
// it, so the message looks the same after every edit.
func claimPost(channel, intro string, d core.Drop, s core.Stock) Post {
	if intro == "" {
		intro = defaultIntro(d)
	}
	p := Post{Channel: channel, Subject: core.DropSubject(d.EventID), Image: postImage(d.ImageURL)}
	if s.Available > 0 {
		p.Text = intro + "\n\n" + fmt.Sprintf("**%d** of %d links left", s.Available, s.Total)
		p.Buttons = []Button{{Label: "Claim", Command: fmt.Sprintf("/claim %d", d.EventID)}}
	} else {
		p.Text = intro + "\n\n" + "No links left: ask a moderator for a top-up"
	}
	return p
}

// defaultIntro is the intro of a claim message without the moderator's
// words.
func defaultIntro(d core.Drop) string {
	name := Escape(d.Name)
	if name == "" {
		name = fmt.Sprintf("Drop %d", d.EventID)
	}
	return "**" + name + "**\nPress Claim to get your POAP."
}

// postImage asks the image service for the medium size, which chat
// previews show well, unless the address has a query already.
func postImage(url string) string {
	if url == "" || strings.Contains(url, "?") {
		return url
	}
	return url + "?size=medium"
}

// channelID reads a channel as typed: an id, or a Discord mention <#id>.
func channelID(s string) string {
	s = strings.TrimSpace(s)
	if id, ok := strings.CutPrefix(s, "<#"); ok {
		return strings.TrimSuffix(id, ">")
	}
	return s
}

// channelText names the channel of a post: here, or a mention.
func channelText(channel string) string {
	if channel == "" {
		return "this channel"
	}
	return ChannelMention(channel)
}
