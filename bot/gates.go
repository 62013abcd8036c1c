package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
)

// maxNamesShown is how many members /gate check and /gate sync name per
// list; the others are counted.
const maxNamesShown = 20

// gateRoleOption is the role a gate gives: a Discord role, a console role's
// name; on Telegram the gate is the group the command runs in.
var gateRoleOption = Option{Name: "role", Type: RoleOption, Description: "the role (Discord, console); on Telegram the group itself"}

func (b *Bot) gateCommands() []*Command {
	return []*Command{
		{
			Name: "gate add", Description: "Give a role (or this Telegram group) to the members whose verified wallets hold POAPs",
			Access: ManageRoles, Public: true, AnswerInGroup: true,
			Options: []Option{
				{Name: "drops", Type: TextOption, Required: true, MaxLen: 300, IDs: true, Description: "drop ids, comma separated: 12345,67890"},
				{Name: "mode", Type: TextOption, MaxLen: 20, Description: "any (default), all, or atleast:N"},
				gateRoleOption,
			},
			Handler: b.gateAdd,
		},
		{Name: "gate list", Description: "The gates here, with their state", Access: ManageRoles, AnswerInGroup: true, Handler: b.gateList},
		{Name: "gate remove", Description: "Remove a gate (what it gave stays)", Access: ManageRoles, AnswerInGroup: true,
			Options: []Option{gateRoleOption}, Handler: b.gateRemove},
		{Name: "gate check", Description: "Dry run: who would gain and who would lose, changing nothing", Access: ManageRoles,
			Options: []Option{gateRoleOption}, Handler: b.gateCheck},
		{Name: "gate sync", Description: "Apply the gates now instead of waiting for the schedule", Access: ManageRoles, Handler: b.gateSync},
		{Name: "why", Description: "Which gates apply to you, which wallets count, what is missing", Access: Members,
			Options: []Option{gateRoleOption}, Handler: b.why},
		{Name: "setup check", Description: "Preflight: the bot's permissions here, and the POAP service's credentials", Access: ManageRoles, AnswerInGroup: true,
			Handler: b.setupCheck},
	}
}

// gateTarget reads the role option: required where gates are roles
// (Discord, the console), refused where the gate is the group (Telegram).
func gateTarget(req *Request) (string, error) {
	role := strings.TrimSpace(req.Text("role"))
	switch {
	case req.Caps.GroupGates:
		if role != "" {
			return "", &OptionError{Option: "role", Reason: "on " + req.Place.Platform.Title() + " a gate is the group itself: run " +
				codeSpan("/gate add <drops> [mode]") + " in the group, without a role"}
		}
		if req.Chat.Private {
			return "", core.ErrNotGroup
		}
	default:
		if role == "" {
			return "", &OptionError{Option: "role", Reason: "name the role to give, for example " + codeSpan("role:@Holders")}
		}
	}
	return role, nil
}

func (b *Bot) gateAdd(ctx context.Context, req *Request) (Reply, error) {
	target, err := gateTarget(req)
	if err != nil {
		return Reply{}, err
	}
	g, err := b.gates.AddGate(ctx, member(req), req.Place, core.GateSpec{
		Target: target, Drops: req.Text("drops"), Mode: req.Text("mode"), Channel: req.Chat.Channel,
	})
	if err != nil {
		return Reply{}, err
	}
	var s strings.Builder
	fmt.Fprintf(&s, "✅ Gate added: %s for members whose verified wallets hold %s.\n", gateTargetText(g, req.Caps), gateRuleText(g))
	fmt.Fprintf(&s, "Members are checked now, when they verify a wallet or join, and every %s. ", every(b.gates.Interval()))
	s.WriteString("Only verified wallets count; the bot only ever takes back what it gave.")
	if g.Target.InviteLink != "" {
		fmt.Fprintf(&s, "\n\nShare this join-request link: %s\nRequests through it are approved for members who qualify; "+
			"members who joined before the gate or by other links are never touched.", g.Target.InviteLink)
	}
	return Reply{Text: s.String()}, nil
}

