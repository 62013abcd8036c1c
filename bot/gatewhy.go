package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/poapbot/poapbot/core"
)

func (b *Bot) why(ctx context.Context, req *Request) (Reply, error) {
	entries, err := b.gates.Why(ctx, member(req), req.Place, core.WhyQuery{
		Target: strings.TrimSpace(req.Text("role")), Private: req.Chat.Private && req.Caps.GroupGates,
	})
	if err != nil {
		return Reply{}, err
	}
	texts := make([]string, len(entries))
	for i, e := range entries {
		texts[i] = whyEntryText(e, req.Caps)
	}
	return Reply{Text: strings.Join(texts, "\n\n"), Personal: true}, nil
}

// whyEntryText explains one gate: the rule, the member's wallets, the
// verdict now, their join request (waiting or declined) and what would
// change it, and the checks.
func whyEntryText(e core.WhyEntry, caps Capabilities) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s needs %s.\n", gateTargetText(e.Gate, caps), gateRuleText(e.Gate))
	if len(e.Wallets) == 0 {
		s.WriteString("You have no wallet linked: link one with " + codeSpan("/link <wallet>") + ", then " + codeSpan("/verify") + " it.\n")
	}
	for _, w := range e.Wallets {
		s.WriteString("• " + codeSpan(w.Wallet.Value) + ": " + whyWalletText(w) + "\n")
	}
	if e.Verdict.Qualifies {
		s.WriteString("✅ You qualify.")
	} else {
		fmt.Fprintf(&s, "❌ You don't qualify: it needs %d of the drops, your verified wallets hold %d. Missing: %s.",
			e.Verdict.Needed, len(e.Verdict.Held), gateDropsText(e.Gate.Missing(e.Verdict)))
	}
	switch {
	case e.Request != nil:
		s.WriteString(whyRequestText(e))
	case e.Declined != nil:
		s.WriteString("\n" + whyDeclinedText(e))
	case e.Granted:
		s.WriteString(" The bot gave you this.")
	}
	s.WriteString("\n")
	if e.LastCheck != nil {
		fmt.Fprintf(&s, "Last check of everyone: %s. ", when(*e.LastCheck))
	}
	fmt.Fprintf(&s, "Next: %s (and at once when you verify or unlink a wallet).", when(e.NextCheck))
	if e.Gate.Paused != "" {
		s.WriteString("\n⏸ This gate is paused until the moderators fix a permission.")
	}
	return s.String()
}

// whyWalletText says whether a wallet counts and what it holds of the
// gate's drops.
func whyWalletText(w core.WhyWallet) string {
	switch {
	case !w.Counted && w.Wallet.Kind == core.KindEmail:
		return "an e-mail, not counted (it cannot prove ownership)"
	case !w.Counted:
		return "not verified, not counted: verify it with " + codeSpan("/link "+w.Wallet.Value) + " then " + codeSpan("/verify")
	case w.Failed:
		return "verified, but the POAP service did not answer for it just now"
	case len(w.Held) == 0:
		return "verified, holds none of the drops"
	}
	return "verified, holds " + gateDropsText(w.Held)
}

// whyRequestText says that the member's join request waits, and, without
// a verified wallet, what to do before it is declined.
func whyRequestText(e core.WhyEntry) string {
	asked := when(e.Request.RequestedAt)
	if counted(e.Wallets) {
		return fmt.Sprintf(" Your join request (%s) is waiting: it is approved the moment you qualify.", asked)
	}
	return fmt.Sprintf("\n⏳ You asked to join on %s; the request is pending while you have no verified wallet. "+
		"Link a wallet that holds the missing POAPs with %s and %s it: the request is approved the moment you qualify "+
		"(it is declined %s otherwise).",
		asked, codeSpan("/link <wallet>"), codeSpan("/verify"), when(e.Request.RequestedAt.Add(core.JoinRequestTTL)))
}

// whyDeclinedText says when and why the member's join request was
// declined, and what would get them in now.
func whyDeclinedText(e core.WhyEntry) string {
	d := e.Declined
	var s strings.Builder
	fmt.Fprintf(&s, "🚫 You asked to join on %s; the request was declined on %s", when(d.RequestedAt), when(d.DeclinedAt))
	switch {
	case d.Reason == core.DeclineExpired:
		fmt.Fprintf(&s, ": no verified wallet within %d hours.", int(core.JoinRequestTTL.Hours()))
	case len(d.Missing) > 0:
		s.WriteString(" for lacking " + gateDropsText(d.Missing) + ".")
	default:
		s.WriteString(".")
	}
	if e.Verdict.Qualifies {
		s.WriteString(" You qualify now: ask to join again through " + inviteText(e.Gate) + ".")
		return s.String()
	}
	s.WriteString(" To get in, link a wallet that holds the missing POAPs with " + codeSpan("/link <wallet>") + " and " +
		codeSpan("/verify") + " it, then ask to join again through " + inviteText(e.Gate) + ".")
	return s.String()
}

// inviteText names the group's join-request invite link.
func inviteText(g core.Gate) string {
	if g.Target.InviteLink == "" {
		return "the group's invite link (its administrators share it)"
	}
	return "the group's invite link: " + g.Target.InviteLink
}

// counted reports whether any of the wallets counts for gating.
func counted(ws []core.WhyWallet) bool {
	for _, w := range ws {
		if w.Counted {
			return true
		}
	}
	return false
}

// whyNoGateText says there is nothing for /why to explain: in a Telegram
// private chat, no gated group the member is in or asked to join lately.
func whyNoGateText(req *Request) string {
	if req.Caps.GroupGates && req.Chat.Private {
		return fmt.Sprintf("You are in no gated group, and asked to join none in the last %d days, so there is nothing to explain. "+
			"Ask to join a gated group through its invite link, then send %s here.", int(core.JoinDeclineTTL.Hours()/24), codeSpan("/why"))
	}
	return "There is no gate here for that, so nothing to explain. Moderators add gates with " + codeSpan(gateAddUsage(req)) + "."
}
