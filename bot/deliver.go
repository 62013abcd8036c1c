package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
)

// deliverCommand is /drop deliver: a moderator turns the verified wallets
// of a role's members (or of a Telegram group's) into a delivery of a drop.
// The first run shows a draft with a button; the button confirms it.
func (b *Bot) deliverCommand() *Command {
	return &Command{
		Name: "drop deliver", Description: "Make a delivery of a drop to the verified wallets of a role's members (on Telegram: this group's)",
		Access: ManageDrops, AnswerInGroup: true,
		Options: []Option{
			dropOption,
			{Name: "role", Type: RoleOption, Description: "whose members get it (Discord, console); on Telegram the group itself"},
			{Name: "slug", Type: TextOption, MaxLen: core.MaxSlug, Description: "the end of the delivery page's address (default: from the drop's name)"},
			{Name: "title", Type: TextOption, MaxLen: core.MaxDeliveryText, Description: "the page's title (default: the drop's name)"},
			{Name: "text", Type: TextOption, MaxLen: core.MaxDeliveryText, Description: "the page's text"},
			{Name: "confirm", Type: IntegerOption, Hidden: true, Description: "the draft to create"},
		},
		Handler: b.dropDeliver,
		// The draft asks the platform about every verified member, a
		// read each where the platform's cache does not know them.
		Timeout: deliverTimeout,
	}
}

// deliverTimeout bounds /drop deliver: thousands of verified members read
// at the platform's rate, within the 15 minutes a Discord interaction can
// still be answered.
const deliverTimeout = 10 * time.Minute

// dropDeliver builds a draft, or creates the draft the button names.
func (b *Bot) dropDeliver(ctx context.Context, req *Request) (Reply, error) {
	id, err := requiredID(req, "drop")
	if err != nil {
		return Reply{}, err
	}
	draft, confirming, err := req.Int("confirm")
	if err != nil {
		return Reply{}, err
	}
	if confirming {
		plan, err := b.deliveries.ConfirmDelivery(ctx, member(req), req.Place, id, draft)
		if err != nil {
			return Reply{}, err
		}
		return deliveryCreatedReply(req, plan), nil
	}
	target, err := deliverTarget(req)
	if err != nil {
		return Reply{}, err
	}
	plan, err := b.deliveries.DraftDelivery(ctx, member(req), req.Place, core.DeliverySpec{
		EventID: id, Target: target, Slug: req.Text("slug"), Title: req.Text("title"), Text: req.Text("text"),
	})
	if err != nil {
		return Reply{}, err
	}
	return deliveryDraftReply(req, plan, target), nil
}

// deliverTarget reads the role option as gateTarget does, with words for
// a delivery.
func deliverTarget(req *Request) (string, error) {
	role := strings.TrimSpace(req.Text("role"))
	switch {
	case req.Caps.GroupGates && role != "":
		return "", &OptionError{Option: "role", Reason: "on " + req.Place.Platform.Title() + " a delivery goes to the group itself: run " +
			codeSpan("/drop deliver <drop>") + " in the group, without a role"}
	case req.Caps.GroupGates && req.Chat.Private:
		return "", core.ErrNotGroup
	case !req.Caps.GroupGates && role == "":
		return "", &OptionError{Option: "role", Reason: "name the role whose members get it, for example " + codeSpan("role:@Attendees")}
	}
	return role, nil
}

// whom names the members a delivery lists.
func whom(req *Request, target string) string {
	switch {
	case target == "":
		return "the members of this group"
	case req.Caps.RoleMentions:
		return "the members with " + RoleMention(target)
	}
	return "the members with the role " + codeSpan(target)
}

// deliveryPlanReply is personal where a button in a personal reply runs in
// the same place (Discord's ephemeral messages, the console); on Telegram a
// personal reply lands in the private chat, where the drop is not, so the
// draft is shown in the group, to be confirmed by one of its moderators.
func deliveryPlanReply(req *Request, text string) Reply {
	return Reply{Personal: !req.Caps.PrivateReplies, Text: text}
}

// deliveryDraftReply shows the draft: how many addresses, where the page
// will be, and that the list is fixed once created.
func deliveryDraftReply(req *Request, plan core.DeliveryPlan, target string) Reply {
	d, dl := plan.Drop, plan.Delivery
	var s strings.Builder
	fmt.Fprintf(&s, "**Delivery draft** of %s to %s: **%s**, one verified wallet each (their primary wallet first).\n",
		dropTitle(d), whom(req, target), addressCount(dl.Size))
	if plan.Shared > 0 {
		fmt.Fprintf(&s, "%s left off: their wallets are listed for another member already.\n", plural(plan.Shared, "member"))
	}
	s.WriteString("Members who have not verified a wallet (" + codeSpan("/link") + ", then " + codeSpan("/verify") +
		") are not on it: ask them to verify first, then run this again for a fresh draft.\n")
	fmt.Fprintf(&s, "Page: %s · title %s.\n", plan.URL, codeSpan(dl.PageTitle))
	s.WriteString("⚠️ **The list is fixed once created**: POAP lets nobody be added or removed later. ")
	fmt.Fprintf(&s, "After that, %s mints to each listed member's address, and they can also use the page.", codeSpan(fmt.Sprintf("/claim %d", d.EventID)))
	reply := deliveryPlanReply(req, s.String())
	reply.Buttons = []Button{{Label: "Create the delivery", Command: fmt.Sprintf("/drop deliver %d confirm:%d", d.EventID, dl.ID)}}
	return reply
}

