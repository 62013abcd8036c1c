package discord

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/bot"
)

// Discord's limits on messages.
const (
	maxContent       = 2000
	maxButtonLabel   = 80
	maxButtonsPerRow = 5
	maxRows          = 5
	maxEmbeds        = 10
	maxEmbedTitle    = 256
	// maxUpload is what a bot may attach to one message in a server
	// without boosts; larger uploads fail with 413.
	maxUpload = 10 << 20
)

// message is a bot reply rendered for Discord. Discord's Markdown covers
// the reply's subset (**bold**, `code`, fences, [label](url)), so the text
// goes as it is.
type message struct {
	content    string
	embeds     []*discordgo.MessageEmbed
	components []discordgo.MessageComponent
	// file is attached to the message. It is kept as data, not as a
	// reader, because a message may be sent twice (see deliver).
	file *bot.File
}

// render renders a reply: the text (cut to 2000 characters), the image and
// the pictures as embeds (see embeds), the buttons in action rows, the file
// as an attachment, or a note in the text when Discord would refuse its
// size.
func (a *Adapter) render(r bot.Reply) message {
	r.Text = bot.RenderMentions(r.Text, mention)
	file, note := attachment(r.File)
	text, cut := fit(r.Text, maxContent-utf8.RuneCountInString(note))
	if cut {
		a.log.Warn("reply too long for Discord, cut", "chars", utf8.RuneCountInString(r.Text))
	}
	if note != "" {
		a.log.Warn("file too large for Discord, not attached", "file", r.File.Name, "bytes", len(r.File.Data))
	}
	if strings.TrimSpace(text) == "" && note == "" {
		text = "Done."
	}
	return message{content: strings.TrimSpace(text + note), embeds: a.embeds(r), components: a.components(r.Buttons), file: file}
}

// embeds renders the reply's image as an embed's thumbnail, then each
// picture as an embed of its own: the picture as the embed's large image,
// the caption as its title (cut to 256 characters), the link, if any, as
// the title's link. Discord takes at most 10 embeds in a message; the
// thumbnail illustrates the text, so it keeps its place and the pictures
// beyond the limit are left out and logged (the text still names what they
// show). A picture whose address is not http or https is left out too:
// Discord would refuse the message, and the text-only retry of deliver
// would cost the reply its buttons.
func (a *Adapter) embeds(r bot.Reply) []*discordgo.MessageEmbed {
	out := []*discordgo.MessageEmbed{}
	if r.Image != "" {
		out = append(out, &discordgo.MessageEmbed{Thumbnail: &discordgo.MessageEmbedThumbnail{URL: r.Image}})
	}
	left := 0
	for _, p := range r.Pictures {
		switch {
		case !webURL(p.URL):
			if p.URL != "" {
				a.log.Warn("picture left out: not a web address", "url", p.URL)
			}
		case len(out) == maxEmbeds:
			left++
		default:
			e := &discordgo.MessageEmbed{Title: trim(strings.TrimSpace(p.Caption), maxEmbedTitle), Image: &discordgo.MessageEmbedImage{URL: p.URL}}
			if webURL(p.Link) {
				e.URL = p.Link
			}
			out = append(out, e)
		}
	}
	if left > 0 {
		a.log.Warn("pictures left out: more embeds than Discord takes in a message", "left_out", left, "embeds", len(out))
	}
	return out
}

// webURL reports whether s is an http or https address, the only ones an
// embed's image or link may have here.
func webURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Host != "" && (u.Scheme == "http" || u.Scheme == "https")
}

// mention renders a mention as Discord shows one: <@id>, the role <@&id>,
// <#id>. Messages carry allowed_mentions, so none of them pings.
func mention(m bot.Mention) string {
	switch m.Kind {
	case bot.MentionMember:
		return "<@" + m.ID + ">"
	case bot.MentionRole:
		return "the role <@&" + m.ID + ">"
	}
	return "<#" + m.ID + ">"
}

// attachment returns the file to attach, or, when it is larger than
// Discord accepts, nil and a note saying so for the text.
func attachment(f *bot.File) (*bot.File, string) {
	if f == nil || len(f.Data) <= maxUpload {
		return f, ""
	}
	return nil, fmt.Sprintf("\n\nThe file %s is %.1f MiB, more than the %d MiB Discord lets a bot attach, so it is not attached here.",
		path.Base(f.Name), float64(len(f.Data))/(1<<20), maxUpload>>20)
}

