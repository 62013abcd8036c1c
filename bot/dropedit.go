package bot

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
)

// noneWord clears an option of /drop edit (and sets none with /drop add):
// codeword:none, ends:none, required_role:none. Discord's role picker
// offers no text, so there @everyone stands for no role.
const noneWord = "none"

// isNone reports whether an option's text clears it.
func isNone(s string) bool { return strings.EqualFold(strings.TrimSpace(s), noneWord) }

func (b *Bot) dropEditCommand() *Command {
	return &Command{
		Name: "drop edit", Description: "Change a drop's settings in place; members keep their links", Access: ManageDrops, AnswerInGroup: true,
		Options: []Option{
			dropOption,
			{Name: "starts", Type: DateTimeOption, MaxLen: maxDateTime, Description: "claims open at, UTC: 2026-12-01 18:00; none: now"},
			{Name: "ends", Type: DateTimeOption, MaxLen: maxDateTime, Description: "claims close at, UTC: 2026-12-02 18:00; none: never"},
			{Name: "codeword", Type: TextOption, MaxLen: MaxCodeword, Confidential: true, Description: "a word members must give to claim; none: no codeword"},
			{Name: "required_role", Type: RoleOption, Description: "the role members need to claim; none (@everyone on Discord): no role"},
			{Name: "delivery", Type: TextOption, Choices: []string{"auto", "link", "mint", "website"},
				Description: "auto: mint to a wallet, else a link; link; mint; website: via its website claim"},
			{Name: "website", Type: TextOption, MaxLen: core.MaxWebsiteName, Description: "with delivery:website, the drop's website claim name"},
			{Name: "low_stock", Type: IntegerOption, Description: "tell moderators where the drop is posted when fewer links are left (0: never)"},
		},
		Handler: b.dropEdit,
	}
}

// dropEdit changes a drop's settings and says what changed.
func (b *Bot) dropEdit(ctx context.Context, req *Request) (Reply, error) {
	e, err := dropEditOptions(req)
	if err != nil {
		return Reply{}, err
	}
	c, err := b.drops.EditDrop(ctx, member(req), req.Place, e)
	if err != nil {
		return Reply{}, err
	}
	return Reply{Personal: true, Text: changeText(c, req.Caller.Anonymous)}, nil
}

// dropEditOptions reads the options of /drop edit: those given are Set.
// It refuses an edit that gives none, and a website without
// delivery:website.
func dropEditOptions(req *Request) (core.DropEdit, error) {
	id, err := requiredID(req, "drop")
	if err != nil {
		return core.DropEdit{}, err
	}
	e := core.DropEdit{EventID: id}
	given := func(name string) bool { return strings.TrimSpace(req.Text(name)) != "" }
	if e.Starts.Set = given("starts"); e.Starts.Set {
		if e.Starts.To, err = timeOption(req, "starts"); err != nil {
			return core.DropEdit{}, err
		}
	}
	if e.Ends.Set = given("ends"); e.Ends.Set {
		if e.Ends.To, err = timeOption(req, "ends"); err != nil {
			return core.DropEdit{}, err
		}
	}
	e.Codeword = core.Change[string]{Set: given("codeword"), To: codewordOption(req)}
	e.RequiredRole = core.Change[string]{Set: given("required_role"), To: requiredRole(req)}
	if e.Method.Set = given("delivery"); e.Method.Set {
		if e.Method.To, e.Website, err = methodOptions(req); err != nil {
			return core.DropEdit{}, err
		}
	} else if given("website") {
		return core.DropEdit{}, &OptionError{Option: "website", Reason: "goes with delivery:website only"}
	}
	if e.LowStock.Set = given("low_stock"); e.LowStock.Set {
		if e.LowStock.To, err = lowStockOption(req); err != nil {
			return core.DropEdit{}, err
		}
	}
	if e.Empty() {
		return core.DropEdit{}, &OptionError{Reason: "give at least one setting to change: starts, ends, codeword, required_role, delivery or low_stock, " +
			"for example " + codeSpan(fmt.Sprintf("/drop edit %d ends:2026-12-02 18:00", id)) + ", or " + codeSpan(fmt.Sprintf("/drop edit %d codeword:none", id)) + " to remove one"}
	}
	return e, nil
}

// changeText says what /drop edit changed: each setting, old → new. In an
// answer the whole group reads (public), codewords and website claim names
// are not shown.
func changeText(c core.DropChange, public bool) string {
	changed := c.Changed()
	if len(changed) == 0 {
		return "Nothing changed: " + dropTitle(c.After) + " has those settings already."
	}
	var s strings.Builder
	s.WriteString("Changed " + dropTitle(c.After) + "; members keep the links they were given.")
	for _, name := range changed {
		if name == "codeword" && public {
			s.WriteString("\n• codeword: changed (not shown in the group)")
			continue
		}
		fmt.Fprintf(&s, "\n• %s: %s → %s", name, settingText(c.Before, name, public), settingText(c.After, name, public))
	}
	return s.String()
}

// settingText is one setting of a drop as changeText shows it.
func settingText(d core.Drop, name string, public bool) string {
	switch name {
	case "starts":
		return whenOr(d.Starts, "none (open now)")
	case "ends":
		return whenOr(d.Ends, "none (never)")
	case "codeword":
		if d.Codeword == "" {
			return noneWord
		}
		return codeSpan(d.Codeword)
	case "required_role":
		if d.RequiredRole == "" {
			return "none (everyone here)"
		}
		return RoleMention(d.RequiredRole)
	case "delivery":
		if d.Method == core.ClaimWebsite && !public {
			return "website " + codeSpan(d.Website)
		}
		return string(d.Method)
	case "low_stock":
		if d.LowStock == 0 {
			return "0 (never tell)"
		}
		return strconv.Itoa(d.LowStock)
	}
	return ""
}

// whenOr writes t as when does, or none when t is nil.
func whenOr(t *time.Time, none string) string {
	if t == nil {
		return none
	}
	return when(*t)
}
