package sandbox

import (
	"crypto/hmac"
	"net/http"
	"strings"
	"time"
)

// claimJSON is a claim record as GET /actions/claim-qr and POST
// /website/claim write it, typed as the OAS types it. A link not claimed
// yet has "" where the OAS types a string (tx_hash, beneficiary,
// user_input, signer, tx_status) and no claimed_date, which "" would not be
// a date-time of; result and event_template, which the OAS marks nullable,
// are null, and so is the deprecated delegated_signed_message, as in the
// OAS's own example. (poap-api-facts' fixture of the status read has
// nulls, from [LEGACY] and [LIVE-NOTES]; the client reads both.)
type claimJSON struct {
	ID                     int64       `json:"id"`
	QRHash                 string      `json:"qr_hash"`
	TxHash                 string      `json:"tx_hash"`
	EventID                int64       `json:"event_id"`
	Beneficiary            string      `json:"beneficiary"`
	UserInput              string      `json:"user_input"`
	Signer                 string      `json:"signer"`
	Claimed                bool        `json:"claimed"`
	ClaimedDate            *string     `json:"claimed_date,omitempty"`
	CreatedDate            *string     `json:"created_date"`
	IsActive               bool        `json:"is_active"`
	Secret                 string      `json:"secret"`
	Event                  dropJSON    `json:"event"`
	EventTemplate          *struct{}   `json:"event_template"`
	TxStatus               string      `json:"tx_status"`
	DelegatedMint          bool        `json:"delegated_mint"`
	DelegatedSignedMessage *string     `json:"delegated_signed_message"`
	Result                 *resultJSON `json:"result"`
}

// resultJSON is the minted token of a finished claim.
type resultJSON struct {
	Token int64 `json:"token"`
}

// mintJSON is the answer of POST /actions/claim-qr: OAS v2's
// transaction_request_id, or the older queue_uid (Options.QueueUID); an
// e-mail reservation has neither.
type mintJSON struct {
	ID                     int64    `json:"id"`
	QRHash                 string   `json:"qr_hash"`
	TransactionRequestID   *int64   `json:"transaction_request_id,omitempty"`
	QueueUID               *string  `json:"queue_uid,omitempty"`
	EventID                int64    `json:"event_id"`
	Beneficiary            string   `json:"beneficiary"`
	UserInput              string   `json:"user_input"`
	Signer                 string   `json:"signer"`
	Claimed                bool     `json:"claimed"`
	ClaimedDate            *string  `json:"claimed_date"`
	CreatedDate            *string  `json:"created_date"`
	IsActive               bool     `json:"is_active"`
	Event                  dropJSON `json:"event"`
	DelegatedMint          bool     `json:"delegated_mint"`
	DelegatedSignedMessage *string  `json:"delegated_signed_message"`
}

// claimJSON writes lk as it stands at now. The caller holds s.mu.
func (st *state) claimJSON(lk *link, now time.Time) claimJSON {
	j := claimJSON{
		ID:          lk.id,
		QRHash:      lk.hash,
		EventID:     lk.eventID,
		CreatedDate: isoTime(lk.created),
		IsActive:    st.linkActive(lk, now),
		Secret:      st.shownSecret(lk.hash),
		Event:       dropJSONOf(st.drops[lk.eventID], false),
	}
	c := lk.claim
	if c == nil {
		return j
	}
	j.Claimed, j.ClaimedDate = true, isoTime(c.at)
	j.Beneficiary, j.UserInput, j.Signer = c.beneficiary, c.userInput, signer
	if c.tx == nil {
		return j
	}
	j.TxStatus = "pending"
	if c.tx.finished(now, st.txDelay) {
		j.TxStatus, j.TxHash, j.Result = "passed", c.tx.hash, &resultJSON{Token: c.token.ID}
	}
	return j
}

// mintInput is the body of POST /actions/claim-qr.
type mintInput struct {
	Address   string `json:"address"`
	QRHash    string `json:"qr_hash"`
	Secret    string `json:"secret"`
	SendEmail *bool  `json:"sendEmail"`
}

