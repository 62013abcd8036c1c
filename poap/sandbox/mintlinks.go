package sandbox

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"time"
)

// secretNotRequired is what production now returns as a link's secret.
const secretNotRequired = "NOT_REQUIRED_ANYMORE"

// linkSecretKey signs the links' secrets when Options.RequireSecret is set,
// as production's HMAC of the qr_hash did.
var linkSecretKey = []byte("poapbot-sandbox-claim-secret")

// signer is the address that signs the sandbox's mints.
var signer = "0x" + digest("signer", 0)[:40]

// addLinks creates n mint links of drop eventID at now and returns them.
// The caller holds s.mu.
func (st *state) addLinks(eventID int64, n int, now time.Time) []*link {
	out := make([]*link, 0, n)
	for range n {
		lk := st.newLink(eventID, st.newHash(), now)
		st.dropLinks[eventID] = append(st.dropLinks[eventID], lk)
		out = append(out, lk)
	}
	return out
}

// linkActive reports whether lk can be claimed at now: not deactivated and
// its drop not expired. The caller holds s.mu.
func (st *state) linkActive(lk *link, now time.Time) bool {
	return !lk.deactivated && !dropExpired(st.drops[lk.eventID], now)
}

// dropExpired reports whether d's expiry day has ended at now (UTC); a drop
// without an expiry date never expires.
func dropExpired(d Drop, now time.Time) bool {
	return !d.ExpiryDate.IsZero() && !now.Before(d.ExpiryDate.AddDate(0, 0, 1))
}

// shownSecret returns the secret GET /actions/claim-qr shows for hash. The
// caller holds s.mu.
func (k *knobs) shownSecret(hash string) string {
	if !k.requireSecret {
		return secretNotRequired
	}
	return linkSecret(hash)
}

// linkSecret is the HMAC-SHA256 of hash, in hex.
func linkSecret(hash string) string {
	mac := hmac.New(sha256.New, linkSecretKey)
	mac.Write([]byte(hash))
	return hex.EncodeToString(mac.Sum(nil))
}

// codeInput is the body of POST /event/{id}/qr-codes.
type codeInput struct {
	SecretCode string `json:"secret_code"`
}

// linkJSON is one item of POST /event/{id}/qr-codes.
type linkJSON struct {
	QRHash  string `json:"qr_hash"`
	Claimed bool   `json:"claimed"`
}

// mintLinks answers POST /event/{id}/qr-codes: the drop's approved mint
// links, oldest first, as a bare array.
func (s *Server) mintLinks(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	var in codeInput
	if err == nil {
		err = readJSON(r, &in)
	}
	if err != nil {
		writeResult(w, nil, err)
		return
	}
	links, err := s.linksOf(id, in.SecretCode)
	writeResult(w, links, err)
}

// linksOf lists the mint links of drop id, once code is its edit code.
func (s *Server) linksOf(id int64, code string) ([]linkJSON, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.drops[id]
	if !ok {
		return nil, notFoundError(msgEventNotFound)
	}
	if err := checkEditCode(d, code); err != nil {
		return nil, err
	}
	out := []linkJSON{}
	for _, lk := range s.dropLinks[id] {
		out = append(out, linkJSON{QRHash: lk.hash, Claimed: lk.claim != nil})
	}
	return out, nil
}

// validateInput is the body of POST /event/validate.
type validateInput struct {
	EventID    number `json:"event_id"`
	SecretCode string `json:"secret_code"`
}

// validateEditCode answers POST /event/validate with {valid}: whether the
// code is the drop's edit code. Both members are required (OAS): a missing
// or empty secret_code is the errors page's 400 SECRET_CODE_MISSING, not
// {valid:false}. [GUESS] A wrong code is {valid:false}, as the OAS's answer
// suggests, rather than INVALID_SECRET_CODE. An unknown drop is a 404.
func (s *Server) validateEditCode(w http.ResponseWriter, r *http.Request) {
	var in validateInput
	if err := readJSON(r, &in); err != nil {
		writeResult(w, nil, err)
		return
	}
	if !in.EventID.Set {
		writeError(w, http.StatusBadRequest, "event_id is required")
		return
	}
	if in.SecretCode == "" {
		writeError(w, http.StatusBadRequest, msgEditCodeMissing)
		return
	}
	s.mu.Lock()
	d, ok := s.drops[in.EventID.V]
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, msgEventNotFound)
		return
	}
	valid := d.EditCode != "" && hmac.Equal([]byte(in.SecretCode), []byte(d.EditCode))
	writeJSON(w, http.StatusOK, map[string]bool{"valid": valid})
}

// claimStatus answers GET /actions/claim-qr?qr_hash=: the claim record of
// a mint link (or of a website claim).
func (s *Server) claimStatus(w http.ResponseWriter, r *http.Request) {
	hash := strings.TrimSpace(r.URL.Query().Get("qr_hash"))
	if hash == "" {
		writeError(w, http.StatusNotFound, msgQRMissing)
		return
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	lk := s.links[hash]
	if lk == nil {
		writeError(w, http.StatusNotFound, msgQRNotFound)
		return
	}
	writeJSON(w, http.StatusOK, s.claimJSON(lk, now))
}