func (b *Bot) gateList(ctx context.Context, req *Request) (Reply, error) {
	gs, err := b.gates.Gates(ctx, req.Place)
	if err != nil {
		return Reply{}, err
	}
	if len(gs) == 0 {
		return Reply{Text: "No gates here yet. Add one with " + codeSpan(gateAddUsage(req)) + ".", Personal: true}, nil
	}
	var s strings.Builder
	s.WriteString("**Gates here**\n")
	for i, g := range gs {
		fmt.Fprintf(&s, "%d. %s: %s (mode %s).", i+1, gateTargetText(g, req.Caps), gateRuleText(g), codeSpan(g.Mode.String()))
		if g.SyncedAt != nil {
			fmt.Fprintf(&s, " Last sync %s.", when(*g.SyncedAt))
		}
		if g.Paused != "" {
			fmt.Fprintf(&s, "\n   ⏸ **Paused** since %s: %s. Fix it, then run %s.", when(ptrValue(g.PausedAt)), Escape(g.Paused), codeSpan("/gate sync"))
		}
		if g.Target.InviteLink != "" {
			fmt.Fprintf(&s, "\n   Join-request link: %s", g.Target.InviteLink)
		}
		s.WriteString("\n")
	}
	return Reply{Text: strings.TrimRight(s.String(), "\n"), Personal: true}, nil
}

func (b *Bot) gateRemove(ctx context.Context, req *Request) (Reply, error) {
	g, err := b.gates.RemoveGate(ctx, member(req), req.Place, strings.TrimSpace(req.Text("role")))
	if err != nil {
		return Reply{}, err
	}
	text := fmt.Sprintf("Removed the gate on %s. What it gave stays with the members, and the bot no longer checks it.", gateTargetText(g, req.Caps))
	if g.Target.InviteLink != "" {
		text += " Requests still waiting on its join-request link are left to the group's administrators; " +
			"revoke the link in the group's settings if it should no longer be used."
	}
	return Reply{Text: text, Personal: true}, nil
}

func (b *Bot) gateCheck(ctx context.Context, req *Request) (Reply, error) {
	r, err := b.gates.CheckGates(ctx, req.Place, strings.TrimSpace(req.Text("role")))
	if err != nil {
		return Reply{}, err
	}
	var s strings.Builder
	s.WriteString("**Dry run**: nothing was changed.\n")
	for _, res := range r.Results {
		fmt.Fprintf(&s, "\n%s (%s):\n", gateTargetText(res.Gate, req.Caps), gateRuleText(res.Gate))
		if res.Paused {
			s.WriteString("⏸ paused: " + Escape(res.Gate.Paused) + "\n")
		}
		s.WriteString("Would gain: " + membersText(res.Gained) + "\n")
		s.WriteString("Would lose: " + membersText(res.Lost) + "\n")
		if len(res.Declined) > 0 {
			s.WriteString("Join requests to decline: " + membersText(res.Declined) + "\n")
		}
		s.WriteString(count(res.Checked, "member") + " checked")
		if res.Failed > 0 {
			fmt.Fprintf(&s, ", %d could not be read (left as they are)", res.Failed)
		}
		s.WriteString(".\n")
	}
	return Reply{Text: strings.TrimRight(s.String(), "\n"), Personal: true}, nil
}

func (b *Bot) gateSync(ctx context.Context, req *Request) (Reply, error) {
	r, err := b.gates.SyncPlace(ctx, req.Place)
	if err != nil {
		return Reply{}, err
	}
	var s strings.Builder
	s.WriteString("**Synced now.**\n")
	for _, res := range r.Results {
		fmt.Fprintf(&s, "\n%s: ", gateTargetText(res.Gate, req.Caps))
		if res.Paused {
			fmt.Fprintf(&s, "⏸ still paused: %s. Fix it, then run %s again.\n", Escape(res.Gate.Paused), codeSpan("/gate sync"))
			continue
		}
		fmt.Fprintf(&s, "%d gained, %d lost", len(res.Gained), len(res.Lost))
		if len(res.Declined) > 0 {
			fmt.Fprintf(&s, ", %d join requests declined", len(res.Declined))
		}
		s.WriteString("; " + count(res.Checked, "member") + " checked")
		if res.Failed > 0 {
			fmt.Fprintf(&s, ", %d could not be read (left as they are)", res.Failed)
		}
		s.WriteString(".\n")
		if len(res.Gained) > 0 {
			s.WriteString("Gained: " + membersText(res.Gained) + "\n")
		}
		if len(res.Lost) > 0 {
			s.WriteString("Lost: " + membersText(res.Lost) + "\n")
		}
	}
	if r.IssuerCalls > 0 {
		fmt.Fprintf(&s, "\n%d calls to the POAP service (%s).", r.IssuerCalls, planText(r.Plan))
	}
	return Reply{Text: strings.TrimRight(s.String(), "\n"), Personal: true}, nil
}

