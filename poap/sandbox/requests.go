package sandbox

import (
	"net/http"
	"strconv"
	"time"

	"github.com/poapbot/poapbot/poap/wire"
)

// Distribution methods, as redeem_type names them.
const (
	redeemQR      = "qr_code"
	redeemWebsite = "secret_website"
	redeemWord    = "secret_word"
)

// Review states of a request.
const (
	reviewPending  = "pending"
	reviewApproved = "approved"
	reviewRejected = "rejected"
)

// request is a distribution request awaiting review: mint links, or the
// codes of a website or secret-word claim.
type request struct {
	id      int64
	eventID int64
	kind    string // redeemQR, redeemWebsite, redeemWord
	codes   int
	created time.Time
	status  string
	secret  *secretClaim // the claim a website or word request feeds
}

// fileRequest records a pending request. The caller holds s.mu and has
// checked that none of the kind is pending for the drop.
func (st *state) fileRequest(eventID int64, kind string, codes int, now time.Time, sc *secretClaim) *request {
	rq := &request{id: st.nextRequest, eventID: eventID, kind: kind, codes: codes, created: now, status: reviewPending, secret: sc}
	st.nextRequest++
	st.reviews = append(st.reviews, rq)
	return rq
}

// pendingOf returns the drop's pending request of kind, or nil. The caller
// holds s.mu.
func (st *state) pendingOf(eventID int64, kind string) *request {
	for _, rq := range st.reviews {
		if rq.eventID == eventID && rq.kind == kind && rq.status == reviewPending {
			return rq
		}
	}
	return nil
}

// review approves the pending requests older than the review delay, as of
// the moment the delay ran out; with no delay it does nothing. The caller
// holds s.mu.
func (st *state) review(now time.Time) {
	if st.reviewDelay <= 0 {
		return
	}
	for _, rq := range st.reviews {
		if due := rq.created.Add(st.reviewDelay); rq.status == reviewPending && !now.Before(due) {
			st.approve(rq, due)
		}
	}
}

// approve activates rq at: new mint links, or more codes for its claim.
// The caller holds s.mu.
func (st *state) approve(rq *request, at time.Time) {
	rq.status = reviewApproved
	if rq.kind == redeemQR {
		st.addLinks(rq.eventID, rq.codes, at)
		return
	}
	rq.secret.approved = true
	rq.secret.total += rq.codes
}

// ApproveRequests approves the pending requests of drop eventID, as the
// review body would, and returns how many there were: mint-link requests
// add their links, website and secret-word requests open their claims.
func (s *Server) ApproveRequests(eventID int64) int {
	return s.decide(eventID, true)
}

// RejectRequests rejects the pending requests of drop eventID and returns
// how many there were.
func (s *Server) RejectRequests(eventID int64) int {
	return s.decide(eventID, false)
}

// decide approves or rejects the drop's pending requests.
func (s *Server) decide(eventID int64, approve bool) int {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, rq := range s.reviews {
		if rq.eventID != eventID || rq.status != reviewPending {
			continue
		}
		n++
		if approve {
			s.approve(rq, now)
		} else {
			rq.status = reviewRejected
		}
	}
	return n
}

// redeemInput is the body of POST /redeem-requests.
type redeemInput struct {
	EventID        number `json:"event_id"`
	RequestedCodes number `json:"requested_codes"`
	SecretCode     string `json:"secret_code"`
	RedeemType     string `json:"redeem_type"`
}

// requestMintLinks answers POST /redeem-requests with {id}: a request for
// more mint links (or website or word codes), pending review. One request
// per drop and method may be pending.
func (s *Server) requestMintLinks(w http.ResponseWriter, r *http.Request) {
	var in redeemInput
	if err := readJSON(r, &in); err != nil {
		writeResult(w, nil, err)
		return
	}
	id, err := s.fileRedeem(in, s.now())
	writeResult(w, map[string]string{"id": strconv.FormatInt(id, 10)}, err)
}

// fileRedeem checks in and files its request.
func (s *Server) fileRedeem(in redeemInput, now time.Time) (int64, error) {
	if err := checkRedeem(in); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.drops[in.EventID.V]
	if !ok {
		return 0, notFoundError(msgEventNotFound)
	}
	if err := checkEditCode(d, in.SecretCode); err != nil {
		return 0, err
	}
	var sc *secretClaim
	if in.RedeemType != redeemQR {
		if sc = s.secretClaimOf(d.ID, secretKindOf(in.RedeemType)); sc == nil {
			return 0, badRequest("the drop has no %s claim to add codes to; create it with POST /secret-requests", secretKindOf(in.RedeemType))
		}
	}
	if s.pendingOf(d.ID, in.RedeemType) != nil {
		return 0, pendingRefusal(in.RedeemType)
	}
	return s.fileRequest(d.ID, in.RedeemType, int(in.RequestedCodes.V), now, sc).id, nil
}

// pendingRefusal answers a request of method redeemType for a drop that has
// one pending review already. [GUESS] Neither the interface, the OpenAPI
// definition nor poap-api-facts give this refusal's status, code or words:
// a 400 in the backend's error shape, like the service's other refusals, is
// assumed. The client must not depend on these words; it reads the refusal
// by its status and the pending count (poap.ErrRequestPending).
func pendingRefusal(redeemType string) error {
	return badRequest("a %s request for this drop is already pending review; only one per method is allowed", redeemType)
}

// checkRedeem checks the fields of a redeem request that need no state.
func checkRedeem(in redeemInput) error {
	switch {
	case !in.EventID.Set:
		return badRequest("event_id is required")
	case !validRedeemType(in.RedeemType):
		return badRequest("redeem_type must be qr_code, secret_website or secret_word")
	case in.RequestedCodes.V < 1 || in.RequestedCodes.V > wire.MaxRequestedCodes:
		return badRequest("requested_codes must be a whole number from 1 to %d", wire.MaxRequestedCodes)
	}
	return nil
}

// validRedeemType reports whether t is a redeem_type.
func validRedeemType(t string) bool {
	return t == redeemQR || t == redeemWebsite || t == redeemWord
}

// activeJSON is one item of GET /redeem-requests/active/count.
type activeJSON struct {
	Active int    `json:"active"`
	Type   string `json:"type"`
}

// pendingRequests answers GET /redeem-requests/active/count as production
// does: an array with {active, type} when a request is pending, [] when
// none is, and a 503 when redeem_type is missing.
func (s *Server) pendingRequests(w http.ResponseWriter, r *http.Request) {
	q := query{r}
	eventID, err := strconv.ParseInt(q.get("event_id"), 10, 64)
	kind := q.get("redeem_type")
	switch {
	case kind == "":
		writeGatewayError(w, http.StatusServiceUnavailable)
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, "querystring/event_id must be a number")
		return
	case !validRedeemType(kind):
		writeError(w, http.StatusBadRequest, "querystring/redeem_type must be qr_code, secret_website or secret_word")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []activeJSON{}
	if s.pendingOf(eventID, kind) != nil {
		out = append(out, activeJSON{Active: 1, Type: kind})
	}
	writeJSON(w, http.StatusOK, out)
}
