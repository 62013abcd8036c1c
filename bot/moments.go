package bot

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
)

// momentTimeout bounds a /moment: five files of 100 MiB at a slow link,
// and their processing, within the 15 minutes a Discord interaction can
// still be answered.
const momentTimeout = 14 * time.Minute

// mediaOptions are /moment's attachment options on Discord.
var mediaOptions = []string{"media", "media2", "media3", "media4", "media5"}

func (b *Bot) momentCommand() *Command {
	c := &Command{
		Name:        "moment",
		Description: "Post a Moment (photos or videos) to a drop you hold",
		Access:      Members,
		Public:      true,
		Long:        true,
		Timeout:     momentTimeout,
		Options: []Option{
			{Name: "drop", Type: IntegerOption, Required: true, Description: "the drop's id"},
			{Name: "description", Type: TextOption, Required: true, MaxLen: core.MaxMomentDescription, Description: "what the Moment shows (at most 600 characters)"},
		},
		Handler: b.moment,
	}
	for i, name := range mediaOptions {
		desc := "a photo or a video"
		if i > 0 {
			desc = "another photo or video"
		}
		c.Options = append(c.Options, Option{Name: name, Type: AttachmentOption, Required: i == 0, Description: desc})
	}
	return c
}

// moment posts a Moment, showing its progress.
func (b *Bot) moment(ctx context.Context, req *Request) (Reply, error) {
	drop, ok, err := req.Int("drop")
	if err != nil {
		return Reply{}, err
	}
	if !ok {
		return Reply{}, &OptionError{Option: "drop", Reason: "is missing: give the drop's id, for example " + codeSpan("/moment 12345 Our team at the booth")}
	}
	post := core.MomentPost{
		Place:       core.Place{Platform: req.Place.Platform, ExternalID: req.Place.ExternalID, Name: req.Place.Name},
		Member:      core.Member{Platform: req.Place.Platform, ExternalID: req.Caller.ExternalID, Name: req.Caller.Name},
		Key:         req.Key,
		DropID:      drop,
		Description: strings.TrimSpace(req.Text("description")),
		Channel:     req.Chat.Channel,
	}
	for _, m := range req.Media {
		post.Media = append(post.Media, core.MediaRef{Ref: m.Ref, Name: m.Name, Type: m.Type, Size: m.Size, Unavailable: m.Unavailable})
	}
	show := newProgress(req.Progress, time.Now)
	res, err := b.moments.Post(ctx, post, func(p core.MomentProgress) { show.report(p) })
	if err != nil {
		return Reply{}, err
	}
	return momentPostedReply(res), nil
}

// momentPostedReply is the last word of a post: the Moment, where, by
// which wallet, and its files.
func momentPostedReply(res core.MomentResult) Reply {
	var s strings.Builder
	fmt.Fprintf(&s, "**Moment posted** to %s: %s\n", dropLabel(res.Record.DropID, res.DropName), codeSpan(res.Record.MomentID))
	fmt.Fprintf(&s, "Author: %s\n", codeSpan(shortAddress(res.Record.Author)))
	if d := res.Record.Description; d != "" {
		s.WriteString(Escape(d) + "\n")
	}
	var links []string
	for i, m := range res.Media {
		if m.URL != "" {
			links = append(links, fmt.Sprintf("[%s %d](%s)", mediaWord(m.Type), i+1, m.URL))
		}
	}
	if len(links) > 0 {
		s.WriteString(strings.Join(links, " · ") + "\n")
	}
	s.WriteString("See it with " + codeSpan(fmt.Sprintf("/moments %d", res.Record.DropID)) + ".")
	return Reply{Text: s.String()}
}

// MomentNoticeText words how a post that a restart interrupted ended, for
// the place it was posted in: adapters render it (core.MomentAnnouncer).
func MomentNoticeText(n core.MomentNotice) string {
	who := MemberMention(n.Record.Member)
	if n.Err == nil {
		res := momentPostedReply(core.MomentResult{Record: n.Record, Media: n.Media})
		return who + ", your Moment was finished after the bot restarted.\n" + res.Text
	}
	text, ok := momentText(&Request{Command: "moment"}, n.Err)
	if !ok {
		text = "It could not be finished. Please post it again."
	}
	return fmt.Sprintf("%s, your Moment to drop %d was interrupted by a restart of the bot. %s", who, n.Record.DropID, text)
}

// progress turns a post's steps into progress replies, at most one every
// ProgressInterval unless the step or the file changed.
type progress struct {
	show func(Reply)
	now  func() time.Time
	last time.Time
	at   core.MomentProgress
	sent bool
}

func newProgress(show func(Reply), now func() time.Time) *progress {
	return &progress{show: show, now: now}
}

// report shows p when it is due.
func (p *progress) report(at core.MomentProgress) {
	if p.show == nil {
		return
	}
	now := p.now()
	moved := !p.sent || at.Stage != p.at.Stage || at.File != p.at.File
	if !moved && now.Sub(p.last) < ProgressInterval {
		return
	}
	p.last, p.at, p.sent = now, at, true
	p.show(Reply{Text: progressText(at)})
}

// progressText words one step of a post.
func progressText(p core.MomentProgress) string {
	of := ""
	if p.Files > 1 {
		of = fmt.Sprintf(" %d of %d", p.File, p.Files)
	}
	switch p.Stage {
	case core.StageUploading:
		text := "Uploading file" + of + "…"
		if p.Size > 0 {
			text += fmt.Sprintf(" %d%% (%s of %s)", p.Sent*100/p.Size, megabytes(p.Sent), megabytes(p.Size))
		}
		return text
	case core.StageProcessing:
		return "Uploaded. POAP Moments is processing file" + of + "…"
	}
	return "Checking your Moment…"
}

// megabytes writes a size in MB with one decimal.
func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// mediaWord names a file by its type.
func mediaWord(mime string) string {
	if strings.HasPrefix(mime, "video/") {
		return "video"
	}
	return "photo"
}

// dropLabel names a drop: its name and id, or its id alone.
func dropLabel(id int64, name string) string {
	if name == "" {
		return fmt.Sprintf("drop %d", id)
	}
	return fmt.Sprintf("**%s** (drop %d)", Escape(name), id)
}

// shortAddress shortens a 0x address to its first six and last four
// characters.
func shortAddress(a string) string {
	if len(a) < 14 {
		return a
	}
	return a[:6] + "…" + a[len(a)-4:]
}
