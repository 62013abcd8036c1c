package bot

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/poapbot/poapbot/core"
)

func (b *Bot) momentsCommand() *Command {
	return &Command{
		Name:        "moments",
		Description: "Recent Moments: of this place's drops, of one drop, or of a member",
		Access:      Members,
		Public:      true,
		Options: []Option{
			{Name: "drop", Type: IntegerOption, Description: "a drop's id (default: the drops of this place)"},
			{Name: "member", Type: MemberOption, Description: "a member whose Moments to show"},
			{Name: "page", Type: IntegerOption, Hidden: true, Description: "page number"},
		},
		Handler: b.momentList,
	}
}

func (b *Bot) setupMomentsCommand() *Command {
	return &Command{
		Name:          "setup moments",
		Description:   "Turn Moments from the chat on or off here",
		Access:        ManageDrops,
		AnswerInGroup: true,
		Public:        true,
		Options: []Option{
			{Name: "state", Type: TextOption, Required: true, Choices: []string{"on", "off"}, Description: "on or off"},
		},
		Handler: b.setupMoments,
	}
}

// setupMoments turns Moments on or off in the place.
func (b *Bot) setupMoments(ctx context.Context, req *Request) (Reply, error) {
	state := strings.ToLower(strings.TrimSpace(req.Text("state")))
	if state != "on" && state != "off" {
		return Reply{}, &OptionError{Option: "state", Reason: "must be on or off"}
	}
	place := core.Place{Platform: req.Place.Platform, ExternalID: req.Place.ExternalID, Name: req.Place.Name}
	if err := b.moments.SetMomentsOff(ctx, place, state == "off"); err != nil {
		return Reply{}, err
	}
	if state == "off" {
		return Reply{Text: "Moments are **off** here: " + codeSpan("/moment") + " is refused until a moderator runs " + codeSpan("/setup moments on") + "."}, nil
	}
	return Reply{Text: "Moments are **on** here: members holding a drop can post photos and videos to it with " + codeSpan("/moment") + "."}, nil
}

// momentList shows a page of recent Moments.
func (b *Bot) momentList(ctx context.Context, req *Request) (Reply, error) {
	page, _, err := req.Int("page")
	if err != nil {
		return Reply{}, err
	}
	page = max(page, 1)
	drops, member, err := b.momentScope(ctx, req)
	if err != nil {
		return Reply{}, err
	}
	res, err := b.moments.List(ctx, drops, member, int(page-1))
	if err != nil {
		return Reply{}, err
	}
	return momentPage(req, res, int(page)), nil
}

// momentScope reads whose Moments to show: a drop, a member (a mention,
// an id, or @name where members are named), or the drops registered in
// this place; none registered means every drop.
func (b *Bot) momentScope(ctx context.Context, req *Request) ([]int64, *core.Member, error) {
	who := strings.TrimSpace(req.Text("member"))
	drop := strings.TrimSpace(req.Text("drop"))
	if _, err := strconv.ParseInt(drop, 10, 64); drop != "" && err != nil && who == "" {
		// Typed: "/moments @alice" binds the word to the first option.
		who, drop = drop, ""
	}
	if who != "" {
		m := &core.Member{Platform: req.Place.Platform}
		if name, ok := strings.CutPrefix(who, "@"); ok {
			m.Name = name
		} else {
			m.ExternalID = strings.Trim(who, "<@!>")
		}
		return nil, m, nil
	}
	if drop != "" {
		id, _, err := req.Int("drop")
		if err != nil || id <= 0 {
			return nil, nil, &OptionError{Option: "drop", Reason: "must be a drop's id, a whole number"}
		}
		return []int64{id}, nil, nil
	}
	place := core.Place{Platform: req.Place.Platform, ExternalID: req.Place.ExternalID, Name: req.Place.Name}
	listed, err := b.drops.ListDrops(ctx, place)
	if err != nil {
		return nil, nil, err
	}
	var ids []int64
	for _, d := range listed {
		ids = append(ids, d.Drop.EventID)
	}
	return ids, nil, nil
}

