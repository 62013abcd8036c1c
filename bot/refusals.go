package bot

import (
	"errors"
	"fmt"
	"time"

	"github.com/poapbot/poapbot/core"
)

// refusalText words the refusals of the issuing service and of Moments: a
// request POAP understood and refused, so nothing changed. They are never
// told as a service that is not answering, which is for timeouts, failures
// and the open circuit only.
func refusalText(req *Request, err error) (string, bool) {
	var (
		de      *core.DropError
		refused *core.IssuerRefusal
		busy    *core.BusyError
	)
	var d core.Drop
	if errors.As(err, &de) {
		d = de.Drop
	}
	switch {
	case errors.Is(err, core.ErrWebsiteExists):
		return websiteExistsText(d, err), true
	case errors.Is(err, core.ErrClaimNameTaken):
		return "POAP says the website claim name " + codeSpan(req.Text("claim_name")) + " is taken by another claim, so nothing was changed. " +
			"Choose another name, hard to guess (like " + codeSpan("increase-group-student") + "), and run " + codeSpan("/drop website") + " again.", true
	case errors.As(err, &refused):
		return refusedText(req, refused), true
	case errors.As(err, &busy), errors.Is(err, core.ErrIssuerBusy):
		return busyText(req, busy), true
	}
	return "", false
}

// websiteExistsText words a website request refused because the drop has
// a website claim already: its name when POAP or the drop here says it,
// and how to mint through it.
func websiteExistsText(d core.Drop, err error) string {
	var exists *core.WebsiteExistsError
	name := ""
	if errors.As(err, &exists) {
		name = exists.Name
	}
	if name == "" {
		name = d.Website
	}
	id := fmt.Sprint(d.EventID)
	if name != "" && name == d.Website && d.Method == core.ClaimWebsite {
		return "Drop " + codeSpan(id) + " already has its website claim " + codeSpan(name) + " at POAP (a drop has one), and it mints through it here, " +
			"so POAP refused another and nothing was changed. " + codeSpan("/drop info "+id) + " shows where it stands."
	}
	named, add := "a website claim", "website:<claim_name>"
	if name != "" {
		named, add = "the website claim "+codeSpan(name), "website:"+name
	}
	text := "POAP says drop " + codeSpan(id) + " already has " + named + ", and a drop can have only one, so POAP refused another and nothing was changed. "
	if name == "" {
		text += "Its name is the end of its poap.website address. "
	}
	return text + "To mint through it here, remove the drop with " + codeSpan("/drop remove "+id) + " and add it again with " +
		codeSpan("/drop add "+id+" <edit_code> delivery:website "+add) + "."
}

// refusedText words a refusal that has no sentinel of its own: who refused,
// with their short message, and that nothing changed.
func refusedText(req *Request, r *core.IssuerRefusal) string {
	who := "POAP"
	if r.Moments {
		who = "POAP Moments"
	}
	said := fmt.Sprintf(" (status %d)", r.Status)
	if r.Message != "" {
		said = fmt.Sprintf(" (status %d: %s)", r.Status, codeSpan(r.Message))
	}
	switch req.Command {
	case "claim":
		return who + " refused the mint" + said + ", so nothing was minted. Please tell a moderator."
	case "moment":
		return who + " refused the post" + said + ", so nothing was posted. Check the files and the text, and post again."
	}
	return who + " refused that request" + said + ", so nothing was changed. Check what you gave and try again; " +
		"if POAP keeps refusing, tell whoever runs this bot."
}

// busyText words the service asking the bot to slow down (a 429): nothing
// was done, and when to try again.
func busyText(req *Request, b *core.BusyError) string {
	later := "in a minute"
	switch {
	case b == nil || b.RetryAfter <= 0 || b.RetryAfter >= time.Hour:
	case b.RetryAfter <= 90*time.Second:
		later = fmt.Sprintf("in %d seconds", int((b.RetryAfter+time.Second-1)/time.Second))
	default:
		later = fmt.Sprintf("in %d minutes", int((b.RetryAfter+time.Minute-1)/time.Minute))
	}
	if req.Command == "claim" {
		return "POAP asked me to slow down (too many requests just now), so nothing was minted. Please run " + codeSpan("/claim") + " again " + later + "."
	}
	return "POAP asked me to slow down (too many requests just now), so that was not done and nothing was changed. Please try again " + later + "."
}
