package bot

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
)

// stockLine counts a drop's links by state.
func stockLine(s core.Stock) string {
	line := fmt.Sprintf("Mint links: %d in total · %d available · %d handed out · %d minted · %d claimed elsewhere",
		s.Total, s.Available, s.HandedOut, s.Minted, s.ClaimedElsewhere)
	if s.Minting > 0 {
		line += fmt.Sprintf(" · %d being minted", s.Minting)
	}
	return line
}

// settingsText says how a drop is claimed, on which network, when and to
// whom. In an answer the whole group reads (public), the codeword and the
// website claim's name, which let whoever knows them claim, are not shown;
// networks says whether /drop network is offered.
func settingsText(d core.Drop, public, networks bool) string {
	var s strings.Builder
	s.WriteString("Claim method: " + methodText(d, public) + "\n")
	s.WriteString(networkLine(d, networks) + "\n")
	switch {
	case d.Starts != nil && d.Ends != nil:
		s.WriteString("Claims: from " + when(*d.Starts) + " until " + when(*d.Ends) + ".")
	case d.Starts != nil:
		s.WriteString("Claims: from " + when(*d.Starts) + ".")
	case d.Ends != nil:
		s.WriteString("Claims: open until " + when(*d.Ends) + ".")
	default:
		s.WriteString("Claims: open.")
	}
	if !d.ExpiresAt.IsZero() {
		s.WriteString(" POAP stops minting it on " + when(d.ExpiresAt) + ".")
	}
	switch {
	case d.Codeword != "" && public:
		s.WriteString("\nCodeword: required (not shown in the group).")
	case d.Codeword != "":
		s.WriteString("\nCodeword: required (" + codeSpan(d.Codeword) + ").")
	}
	if d.RequiredRole != "" {
		s.WriteString("\nOnly for members with " + RoleMention(d.RequiredRole) + ".")
	}
	if d.LowStock > 0 {
		fmt.Fprintf(&s, "\nModerators are told where it is posted when fewer than %d links are left.", d.LowStock)
	}
	return s.String()
}

// methodText says how members claim a drop; public leaves out the name of
// its website claim.
func methodText(d core.Drop, public bool) string {
	switch d.Method {
	case core.ClaimLink:
		return "link — each member gets their own mint link"
	case core.ClaimMint:
		return "mint — minted straight to each member's primary wallet"
	case core.ClaimWebsite:
		if public {
			return "website — minted to each member's primary wallet through its website claim"
		}
		return "website — minted to each member's primary wallet through the website claim " + codeSpan(d.Website)
	case core.ClaimDelivery:
		return "delivery — minted to the members on the drop's delivery list"
	}
	return "auto — minted to the member's primary wallet when one is linked, else their own mint link"
}

// dropTitle names a drop: its name and id.
func dropTitle(d core.Drop) string {
	name := d.Name
	if name == "" {
		name = "Drop"
	}
	return fmt.Sprintf("**%s** (drop %s)", Escape(name), codeSpan(strconv.FormatInt(d.EventID, 10)))
}

// when writes an instant as members read it: 2026-12-01 at 18:00 UTC.
func when(t time.Time) string { return t.UTC().Format("2006-01-02 at 15:04") + " UTC" }
