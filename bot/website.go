package bot

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/poapbot/poapbot/core"
)

// websiteCommand is /drop website: a moderator asks POAP for a website
// claim of a drop set up here.
func (b *Bot) websiteCommand() *Command {
	return &Command{
		Name: "drop website", Description: "Ask POAP for a website claim of a drop; members then /claim and I mint to their wallet",
		Access: ManageDrops,
		Options: []Option{
			dropOption,
			{Name: "claim_name", Type: TextOption, Required: true, MaxLen: core.MaxWebsiteName,
				Description: "end of its address: letters, digits, - and _, hard to guess"},
			{Name: "count", Type: IntegerOption, Description: fmt.Sprintf("how many POAPs it may mint (default %d)", core.DefaultWebsiteCount)},
			{Name: "from", Type: TextOption, MaxLen: maxDateTime, Description: "opens at: hh:mm on the drop's first day, or a date and time, UTC (default " + core.DefaultWebsiteFrom + ")"},
			{Name: "to", Type: TextOption, MaxLen: maxDateTime, Description: "closes at: hh:mm on the drop's last day, or a date and time, UTC (default " + core.DefaultWebsiteTo + ")"},
		},
		Handler: b.dropWebsite,
	}
}

// dropWebsite requests a website claim.
func (b *Bot) dropWebsite(ctx context.Context, req *Request) (Reply, error) {
	id, err := requiredID(req, "drop")
	if err != nil {
		return Reply{}, err
	}
	count, _, err := req.Int("count")
	if err != nil {
		return Reply{}, err
	}
	r := core.WebsiteRequest{
		EventID: id, Name: strings.TrimSpace(req.Text("claim_name")), Count: int(count),
		From: strings.TrimSpace(req.Text("from")), To: strings.TrimSpace(req.Text("to")),
	}
	if count < 0 || count > core.MaxTopUp {
		return Reply{}, &OptionError{Option: "count", Reason: fmt.Sprintf("must be from 1 to %d", core.MaxTopUp)}
	}
	d, err := b.websites.RequestWebsite(ctx, member(req), req.Place, r)
	if err != nil {
		return Reply{}, err
	}
	if r.Count == 0 {
		r.Count = core.DefaultWebsiteCount
	}
	text := fmt.Sprintf("Asked POAP for the website claim %s of %s: %d POAPs, %s to %s (UTC).\n"+
		"POAP reviews every request; it takes up to 24 hours (24 to 48 for bots like me), and only one website request of a drop can wait at a time. "+
		"%s shows where it stands.\n"+
		"From now on %s mints %s through it: members who claim before it is approved are told to come back.",
		codeSpan(d.Website), dropTitle(d), r.Count, cmp.Or(r.From, core.DefaultWebsiteFrom), cmp.Or(r.To, core.DefaultWebsiteTo),
		codeSpan(fmt.Sprintf("/drop info %d", d.EventID)), codeSpan(fmt.Sprintf("/claim %d", d.EventID)), "to each member's primary wallet")
	return Reply{Personal: true, Text: text}, nil
}

// websiteText says where a drop's website claim stands.
func websiteText(d core.Drop, w core.WebsiteInfo) string {
	var s strings.Builder
	s.WriteString("Website claim " + codeSpan(w.Name) + ": ")
	st := w.Status
	switch {
	case w.StatusErr != nil && errors.Is(w.StatusErr, core.ErrNoWebsite) && w.Pending > 0:
		s.WriteString("requested, waiting for POAP's review")
		if d.WebsiteRequestedAt != nil {
			s.WriteString(" since " + when(*d.WebsiteRequestedAt))
		}
		s.WriteString(".")
	case w.StatusErr != nil && errors.Is(w.StatusErr, core.ErrNoWebsite):
		s.WriteString("POAP has no website claim of that name (its request may have been declined).")
	case w.StatusErr != nil:
		s.WriteString("POAP could not be asked about it just now.")
	case !st.Active && w.Pending > 0:
		s.WriteString("waiting for POAP's review.")
	case !st.Active:
		s.WriteString("not active (paused at POAP, or not approved).")
	default:
		s.WriteString("active")
		if !st.From.IsZero() && !st.To.IsZero() {
			s.WriteString(", from " + when(st.From) + " until " + when(st.To))
		}
		fmt.Fprintf(&s, "; %d of %d minted.", st.Claimed, st.Total)
	}
	c := w.Claims
	fmt.Fprintf(&s, "\nClaims here: %d minted · %d in the queue · %d refused.", c.Minted, c.Queued, c.Refused)
	return s.String()
}
