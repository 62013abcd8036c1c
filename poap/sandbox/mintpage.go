package sandbox

import (
	"fmt"
	"net/http"
	"time"
)

// outcome is what a page says after a visit or a submitted form.
type outcome int

const (
	// outcomeOpen: there is something to mint; the page shows the form.
	outcomeOpen outcome = iota
	// outcomeMinted: the form's address got its POAP just now.
	outcomeMinted
	// outcomeUnknown: no mint link, or no delivery, has this address.
	outcomeUnknown
	// outcomeUsed: the mint link, or the address's entry on the delivery's
	// list, was claimed before.
	outcomeUsed
	// outcomeExpired: the link's drop can no longer be minted.
	outcomeExpired
	// outcomeInactive: the issuer deactivated the link.
	outcomeInactive
	// outcomeBadAddress: the form's address is none the page mints to.
	outcomeBadAddress
	// outcomeHolds: the form's address holds the drop's POAP already.
	outcomeHolds
	// outcomeNotListed: the form's address is not on the delivery's list.
	outcomeNotListed
)

// status is the HTTP status a page answers with for o.
func (o outcome) status() int {
	switch o {
	case outcomeUnknown:
		return http.StatusNotFound
	case outcomeUsed, outcomeExpired, outcomeInactive:
		return http.StatusGone
	case outcomeBadAddress:
		return http.StatusBadRequest
	case outcomeHolds:
		return http.StatusConflict
	case outcomeNotListed:
		return http.StatusForbidden
	}
	return http.StatusOK
}

// linkVisit is what a mint link's page knows after a visit or a mint.
type linkVisit struct {
	outcome outcome
	drop    Drop
	holder  string // who got the POAP, or who holds it already
	token   Token  // the POAP minted (ID 0 for an e-mail's reservation)
}

// mintPage answers GET /mint/{hash} with the link's drop and, while the
// link can be used, a form; POST mints with the link to the form's address,
// ENS name or e-mail, through the ledger POST /actions/claim-qr uses, so
// that the link then reads as claimed and the POAP shows in scans.
func (s *Server) mintPage(w http.ResponseWriter, r *http.Request) {
	hash, input := r.PathValue("hash"), ""
	var v linkVisit
	if r.Method == http.MethodPost {
		a, ok, err := readAddress(w, r)
		if err != nil {
			writeFormRefusal(w)
			return
		}
		input = r.PostForm.Get("address")
		v = s.mintWithLink(hash, a, ok, s.now())
	} else {
		v = s.visitLink(hash, s.now())
	}
	writePage(w, v.outcome.status(), v.page(hash, pageInput(input)))
}

// visitLink says what the link hash's page shows at now.
func (s *Server) visitLink(hash string, now time.Time) linkVisit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.linkState(s.links[hash], now)
}

// linkState says whether lk can be used at now. The caller holds s.mu.
func (st *state) linkState(lk *link, now time.Time) linkVisit {
	switch {
	case lk == nil:
		return linkVisit{outcome: outcomeUnknown}
	case lk.claim != nil:
		return linkVisit{outcome: outcomeUsed, drop: st.drops[lk.eventID]}
	case dropExpired(st.drops[lk.eventID], now):
		return linkVisit{outcome: outcomeExpired, drop: st.drops[lk.eventID]}
	case lk.deactivated:
		return linkVisit{outcome: outcomeInactive, drop: st.drops[lk.eventID]}
	}
	return linkVisit{outcome: outcomeOpen, drop: st.drops[lk.eventID]}
}

// mintWithLink mints with the link hash to input at now, when the link
// can be used and input (valid says it passed readAddress) is a 0x
// address, a known ENS name or an e-mail whose holder lacks the drop.
func (s *Server) mintWithLink(hash, input string, valid bool, now time.Time) linkVisit {
	s.mu.Lock()
	defer s.mu.Unlock()
	lk := s.links[hash]
	v := s.linkState(lk, now)
	if v.outcome != outcomeOpen {
		return v
	}
	holder, k := s.resolve(input)
	switch {
	case !valid || k == kindInvalid:
		v.outcome = outcomeBadAddress
	case s.holdsDrop(lk.eventID, holder):
		v.outcome, v.holder = outcomeHolds, holder
	default:
		c, err := s.mintClaim(lk.eventID, input, txMint, now)
		if err != nil {
			v.outcome = outcomeBadAddress
			return v
		}
		lk.claim = c
		v.outcome, v.holder, v.token = outcomeMinted, c.token.Owner, c.token
	}
	return v
}

// page words v for the page of the link hash; input is the form's value
// to give back.
func (v linkVisit) page(hash, input string) page {
	p := page{Site: "a mint link's page", Title: "Mint your POAP", Problem: true}
	if v.outcome != outcomeUnknown {
		p.Drops = []pageDrop{pageDropOf(v.drop)}
	}
	switch v.outcome {
	case outcomeOpen:
		p.Problem = false
		p.Text = "Enter where to send this POAP: a 0x address, an ENS name or an e-mail address. The link works once."
	case outcomeMinted:
		p.Title, p.Problem = "POAP minted", false
		p.Notice = fmt.Sprintf("Minted: the POAP of %s goes to %s (token %d).", v.drop.Name, v.holder, v.token.ID)
		if v.token.ID == 0 {
			p.Notice = fmt.Sprintf("Reserved: the POAP of %s waits for %s, who can mint it to a wallet later.", v.drop.Name, v.holder)
		}
	case outcomeUnknown:
		p.Title, p.Notice = "Mint link not found", "This mint link does not exist. Check that you copied the whole link, or ask for a new one."
	case outcomeUsed:
		p.Notice = "This mint link has been used already: each link mints one POAP. If it was yours, the POAP is in the wallet it was minted to."
	case outcomeExpired:
		p.Notice = "This drop can no longer be minted: it expired on " + v.drop.ExpiryDate.Format(time.DateOnly) + "."
	case outcomeInactive:
		p.Notice = "The issuer of this drop deactivated this mint link. Ask them for another."
	case outcomeBadAddress:
		p.Notice = "That is not an address this page can mint to. Enter a 0x address (0x and 40 hex digits), an ENS name the sandbox knows (such as " + DemoENS + ") or an e-mail address."
	case outcomeHolds:
		p.Notice = v.holder + " holds this drop's POAP already: an address gets one POAP of a drop. Enter another address."
	}
	if v.outcome == outcomeOpen || v.outcome == outcomeBadAddress || v.outcome == outcomeHolds {
		p.Form, p.Action, p.Input = true, "/mint/"+hash, input
		p.Label = "Address, ENS name or e-mail"
	}
	return p
}

// writeFormRefusal answers a body that is no readable form.
func writeFormRefusal(w http.ResponseWriter) {
	writePage(w, http.StatusBadRequest, page{
		Site: "a POAP page", Title: "Form not readable", Problem: true,
		Notice: fmt.Sprintf("Send the page's form as it is: one address field, at most %d bytes in all.", maxPageForm),
	})
}