// deliveryCreatedReply gives the delivery page's address.
func deliveryCreatedReply(req *Request, plan core.DeliveryPlan) Reply {
	d, dl := plan.Drop, plan.Delivery
	lead := "✅ Delivery created"
	if plan.Again {
		lead = "This delivery was created already"
	}
	text := fmt.Sprintf("%s: %s for %s. Page: %s\n"+
		"Listed members get it with %s (minted to their listed address) or on the page. The list is fixed; %s shows how many claimed.",
		lead, dropTitle(d), addressCount(dl.Size), plan.URL, codeSpan(fmt.Sprintf("/claim %d", d.EventID)),
		codeSpan(fmt.Sprintf("/drop info %d", d.EventID)))
	reply := deliveryPlanReply(req, text)
	reply.Buttons = []Button{{Label: "Open the delivery page", URL: plan.URL}}
	return reply
}

// deliveryErrText words the delivery errors, inside a *core.DropError.
func deliveryErrText(req *Request, de *core.DropError, title, id string) (string, bool) {
	err := error(de)
	switch {
	case errors.Is(err, core.ErrNotListed):
		return "You are not on the delivery list of " + title + ". The list was fixed when the delivery was created, from the members " +
			"who had a verified wallet then, and POAP lets nobody be added since. If you think you should be on it, ask a moderator.", true
	case errors.Is(err, core.ErrNoDelivery):
		return title + " is handed out through a POAP Delivery, but none was created for it, so nothing can be claimed yet. Please tell a moderator.", true
	case errors.Is(err, core.ErrClaimInProgress):
		return "Your claim of " + title + " is being sent to POAP right now. Run " + codeSpan("/claim "+id) + " again in a minute to see it done.", true
	case errors.Is(err, core.ErrDeliveryExists):
		return title + " has a delivery already, and its list is fixed: POAP allows one list per delivery, with nobody added or removed. " +
			codeSpan("/drop info "+id) + " shows it.", true
	case errors.Is(err, core.ErrEmptyDelivery):
		return "No member there has a verified wallet, so there is nobody to deliver " + title + " to. Members link a wallet with " +
			codeSpan("/link") + " and prove it is theirs with " + codeSpan("/verify") + "; run this again after that.", true
	case errors.Is(err, core.ErrCannotListMembers):
		return "I can't read who has a role or is in a group on this platform, so I built nothing.", true
	case errors.Is(err, core.ErrRosterIncomplete):
		return "I could not check every member's roles just now, and a delivery's list can't be changed once created, so I built nothing. " +
			"Try again in a minute.", true
	case errors.Is(err, core.ErrInvalidSlug):
		return fmt.Sprintf("A delivery page address is 1 to %d letters, digits, - or _, like %s. Pick one and try again.", core.MaxSlug,
			codeSpan("devcon-attendees")), true
	case errors.Is(err, core.ErrSlugTaken):
		return "POAP has another delivery at that page address, so nothing was created. Run " + codeSpan("/drop deliver "+id) +
			" again with another " + codeSpan("slug:") + ".", true
	case errors.Is(err, core.ErrDraftStale):
		return fmt.Sprintf("That draft is out of date (older than %d minutes, or a member on it has unlinked their wallet since), so nothing was created. "+
			"Run %s again for a fresh list.", int(core.DeliveryDraftTTL.Minutes()), codeSpan("/drop deliver "+id)), true
	case errors.Is(err, core.ErrIssuerBusy) && req.Command == "drop deliver":
		return "POAP asked me to slow down, so the delivery was not created. Press the same button again in a minute.", true
	case errors.Is(err, core.ErrIssuerUnavailable) && req.Command == "drop deliver" && req.Text("confirm") != "":
		return "POAP did not answer, so the delivery may or may not have been created. Press the same " + codeSpan("Create the delivery") +
			" button again in a minute: I look for it at its page first, so it is never created twice.", true
	case errors.Is(err, core.ErrInvalidWallet) && req.Command == "drop deliver":
		return "POAP refused an address on the list, so the delivery was not created. Please tell the bot's operators.", true
	case errors.Is(err, core.ErrInvalidWallet) && de.Drop.Method == core.ClaimDelivery:
		return "POAP does not accept " + codeSpan(walletText(de.Wallet)) + ", your address on the delivery list of " + title +
			", so nothing was minted. The list is fixed; please tell a moderator.", true
	case errors.Is(err, core.ErrDraftGone):
		return "That draft was replaced by a newer one (or belongs to another drop), so nothing was created. Press the button of the latest draft.", true
	case errors.Is(err, core.ErrWrongEditCode) && req.Command == "drop deliver":
		return "POAP refused the edit code stored for drop " + codeSpan(id) + ", so no delivery was created and nothing was stored. If the drop's edit code changed, " +
			"remove the drop with " + codeSpan("/drop remove "+id) + " and add it again with " + codeSpan("/drop add "+id+" <edit_code>") + ".", true
	}
	return "", false
}

// deliveryInfoText says where a drop's delivery stands, for /drop info.
func deliveryInfoText(info core.DeliveryInfo) string {
	var s strings.Builder
	fmt.Fprintf(&s, "Delivery page: %s · %s on its list (fixed).", info.URL, addressCount(info.Delivery.Size))
	c := info.Claims
	fmt.Fprintf(&s, "\nClaims here: %d claimed · %d not yet.", c.Claimed, c.Listed+c.Claiming)
	switch {
	case info.StatusErr != nil:
		s.WriteString(" POAP could not be asked about it just now.")
	case !info.Status.Active:
		s.WriteString(" POAP has not activated it (its review may be pending): until it does, POAP refuses claims.")
	default:
		fmt.Fprintf(&s, " POAP counts %d of %d claimed, on the page too.", info.Status.Claimed, info.Status.Total)
	}
	return s.String()
}

// addressCount writes "1 address", "2 addresses".
func addressCount(n int) string {
	if n == 1 {
		return "1 address"
	}
	return fmt.Sprintf("%d addresses", n)
}
