package bot

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/poapbot/poapbot/core"
)

// GateNoticeText renders a notice of gating in the reply text's markup:
// what a join requester, a removed member or the moderators read, on a
// platform that can do caps. Adapters send it in private (Tell) or in the
// gate's channel (Announce).
func GateNoticeText(n core.GateNotice, caps Capabilities) string {
	target := gateTargetText(n.Gate, caps)
	switch n.Kind {
	case core.NoticeJoinPending:
		return fmt.Sprintf("You asked to join %s. Members get in with a verified wallet that holds %s.\n"+
			"1. Send %s here to link your wallet.\n2. Sign the message I send back and send %s.\n"+
			"Your request stays open for %d hours; I approve it the moment your wallet qualifies.",
			target, gateRuleText(n.Gate), codeSpan("/link <your 0x address or ENS name>"), codeSpan("/verify <signature>"),
			int(core.JoinRequestTTL.Hours()))
	case core.NoticeJoinApproved:
		return fmt.Sprintf("Welcome: your request to join %s is approved. Your verified wallet holds %s.", target, gateRuleText(n.Gate))
	case core.NoticeJoinDeclined:
		return fmt.Sprintf("Your request to join %s is declined: your verified wallets do not hold %s. Missing: %s.\n"+
			"Once a verified wallet holds them, ask to join again with the same link.",
			target, gateRuleText(n.Gate), gateDropsText(n.Missing))
	case core.NoticeJoinExpired:
		return fmt.Sprintf("Your request to join %s was declined: no verified wallet within %d hours. "+
			"Link and verify a wallet with %s and %s, then ask to join again with the same link.",
			target, int(core.JoinRequestTTL.Hours()), codeSpan("/link"), codeSpan("/verify"))
	case core.NoticeRemoved:
		return fmt.Sprintf("I removed you from %s: your verified wallets no longer hold %s. Missing: %s.\n"+
			"You may ask to join again once a verified wallet holds them.", target, gateRuleText(n.Gate), gateDropsText(n.Missing))
	case core.NoticeGatePaused:
		text := fmt.Sprintf("⚠️ The gate on %s is paused: nobody gains or loses it until this is fixed.", target)
		if n.Problem != nil {
			text += " " + Escape(n.Problem.Reason) + "."
			if n.Problem.Fix != "" {
				text += " Fix: " + Escape(n.Problem.Fix)
			}
		}
		return text + " Then run " + codeSpan("/gate sync") + " to resume it."
	}
	return ""
}

// gateTargetText names a gate's target: the role as a mention where the
// platform mentions roles, else by its name; the group by its name.
func gateTargetText(g core.Gate, caps Capabilities) string {
	if g.Target.Kind == core.GateGroup {
		name := g.Target.Name
		if name == "" {
			name = "the group"
		}
		return "**" + Escape(name) + "**"
	}
	if caps.RoleMentions {
		return RoleMention(g.Target.ID)
	}
	return "**" + Escape(g.Target.Name) + "**"
}

// gateRuleText says what a gate asks for: "a POAP of Drop A (drop 1)", "all
// of ...", "at least 2 of ...".
func gateRuleText(g core.Gate) string {
	drops := gateDropsText(g.Drops)
	switch {
	case len(g.Drops) == 1:
		return "a POAP of " + drops
	case g.Mode.All:
		return "POAPs of all of " + drops
	case g.Mode.AtLeast <= 1:
		return "a POAP of any of " + drops
	}
	return fmt.Sprintf("POAPs of at least %d of %s", g.Mode.AtLeast, drops)
}

// gateDropsText lists drops by name and id.
func gateDropsText(drops []core.GateDrop) string {
	parts := make([]string, len(drops))
	for i, d := range drops {
		id := codeSpan(strconv.FormatInt(d.ID, 10))
		if d.Name == "" {
			parts[i] = "drop " + id
			continue
		}
		parts[i] = "**" + Escape(d.Name) + "** (" + id + ")"
	}
	return strings.Join(parts, ", ")
}
