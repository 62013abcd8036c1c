package bot

import (
	"context"
	"errors"
	"time"

	"github.com/poapbot/poapbot/core"
)

// replyButtonTTL is how long a command button under a reply works (a
// page of /poaps, a delivery draft's confirmation): a reply is read within
// minutes, and a button pressed days later would show a stale page. A
// post's buttons work as long as the post is up.
const replyButtonTTL = 7 * 24 * time.Hour

// seal stores the action of every command button of the reply and of its
// post (core.ButtonService) and puts its id in Button.Action: adapters carry
// only that id on the platform, so a press runs only what the bot made. A
// button belongs to the request's place, where its line runs (a personal
// reply shown elsewhere, in a Telegram member's private chat, is pressed
// there for that place: see ButtonPlace). A reply's buttons are for the
// caller alone (for anyone in the place when the
// caller is an anonymous administrator, whom no account stands for); a
// post's are for anyone in the place. A button whose action could not be
// stored is left out, with a log line: a reply without its page buttons is
// better than none.
func (b *Bot) seal(ctx context.Context, req *Request, r Reply) Reply {
	member, place := req.Caller.ExternalID, req.Place.ExternalID
	if req.Caller.Anonymous {
		member = ""
	}
	r.Buttons = b.sealButtons(ctx, req.Place.Platform, place, member, r.Buttons, replyButtonTTL)
	if r.Post != nil {
		p := *r.Post
		p.Buttons = b.sealButtons(ctx, req.Place.Platform, req.Place.ExternalID, "", p.Buttons, 0)
		r.Post = &p
	}
	return r
}

// sealButtons stores the actions of bs's command buttons for the place and
// member (empty: anyone there), for ttl (zero: no end), and returns bs with
// their ids; link buttons pass as they are.
func (b *Bot) sealButtons(ctx context.Context, p core.Platform, place, member string, bs []Button, ttl time.Duration) []Button {
	if len(bs) == 0 {
		return bs
	}
	out := make([]Button, 0, len(bs))
	for _, btn := range bs {
		if btn.Command == "" {
			out = append(out, btn)
			continue
		}
		a, err := b.buttons.Make(ctx, core.ButtonAction{Platform: p, Place: place, Member: member, Line: btn.Command}, ttl)
		if err != nil {
			b.log.Warn("button left out: its action could not be stored", "label", btn.Label, "err", err)
			continue
		}
		cmd, _, _ := b.ParseLine(btn.Command, "")
		btn.Action, btn.Public = a.ID, cmd != nil && (cmd.Public || cmd.Long)
		out = append(out, btn)
	}
	return out
}

// Press runs the command of the button the caller of req pressed in req's
// place, whose action id the platform carried back: only an action the bot
// made for this place, and for this caller or anyone here, runs, with the
// caller's own rights. refused is true when nothing ran: the reply then says
// why (a forged, foreign or expired button), and the adapter may show it
// as the press's own answer.
func (b *Bot) Press(ctx context.Context, req *Request, id string) (reply Reply, refused bool) {
	a, err := b.buttons.Open(ctx, id, presser(req))
	if err != nil {
		return b.Refusal(req, err), true
	}
	reply, _ = b.HandleLine(ctx, req, a.Line, "")
	return reply, false
}

// ButtonPlace returns the place the action id runs in, for an adapter
// whose personal replies are shown elsewhere (Telegram's private chat): a
// press there of a group's button is run for the group, once the adapter
// checked that the member belongs to it; Press still checks the press. It
// returns core.ErrButtonUnknown, core.ErrButtonExpired, or the store's
// error.
func (b *Bot) ButtonPlace(ctx context.Context, platform core.Platform, id string) (string, error) {
	a, err := b.buttons.Peek(ctx, id)
	if err != nil {
		return "", err
	}
	if a.Platform != platform {
		return "", core.ErrButtonUnknown
	}
	return a.Place, nil
}

// LinkPlace returns the place of the deep link's action id (the group of a
// Telegram claim message), so that the adapter can check that the member
// belongs there before FollowLink. Only a post's button whose command a
// link may start (Command.Linkable) has one: any other id is
// core.ErrButtonUnknown. It returns core.ErrButtonExpired, or the store's
// error.
func (b *Bot) LinkPlace(ctx context.Context, platform core.Platform, id string) (string, error) {
	a, err := b.buttons.Peek(ctx, id)
	if err != nil {
		return "", err
	}
	if a.Platform != platform || !b.linkable(a) {
		return "", core.ErrButtonUnknown
	}
	return a.Place, nil
}

// FollowLink runs the command of the deep link's action id for the caller
// of req, acting for req's place (the adapter checked that they belong
// there): only a post's button whose command a link may start runs, so that
// a crafted link can never run a moderator's command nor change a member's
// wallets. refused is as in Press.
func (b *Bot) FollowLink(ctx context.Context, req *Request, id string) (reply Reply, refused bool) {
	a, err := b.buttons.Open(ctx, id, presser(req))
	if err == nil && !b.linkable(a) {
		err = core.ErrButtonUnknown
	}
	if err != nil {
		return b.Refusal(req, err), true
	}
	reply, _ = b.HandleLine(ctx, req, a.Line, "")
	reply.Post = nil // a link runs a member's command; it publishes nothing
	return reply, false
}

// linkable reports whether a deep link may start the action: a post's
// (for anyone in the place) whose command is Linkable.
func (b *Bot) linkable(a core.ButtonAction) bool {
	cmd, _, err := b.ParseLine(a.Line, "")
	return err == nil && a.Member == "" && cmd.Linkable
}

// Refusal is the answer to a press or a deep link that runs nothing because
// of err: a button error (core.ErrButtonUnknown, ...) or the store's.
func (b *Bot) Refusal(req *Request, err error) Reply {
	req.Command = pressCommand
	return b.finish(req, Reply{}, err)
}

// pressCommand names a refused press in the log (metrics count it among
// the unknown commands).
const pressCommand = "button"

// ErrOldButton means a button made before the bot stored its buttons'
// actions: it carries a command line, which the bot no longer runs.
var ErrOldButton = errors.New("button from before actions were stored")

// presser is who pressed, and where, in the core's terms.
func presser(req *Request) core.Presser {
	return core.Presser{Platform: req.Place.Platform, Place: req.Place.ExternalID, Member: req.Caller.ExternalID}
}

// buttonText words the refusals of a press or a link.
func buttonText(err error) (string, bool) {
	switch {
	case errors.Is(err, core.ErrButtonNotYours):
		return "This button belongs to the member who ran the command. Run it yourself to get your own.", true
	case errors.Is(err, core.ErrButtonExpired):
		return "This button has expired. Run the command again for a fresh one.", true
	case errors.Is(err, ErrOldButton):
		return "This button is from an older version of me and no longer works. Run the command again for a fresh one.", true
	case errors.Is(err, core.ErrButtonUnknown):
		return "I did not make this button or link for this place, so I did nothing. " +
			"Use the buttons under my own messages, or type the command; /help lists them.", true
	}
	return "", false
}