// claimQR answers POST /actions/claim-qr: it mints a POAP through a one-use
// link to an address, a known ENS name or an e-mail.
func (s *Server) claimQR(w http.ResponseWriter, r *http.Request) {
	serveMint(s, w, r, s.claimLink)
}

// serveMint answers a mint request (or a delivery's creation): it reads the
// body into an In, applies it at s.now() and writes the answer or the
// refusal, or ends the request without any response when apply says the
// response is to be lost (DropMintResponses, DropNextDeliveryResponses).
func serveMint[In, Out any](s *Server, w http.ResponseWriter, r *http.Request, apply func(in In, now time.Time) (body Out, drop bool, err error)) {
	var in In
	if err := readJSON(r, &in); err != nil {
		writeResult(w, nil, err)
		return
	}
	body, drop, err := apply(in, s.now())
	if drop {
		abortResponse()
	}
	writeResult(w, body, err)
}

// claimLink applies a mint through a link, refusing as production does;
// drop says the response is to be lost (DropMintResponses).
func (s *Server) claimLink(in mintInput, now time.Time) (body mintJSON, drop bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lk := s.links[strings.TrimSpace(in.QRHash)]
	if lk == nil {
		return mintJSON{}, false, notFoundError(msgQRNotFound)
	}
	if s.requireSecret && !hmac.Equal([]byte(in.Secret), []byte(linkSecret(lk.hash))) {
		return mintJSON{}, false, badRequest(msgInvalidSecret)
	}
	input := strings.TrimSpace(in.Address)
	holder, k := s.resolve(input)
	switch {
	case k == kindInvalid:
		return mintJSON{}, false, badRequest(msgInvalidAddress)
	case lk.claim != nil:
		return mintJSON{}, false, badRequest(msgQRClaimed)
	case !s.linkActive(lk, now):
		return mintJSON{}, false, badRequest(msgQRExpired)
	case s.holdsDrop(lk.eventID, holder):
		return mintJSON{}, false, badRequest(msgAlreadyMinted)
	}
	if lk.claim, err = s.mintClaim(lk.eventID, input, txMint, now); err != nil {
		return mintJSON{}, false, err
	}
	return s.mintJSON(lk, now), s.mintApplied(), nil
}

// mintClaim mints a POAP of drop eventID to input, on the drop's network,
// with a transaction of operation unless input is an e-mail. The caller
// holds s.mu and has checked input.
func (st *state) mintClaim(eventID int64, input, operation string, now time.Time) (*claim, error) {
	tok, err := st.mintOnDrop(eventID, input, now)
	if err != nil {
		return nil, err
	}
	c := &claim{at: now, userInput: input, beneficiary: strings.ToLower(tok.Owner), token: tok}
	if tok.ID != 0 {
		c.tx = st.newTx(operation, now)
	}
	return c, nil
}

// mintOnDrop mints a POAP of drop eventID to owner on the drop's network,
// created at now; claims through links, website claims and deliveries all
// mint through it. The caller holds s.mu.
func (st *state) mintOnDrop(eventID int64, owner string, now time.Time) (Token, error) {
	return st.mint(Token{EventID: eventID, Owner: owner, Chain: chainName(st.drops[eventID].ChainID), Created: now})
}

// mintJSON writes the answer of a mint through lk. The caller holds s.mu.
func (st *state) mintJSON(lk *link, now time.Time) mintJSON {
	c := lk.claim
	j := mintJSON{
		ID:          lk.id,
		QRHash:      lk.hash,
		EventID:     lk.eventID,
		Beneficiary: c.beneficiary,
		UserInput:   c.userInput,
		Signer:      signer,
		Claimed:     true,
		ClaimedDate: isoTime(c.at),
		CreatedDate: isoTime(lk.created),
		IsActive:    st.linkActive(lk, now),
		Event:       dropJSONOf(st.drops[lk.eventID], false),
	}
	switch {
	case c.tx == nil:
	case st.queueUID:
		j.QueueUID = &c.tx.uid
	default:
		j.TransactionRequestID = &c.tx.id
	}
	return j
}