// momentPage renders a page of Moments with their first picture each.
func momentPage(req *Request, p core.MomentPage, page int) Reply {
	if len(p.Moments) == 0 {
		if page > 1 {
			return Reply{Text: fmt.Sprintf("There is no page %d: that is all the Moments.", page)}
		}
		return Reply{Text: "No Moments yet. Holders of a drop post one with " + codeSpan("/moment <drop> <description>") + " and a photo or a video."}
	}
	var s strings.Builder
	s.WriteString("**Recent Moments**, newest first")
	if page > 1 {
		fmt.Fprintf(&s, " (page %d)", page)
	}
	s.WriteString("\n")
	first := (page - 1) * core.MomentsPageSize
	var pics []Picture
	for i, m := range p.Moments {
		fmt.Fprintf(&s, "%d. %s\n", first+i+1, momentLine(m))
		if pic, ok := momentPicture(m); ok && len(pics) < MaxPictures {
			pics = append(pics, pic)
		}
	}
	reply := Reply{Text: strings.TrimRight(s.String(), "\n"), Pictures: pics}
	if page > 1 {
		reply.Buttons = append(reply.Buttons, Button{Label: "Previous", Command: momentsPageCommand(req, page-1)})
	}
	if p.More {
		reply.Buttons = append(reply.Buttons, Button{Label: "Next", Command: momentsPageCommand(req, page+1)})
	}
	return reply
}

// momentLine renders one Moment: description, author, date, drops, files.
func momentLine(m core.MomentView) string {
	desc := strings.TrimSpace(m.Description)
	if desc == "" {
		desc = "(no description)"
	}
	desc = Escape(Shorten(strings.Join(strings.Fields(desc), " "), 120))
	parts := []string{desc, "by " + codeSpan(shortAddress(m.Author)), m.CreatedOn.UTC().Format("2006-01-02 15:04 UTC")}
	for _, d := range m.DropIDs {
		parts = append(parts, "drop #"+strconv.FormatInt(d, 10))
	}
	for i, f := range m.Media {
		if f.URL != "" {
			parts = append(parts, fmt.Sprintf("[%s %d](%s)", mediaWord(f.Type), i+1, f.URL))
		}
	}
	return strings.Join(parts, " · ")
}

// momentPicture is the Moment's first image, captioned: videos are linked
// from the text, not shown as pictures.
func momentPicture(m core.MomentView) (Picture, bool) {
	for _, f := range m.Media {
		if f.URL != "" && !strings.HasPrefix(f.Type, "video/") {
			caption := Shorten(strings.TrimSpace(m.Description), 200)
			if caption == "" {
				caption = "Moment by " + shortAddress(m.Author)
			}
			return Picture{URL: f.URL, Caption: caption}, true
		}
	}
	return Picture{}, false
}

// momentsPageCommand is the command a paging button runs.
func momentsPageCommand(req *Request, page int) string {
	line := "/moments"
	if d := strings.TrimSpace(req.Text("drop")); d != "" {
		line += " drop:" + d
	}
	if m := strings.TrimSpace(req.Text("member")); m != "" {
		line += " member:" + m
	}
	return fmt.Sprintf("%s page:%d", line, page)
}

// momentText words the refusals and failures of /moment and /moments.
// Each says what to do instead; none names a wallet, since the answer is
// public.
func momentText(req *Request, err error) (string, bool) {
	if req.Command == "moments" {
		switch {
		case errors.Is(err, core.ErrNotLinked):
			return "That member has no wallet linked, so they have no Moments to show.", true
		case errors.Is(err, core.ErrNotVerified):
			return "That member has no verified wallet, so no Moments of theirs can be found.", true
		}
	}
	if req.Command == "moment" && errors.Is(err, context.Canceled) {
		return "The bot is restarting, so your Moment was not posted and nothing was uploaded. Please post it again in a minute.", true
	}
	if req.Command == "moment" && errors.Is(err, core.ErrNotLinked) {
		return "A Moment's author is a wallet you proved is yours, and you have none linked yet. " +
			"Run " + codeSpan("/link <wallet>") + " with the wallet that holds the drop and sign the message it gives you.", true
	}
	var (
		me  *core.MomentError
		fe  *core.MediaError
		he  *core.HolderError
		re  *core.MomentRateError
		rep *core.MomentRepeatError
	)
	switch {
	case errors.As(err, &me):
		return momentErrorText(me), true
	case errors.As(err, &fe):
		return mediaErrorText(fe), true
	case errors.As(err, &he):
		return fmt.Sprintf("None of your verified wallets (%d checked) holds a POAP of drop %d, so you can't post a Moment to it. "+
			"Only holders can. If it is in another wallet, link and verify that one with %s.", len(he.Checked), he.DropID, codeSpan("/link")), true
	case errors.Is(err, core.ErrNotVerified):
		return "Your linked wallet isn't verified yet, and a Moment's author must be a wallet you proved is yours. " +
			"Run " + codeSpan("/link <wallet>") + " and sign the message it gives you.", true
	case errors.As(err, &re):
		return fmt.Sprintf("You posted %d Moments in the last hour, the most allowed. Please post again later.", re.Limit), true
	case errors.As(err, &rep):
		return repeatText(rep), true
	case errors.Is(err, core.ErrMomentDelayed):
		return "Your Moment is not finished yet: POAP Moments did not answer in time, or the bot was stopping. Nothing is lost: " +
			"it will be finished within a few minutes, and I'll say so here. Please don't post it again meanwhile.", true
	case errors.Is(err, core.ErrMomentsOff):
		return "Moments are turned off here by the moderators.", true
	case errors.Is(err, core.ErrMediaInvalid):
		return "POAP Moments refused a file: its content is not what its type says, or it could not be processed. " +
			"Nothing was posted. Export it again as a standard photo or video and post again.", true
	case errors.Is(err, core.ErrMediaTimeout):
		return "POAP Moments is still processing your files after a long wait, so nothing was posted. " +
			"Please post again in a few minutes.", true
	case errors.Is(err, core.ErrUnknownEvent):
		return "There is no drop with that id at POAP. Check the number and try again.", true
	}
	return "", false
}