func (b *Bot) setupCheck(ctx context.Context, req *Request) (Reply, error) {
	lines := append(b.gates.SetupCheck(ctx, req.Place), b.wallets.CheckChains(ctx)...)
	var s strings.Builder
	s.WriteString("**Setup check**\n")
	for _, l := range lines {
		if l.OK {
			s.WriteString("✅ " + Escape(l.Check) + "\n")
			continue
		}
		s.WriteString("❌ " + Escape(l.Check))
		if l.Fix != "" {
			s.WriteString(": " + Escape(l.Fix))
		}
		s.WriteString("\n")
	}
	return Reply{Text: strings.TrimRight(s.String(), "\n"), Personal: true}, nil
}

// membersText names up to maxNamesShown members and counts the others.
func membersText(ms []core.GateMember) string {
	if len(ms) == 0 {
		return "nobody"
	}
	parts := make([]string, 0, min(len(ms), maxNamesShown))
	for _, m := range ms[:min(len(ms), maxNamesShown)] {
		parts = append(parts, MemberMention(m.Member))
	}
	text := fmt.Sprintf("%d: %s", len(ms), strings.Join(parts, ", "))
	if len(ms) > maxNamesShown {
		text += fmt.Sprintf(" and %d more", len(ms)-maxNamesShown)
	}
	return text
}

// count writes n things: "1 member", "3 members".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func planText(plan string) string {
	switch plan {
	case core.PlanHolders:
		return "each gated drop's holders read once"
	case core.PlanScans:
		return "each verified address scanned once"
	}
	return plan
}

// gateAddUsage is /gate add as typed on the request's platform.
func gateAddUsage(req *Request) string {
	if req.Caps.GroupGates {
		return "/gate add <drops> [mode]"
	}
	return "/gate add role:<role> drops:<ids> [mode]"
}

// every writes an interval as moderators read it: "1h", "30m".
func every(d time.Duration) string {
	s := d.String()
	s = strings.TrimSuffix(s, "0s")
	return strings.TrimSuffix(s, "0m")
}

func ptrValue(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// gateText words the errors of gating.
func gateText(req *Request, err error) (string, bool) {
	var (
		problem *core.GateProblem
		dropErr *core.GateDropsError
	)
	switch {
	case errors.As(err, &problem):
		text := "I can't enforce that gate: " + Escape(problem.Reason) + "."
		if problem.Fix != "" {
			text += " Fix: " + Escape(problem.Fix)
		}
		return text + " Nothing was stored.", true
	case errors.As(err, &dropErr):
		return "Those drops don't look right: " + Escape(dropErr.Reason) + ". Nothing was stored.", true
	case errors.Is(err, core.ErrBadGateMode):
		return "That mode doesn't look right: use " + codeSpan("any") + " (the default), " + codeSpan("all") + " or " +
			codeSpan("atleast:N") + " with N at most the number of drops. Nothing was stored.", true
	case errors.Is(err, core.ErrGateExists):
		return "That is gated already. " + codeSpan("/gate list") + " shows the gates here; remove one with " + codeSpan("/gate remove") + " to change it.", true
	case errors.Is(err, core.ErrNoGate):
		if req.Command == "why" {
			return whyNoGateText(req), true
		}
		return "There is no such gate here. " + codeSpan("/gate list") + " shows the gates; add one with " + codeSpan(gateAddUsage(req)) + ".", true
	case errors.Is(err, core.ErrNotGroup) && req.Command == "drop deliver":
		return "On " + req.Place.Platform.Title() + " a delivery goes to the members of a group: run " + codeSpan("/drop deliver <drop>") + " in that group.", true
	case errors.Is(err, core.ErrNotGroup):
		return "On " + req.Place.Platform.Title() + " a gate is a group: run " + codeSpan("/gate add <drops> [mode]") + " in the group you want to gate.", true
	case errors.Is(err, core.ErrSyncRunning):
		return "A sync of this place is running right now. Its result shows in " + codeSpan("/gate list") + "; try again in a minute.", true
	}
	return "", false
}

// MemberJoined hands a member who joined a server (Discord's
// GUILD_MEMBER_ADD) to gating, which gives them the roles they qualify
// for in the background.
func (b *Bot) MemberJoined(ctx context.Context, place string, m core.Member) {
	b.gates.MemberJoined(ctx, m.Platform, place, cleanMember(m))
}

// JoinRequested hands a request to join a gated group (Telegram's
// chat_join_request) to gating, which settles it in the background.
func (b *Bot) JoinRequested(ctx context.Context, place string, m core.Member) {
	b.gates.JoinRequested(ctx, m.Platform, place, cleanMember(m))
}