// fit cuts text to limit characters at a line break when it can, marks the
// cut with "…" and closes a code fence left open.
func fit(text string, limit int) (string, bool) {
	if utf8.RuneCountInString(text) <= limit {
		return text, false
	}
	s := string([]rune(text)[:limit-len("\n…\n```")])
	if n := strings.LastIndexByte(s, '\n'); n > len(s)/2 {
		s = s[:n]
	}
	s += "\n…"
	if strings.Count(s, "```")%2 == 1 {
		s += "\n```"
	}
	return s, true
}

// components renders buttons as action rows of at most five. Buttons
// Discord would refuse are left out and logged.
func (a *Adapter) components(bs []bot.Button) []discordgo.MessageComponent {
	rows := []discordgo.MessageComponent{}
	var row []discordgo.MessageComponent
	seen := map[string]bool{}
	for _, b := range bs {
		btn, err := button(b)
		if err == nil && btn.CustomID != "" && seen[btn.CustomID] {
			err = errors.New("same command as another button") // Discord refuses duplicate ids
		}
		if err == nil && len(rows) == maxRows {
			err = errors.New("too many buttons")
		}
		if err != nil {
			a.log.Warn("button left out", "label", b.Label, "err", err)
			continue
		}
		seen[btn.CustomID] = true
		row = append(row, btn)
		if len(row) == maxButtonsPerRow {
			rows, row = append(rows, discordgo.ActionsRow{Components: row}), nil
		}
	}
	if len(row) > 0 {
		rows = append(rows, discordgo.ActionsRow{Components: row})
	}
	return rows
}

// button renders a link button, or a command button whose custom_id
// carries its action's id (see privatePrefix).
func button(b bot.Button) (discordgo.Button, error) {
	label := trim(strings.TrimSpace(b.Label), maxButtonLabel)
	if label == "" {
		return discordgo.Button{}, errors.New("no label")
	}
	switch {
	case b.URL != "":
		return discordgo.Button{Label: label, Style: discordgo.LinkButton, URL: b.URL}, nil
	case b.Action != "":
		prefix := privatePrefix
		if b.Public {
			prefix = publicPrefix
		}
		return discordgo.Button{Label: label, Style: discordgo.SecondaryButton, CustomID: prefix + b.Action}, nil
	case b.Command != "":
		return discordgo.Button{}, errors.New("its action was not stored")
	}
	return discordgo.Button{}, errors.New("neither a link nor a command")
}

func flags(personal bool) discordgo.MessageFlags {
	if personal {
		return discordgo.MessageFlagsEphemeral
	}
	return 0
}

// noMentions keeps replies from pinging anyone, whatever names or
// mentions they quote.
func noMentions() *discordgo.MessageAllowedMentions {
	return &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
}

// files returns the attachment with a fresh reader, nil when there is
// none: with files, discordgo sends a multipart body.
func (m message) files() []*discordgo.File {
	if m.file == nil {
		return nil
	}
	return []*discordgo.File{{Name: path.Base(m.file.Name), ContentType: m.file.ContentType, Reader: bytes.NewReader(m.file.Data)}}
}

// response is the message as an interaction callback's data.
func (m message) response(personal bool) *discordgo.InteractionResponseData {
	return &discordgo.InteractionResponseData{
		Content: m.content, Embeds: m.embeds, Components: m.components, Files: m.files(),
		Flags: flags(personal), AllowedMentions: noMentions(),
	}
}

// edit is the message as an edit of the original response.
func (m message) edit() *discordgo.WebhookEdit {
	content, embeds, components := m.content, m.embeds, m.components
	return &discordgo.WebhookEdit{
		Content: &content, Embeds: &embeds, Components: &components, Files: m.files(), AllowedMentions: noMentions(),
	}
}

// followup is the message as a follow-up.
func (m message) followup(personal bool) *discordgo.WebhookParams {
	return &discordgo.WebhookParams{
		Content: m.content, Embeds: m.embeds, Components: m.components, Files: m.files(),
		Flags: flags(personal), AllowedMentions: noMentions(),
	}
}
