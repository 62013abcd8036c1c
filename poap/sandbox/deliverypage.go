package sandbox

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// deliveryVisit is what a delivery's page knows after a visit or a claim.
type deliveryVisit struct {
	outcome outcome
	texts   deliveryTexts
	drops   []Drop
	claimed int // addresses of the list that claimed
	total   int // addresses on the list
	address string
	minted  []Drop // the drops minted just now
}

// deliveryPage answers GET /delivery/{slug} with the delivery's page and
// a form; POST mints the drops listed for the form's address (or a known
// ENS name) once, through the ledger POST /actions/claim-delivery-v2 uses,
// and refuses an address that is not on the list.
func (s *Server) deliveryPage(w http.ResponseWriter, r *http.Request) {
	slug, input := r.PathValue("slug"), ""
	var v deliveryVisit
	if r.Method == http.MethodPost {
		a, ok, err := readAddress(w, r)
		if err != nil {
			writeFormRefusal(w)
			return
		}
		input = r.PostForm.Get("address")
		v = s.claimByPage(slug, a, ok, s.now())
	} else {
		s.mu.Lock()
		v = s.deliveryState(s.deliveryWithSlug(slug))
		s.mu.Unlock()
	}
	writePage(w, v.outcome.status(), v.page(pageInput(input)))
}

// deliveryState is the page of dl before any claim: unknown when dl is
// nil. The caller holds s.mu.
func (st *state) deliveryState(dl *delivery) deliveryVisit {
	if dl == nil {
		return deliveryVisit{outcome: outcomeUnknown}
	}
	v := deliveryVisit{outcome: outcomeOpen, texts: dl.texts, claimed: dl.claimed, total: len(dl.addresses)}
	for _, id := range dl.eventIDs {
		v.drops = append(v.drops, st.drops[id])
	}
	return v
}

// claimByPage mints, at now, the drops the delivery slug lists for input
// (valid says it passed readAddress), a 0x address or a known ENS name,
// skipping those it holds, once per address, as deliver does.
func (s *Server) claimByPage(slug, input string, valid bool, now time.Time) deliveryVisit {
	s.mu.Lock()
	defer s.mu.Unlock()
	dl := s.deliveryWithSlug(slug)
	v := s.deliveryState(dl)
	if dl == nil {
		return v
	}
	holder, k := s.resolve(input)
	entry := dl.addresses[strings.ToLower(holder)]
	v.address = holder
	switch {
	case !valid || k != kindAddress:
		v.outcome = outcomeBadAddress
	case entry == nil:
		v.outcome = outcomeNotListed
	case entry.claimed:
		v.outcome = outcomeUsed
	default:
		v.minted = s.mintListed(entry, now)
		entry.claimed = true
		dl.claimed++
		s.newTx(txMintDelivery, now)
		v.outcome, v.claimed = outcomeMinted, dl.claimed
	}
	return v
}

// mintListed mints each drop of entry its address lacks, at now, and
// returns those it minted. The caller holds s.mu.
func (st *state) mintListed(entry *deliveryAddress, now time.Time) []Drop {
	var minted []Drop
	for _, id := range entry.events {
		if st.holdsDrop(id, entry.address) {
			continue
		}
		if _, err := st.mintOnDrop(id, entry.address, now); err == nil {
			minted = append(minted, st.drops[id])
		}
	}
	return minted
}

// page words v; input is the form's value to give back.
func (v deliveryVisit) page(input string) page {
	p := page{Site: "a delivery's page", Title: v.texts.PageTitle, Text: v.texts.PageText, Problem: true}
	for _, d := range v.drops {
		p.Drops = append(p.Drops, pageDropOf(d))
	}
	switch v.outcome {
	case outcomeOpen:
		p.Problem = false
		p.Notice = fmt.Sprintf("%d of the %d addresses on this delivery's list have claimed.", v.claimed, v.total)
	case outcomeMinted:
		p.Problem = false
		p.Notice = "Claimed for " + v.address + ": " + mintedWords(v.minted)
	case outcomeUnknown:
		p.Title, p.Notice = "Delivery not found", "No delivery has this address. Check that you copied the whole link."
	case outcomeBadAddress:
		p.Notice = "Enter the wallet the delivery lists: a 0x address (0x and 40 hex digits) or an ENS name the sandbox knows (such as " + DemoENS + ")."
	case outcomeNotListed:
		p.Notice = v.address + " is not on this delivery's list: only the addresses its issuer listed can claim here. Try another of your wallets."
	case outcomeUsed:
		p.Notice = v.address + " has claimed this delivery already: its POAPs are in that wallet."
	}
	if v.outcome == outcomeOpen || v.outcome == outcomeBadAddress || v.outcome == outcomeNotListed {
		p.Form, p.Action, p.Input = true, "/delivery/"+v.texts.Slug, input
		p.Label = "Your address or ENS name"
	}
	return p
}

// mintedWords says which POAPs a claim minted.
func mintedWords(minted []Drop) string {
	if len(minted) == 0 {
		return "the wallet held every POAP of this delivery already."
	}
	names := make([]string, len(minted))
	for i, d := range minted {
		names[i] = d.Name
	}
	return "minted the POAP of " + strings.Join(names, ", ") + "."
}
