package bot

import (
	"regexp"
	"strings"
)

// MentionKind says what a Mention names.
type MentionKind string

// The things a reply can mention.
const (
	MentionMember  MentionKind = "member"
	MentionRole    MentionKind = "role"
	MentionChannel MentionKind = "channel"
)

// Mention names a member, a role or a channel by the platform's id inside a
// reply's text, without the platform's markup: each adapter renders it as
// its platform shows one (RenderMentions). Commands put it in text with
// String, or with MemberMention, RoleMention and ChannelMention.
type Mention struct {
	Kind MentionKind
	ID   string
}

// Mentions travel in text between two characters of Unicode's private use
// area, which no platform shows and no command option takes.
const (
	mentionOpen  = "\uE000"
	mentionClose = "\uE001"
)

var mentionRE = regexp.MustCompile(mentionOpen + `(member|role|channel):([^` + mentionOpen + mentionClose + `]{1,64})` + mentionClose)

// String writes the mention for a reply's text.
func (m Mention) String() string {
	return mentionOpen + string(m.Kind) + ":" + m.ID + mentionClose
}

// MemberMention is the text of a mention of the member with that id.
func MemberMention(id string) string { return Mention{Kind: MentionMember, ID: id}.String() }

// RoleMention is the text of a mention of a required role: a Discord role,
// or on Telegram the group whose membership is required.
func RoleMention(id string) string { return Mention{Kind: MentionRole, ID: id}.String() }

// ChannelMention is the text of a mention of the channel with that id.
func ChannelMention(id string) string { return Mention{Kind: MentionChannel, ID: id}.String() }

// RenderMentions replaces every mention in text with what render makes of
// it, in the reply's Markdown subset.
func RenderMentions(text string, render func(Mention) string) string {
	if !strings.Contains(text, mentionOpen) {
		return text
	}
	return mentionRE.ReplaceAllStringFunc(text, func(s string) string {
		m := mentionRE.FindStringSubmatch(s)
		return render(Mention{Kind: MentionKind(m[1]), ID: m[2]})
	})
}

// Plain renders the mention for a platform without mentions of its own
// (Telegram's text, the console): the id as code, a role named for what it
// may be there.
func (m Mention) Plain() string {
	if m.Kind == MentionRole {
		return "the role or group " + codeSpan(m.ID)
	}
	return codeSpan(m.ID)
}
