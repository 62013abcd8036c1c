package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/poapbot/poapbot/core"
)

func (b *Bot) claimCommand() *Command {
	return &Command{
		Name:        "claim",
		Description: "Get your POAP: your own mint link, or a mint straight to your wallet",
		Access:      Members,
		// A group's claim message opens the private chat with a deep link
		// that claims the drop.
		Linkable: true,
		Options: []Option{
			{Name: "drop", Type: IntegerOption, Description: "the drop's id (not needed when one drop is open here)"},
			{Name: "codeword", Type: TextOption, MaxLen: MaxCodeword, Description: "the drop's codeword, when it has one"},
		},
		Handler: b.claim,
	}
}

// claim gives the caller their POAP of a drop.
func (b *Bot) claim(ctx context.Context, req *Request) (Reply, error) {
	id, _, err := req.Int("drop")
	if err != nil {
		return Reply{}, err
	}
	if id < 0 {
		return Reply{}, &OptionError{Option: "drop", Reason: "must be a drop id, a number above 0"}
	}
	opts := core.ClaimOptions{EventID: id, Codeword: req.Text("codeword"), MemberRoles: req.Roles}
	res, err := b.drops.Claim(ctx, member(req), req.Place, opts)
	if err != nil {
		return Reply{}, err
	}
	return claimReply(res), nil
}

// claimReply words a claim's result: the link as a button and as text, the
// mint, the pending mint and what happens next, or the place in the website
// claim's queue.
func claimReply(res core.ClaimResult) Reply {
	d := res.Drop
	title := dropTitle(d)
	wallet := codeSpan(walletText(res.Wallet))
	again := codeSpan(fmt.Sprintf("/claim %d", d.EventID))
	reply := Reply{Personal: true, Image: d.ImageURL}
	switch res.Outcome {
	case core.ResultMinted, core.ResultWebsiteMinted:
		tx := ""
		if res.Outcome == core.ResultMinted {
			tx = txText(res.MintLink)
		}
		if res.Again {
			reply.Text = fmt.Sprintf("You have it already: %s was minted to %s%s.", title, wallet, tx)
		} else {
			reply.Text = fmt.Sprintf("Minted %s to %s%s. It shows in %s once the transaction is through.", title, wallet, tx, codeSpan("/poaps"))
		}
	case core.ResultMintPending:
		reply.Text = fmt.Sprintf("Pending: %s is being minted to %s, but POAP has not confirmed it yet. "+
			"I check it before anything else happens, so it is never minted twice. Run %s again in a few minutes to see how it went.",
			title, wallet, again)
	case core.ResultWebsiteQueued:
		ahead := "You are next"
		if res.Ahead > 0 {
			ahead = plural(res.Ahead, "claim") + " ahead of you"
		}
		reply.Text = fmt.Sprintf("You are in the queue for %s: %s. POAP lets bots mint only so fast, so mints go out one after another; "+
			"yours goes to %s and is never sent twice. Run %s again in a minute to see it done.", title, ahead, wallet, again)
	case core.ResultDeliveryClaimed:
		if res.Again {
			reply.Text = fmt.Sprintf("You have it already: %s was claimed for %s, your address on its delivery list.", title, wallet)
		} else {
			reply.Text = fmt.Sprintf("Claimed %s for %s, your address on its delivery list: POAP is minting it, and it shows in %s in a few minutes.",
				title, wallet, codeSpan("/poaps"))
		}
	case core.ResultDeliveryPending:
		reply.Text = fmt.Sprintf("Pending: your claim of %s for %s may have reached POAP, but POAP has not confirmed it. "+
			"I check your address before anything else is sent, so it is never claimed twice. Run %s again in a minute to see how it went.",
			title, wallet, again)
	default:
		var s strings.Builder
		if res.Again {
			fmt.Fprintf(&s, "You claimed %s before; here is your mint link again:\n", title)
		} else {
			fmt.Fprintf(&s, "Here is your mint link for %s:\n", title)
		}
		s.WriteString(res.URL + "\n")
		s.WriteString("Open it and give your wallet, ENS name or e-mail to mint your POAP. The link is yours alone: don't share it.")
		reply.Text = s.String()
		reply.Buttons = []Button{{Label: "Mint your POAP", URL: res.URL}}
	}
	return reply
}

// txText names the mint's transaction, when known.
func txText(l core.MintLink) string {
	if l.TransactionID == "" {
		return ""
	}
	return " (transaction " + codeSpan(l.TransactionID) + ")"
}

// walletText is how a member reads a wallet value: addresses in their
// EIP-55 form, names and e-mails as they are.
func walletText(v string) string {
	if len(v) == 42 && strings.HasPrefix(v, "0x") {
		return core.ChecksumAddress(v)
	}
	return v
}

// DropPlaces lists the places of the platform that hand out the drop
// eventID and have not removed it, for an adapter that must find where a
// member may claim it (Telegram's private chat). See
// core.DropService.DropPlaces for its errors.
func (b *Bot) DropPlaces(ctx context.Context, platform core.Platform, eventID int64) ([]core.Place, error) {
	ps, err := b.drops.DropPlaces(ctx, platform, eventID)
	return cleanPlaces(ps), err
}