// momentErrorText words a broken rule of the post itself.
func momentErrorText(e *core.MomentError) string {
	switch e.Problem {
	case core.MomentNoMedia:
		return "Attach a photo or a video to post a Moment: on Discord the " + codeSpan("media") + " option; on Telegram send the photo with the caption " +
			codeSpan("/moment <drop> <description>") + ", or reply to it with that command."
	case core.MomentTooManyMedia:
		return fmt.Sprintf("A Moment carries at most %d files; this one has %d. Post the rest as another Moment.", e.Limit, e.Got)
	case core.MomentDescriptionTooLong:
		return fmt.Sprintf("The description has %d characters; a Moment takes at most %d. Shorten it and post again.", e.Got, e.Limit)
	}
	return "Give the drop's id first: " + codeSpan("/moment 12345 Our team at the booth") + "."
}

// mediaErrorText words a refused file.
func mediaErrorText(e *core.MediaError) string {
	name := fmt.Sprintf("File %d", e.Index+1)
	if e.Name != "" {
		name += " (" + codeSpan(e.Name) + ")"
	}
	accepted := strings.Join(core.MomentTypes, ", ")
	switch e.Problem {
	case core.MediaUnsupported:
		return name + " is not a photo or a video POAP Moments accepts (" + accepted + "), whatever its name says. Nothing was uploaded."
	case core.MediaMismatch:
		return fmt.Sprintf("%s says it is %s but its content is %s. Nothing was uploaded: send it again as what it is.", name, codeSpan(e.Declared), codeSpan(e.Sniffed))
	case core.MediaTooLarge:
		return fmt.Sprintf("%s is %s; the most a Moment's file may be here is %s. Nothing was uploaded.", name, megabytes(e.Size), megabytes(e.Limit))
	case core.MediaUnavailable:
		return name + ": " + e.Reason + " Nothing was uploaded."
	case core.MediaEmpty:
		return name + " is empty. Nothing was uploaded."
	case core.MediaTwice:
		return fmt.Sprintf("%s is the same as file %d: attach each photo or video once.", name, e.Other+1)
	case core.MediaChanged:
		return name + " changed while it was uploading, so nothing was posted. Please post it again."
	}
	if errors.Is(e, core.ErrMediaNotFile) {
		return name + " is not a file (a folder, a device, a named pipe or a socket), so nothing was uploaded. Give the path of a photo or a video."
	}
	if errors.Is(e, core.ErrMediaTooLargeToFetch) {
		return name + " is larger than the chat lets bots download (Telegram's cloud Bot API: 20 MB; a self-hosted Bot API server lifts that). Nothing was uploaded."
	}
	if errors.Is(e, core.ErrMediaGone) {
		return name + " is no longer available from the chat (the message was deleted?). Post it again."
	}
	return name + " could not be read from the chat right now. Please post it again in a minute."
}

// repeatText points at the post this one repeats.
func repeatText(e *core.MomentRepeatError) string {
	what := "This was posted already"
	if e.File >= 0 {
		what = fmt.Sprintf("File %d was posted by you to this drop already", e.File+1)
	}
	switch e.First.State {
	case core.MomentPosted:
		return fmt.Sprintf("%s: it is Moment %s. No second Moment was made; see it with %s.", what, codeSpan(e.First.MomentID), codeSpan(fmt.Sprintf("/moments %d", e.First.DropID)))
	case core.MomentFailed:
		return what + ", and that post failed, as its reply said. Send the files again in a new message to try once more."
	}
	return what + " and is still being uploaded. No second Moment is made; its progress shows in the first reply."
}
