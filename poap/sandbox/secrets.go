package sandbox

import (
	"net/http"
	"strings"
	"time"

	"github.com/poapbot/poapbot/poap/wire"
)

// Kinds of secret claims, as secret_type and GET /secret name them.
const (
	secretWebsite = "website"
	secretWord    = "word"
)

// secretClaim is a website or secret-word claim of a drop: mints allowed
// between from and to, up to total, once a review approved it.
type secretClaim struct {
	id       int64
	eventID  int64
	name     string
	kind     string // secretWebsite or secretWord
	from, to time.Time
	timezone int
	active   bool // the issuer's switch
	approved bool
	total    int
	claimed  int
	created  time.Time
}

// secretKindOf maps a redeem_type to the kind of claim it tops up.
func secretKindOf(redeemType string) string {
	if redeemType == redeemWebsite {
		return secretWebsite
	}
	return secretWord
}

// redeemTypeOf maps a kind of claim to its redeem_type.
func redeemTypeOf(kind string) string {
	if kind == secretWebsite {
		return redeemWebsite
	}
	return redeemWord
}

// parseSecretType reads secret_type: website, or word (the interface also
// calls it secret).
func parseSecretType(t string) (string, error) {
	switch t {
	case "website":
		return secretWebsite, nil
	case "word", "secret":
		return secretWord, nil
	}
	return "", badRequest("secret_type must be website or word")
}

// secretClaimOf returns the drop's claim of kind, or nil. The caller holds
// s.mu.
func (st *state) secretClaimOf(eventID int64, kind string) *secretClaim {
	for _, sc := range st.secrets {
		if sc.eventID == eventID && sc.kind == kind {
			return sc
		}
	}
	return nil
}

// secretInput is the body of POST and PUT /secret-requests.
type secretInput struct {
	EventID         number `json:"event_id"`
	RequestedCodes  number `json:"requested_codes"`
	SecretCode      string `json:"secret_code"`
	ClaimName       string `json:"claim_name"`
	From            string `json:"from"`
	To              string `json:"to"`
	Timezone        number `json:"timezone"`
	Active          *bool  `json:"active"`
	SecretType      string `json:"secret_type"`
	AcceptedRedeems number `json:"accepted_redeems"`
}

// createSecretRequest answers POST /secret-requests with the new claim's
// id, a bare number as the OAS says. The claim opens once its request is
// approved.
func (s *Server) createSecretRequest(w http.ResponseWriter, r *http.Request) {
	var in secretInput
	err := readJSON(r, &in)
	var id int64
	if err == nil {
		id, err = s.fileSecret(in, s.now())
	}
	writeResult(w, id, err)
}

// fileSecret checks in, creates its claim and files its request.
func (s *Server) fileSecret(in secretInput, now time.Time) (int64, error) {
	if err := checkSecretRequired(in, true); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, kind, err := s.secretTarget(in)
	if err != nil {
		return 0, err
	}
	sc := &secretClaim{id: s.nextSecret, eventID: d.ID, kind: kind, active: in.Active == nil || *in.Active, created: now}
	if err := s.applySecret(sc, in); err != nil {
		return 0, err
	}
	switch {
	case in.RequestedCodes.V < 1 || in.RequestedCodes.V > wire.MaxRequestedCodes:
		return 0, badRequest("requested_codes must be a whole number from 1 to %d", wire.MaxRequestedCodes)
	case s.pendingOf(d.ID, redeemTypeOf(kind)) != nil:
		return 0, pendingRefusal(redeemTypeOf(kind))
	case s.secretClaimOf(d.ID, kind) != nil:
		return 0, existsRefusal(s.secretClaimOf(d.ID, kind))
	}
	s.nextSecret++
	s.secrets[strings.ToLower(sc.name)] = sc
	s.fileRequest(d.ID, redeemTypeOf(kind), int(in.RequestedCodes.V), now, sc)
	return sc.id, nil
}

// existsRefusal answers a secret request for a drop that has a claim of its
// type already, sc. [GUESS] The service documents neither the status nor
// the words of this refusal: a 400 in the backend's error shape, like its
// other refusals, naming the claim in double quotes, is assumed. The
// client reads "already has" and takes the name when it is quoted.
func existsRefusal(sc *secretClaim) error {
	return badRequest("the drop already has a %s claim %q; change it with PUT /secret-requests", sc.kind, sc.name)
}

// secretTarget finds the drop of a secret request and checks its edit code
// and secret_type. The caller holds s.mu.
func (st *state) secretTarget(in secretInput) (Drop, string, error) {
	if !in.EventID.Set {
		return Drop{}, "", badRequest("event_id is required")
	}
	d, ok := st.drops[in.EventID.V]
	if !ok {
		return Drop{}, "", notFoundError(msgEventNotFound)
	}
	if err := checkEditCode(d, in.SecretCode); err != nil {
		return Drop{}, "", err
	}
	kind, err := parseSecretType(in.SecretType)
	return d, kind, err
}

// editSecretRequest answers PUT /secret-requests with the claim's id: it
// replaces the claim name, the window and the active switch of the drop's
// claim of that secret_type, all of which the OAS requires, and changes the
// number of codes when accepted_redeems is given.
func (s *Server) editSecretRequest(w http.ResponseWriter, r *http.Request) {
	var in secretInput
	err := readJSON(r, &in)
	var id int64
	if err == nil {
		id, err = s.editSecret(in)
	}
	writeResult(w, id, err)
}

// editSecret checks in and applies it to the drop's claim.
func (s *Server) editSecret(in secretInput) (int64, error) {
	if err := checkSecretRequired(in, false); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, kind, err := s.secretTarget(in)
	if err != nil {
		return 0, err
	}
	sc := s.secretClaimOf(d.ID, kind)
	if sc == nil {
		return 0, notFoundError("the drop has no " + kind + " claim; create it with POST /secret-requests")
	}
	edited := *sc
	if err := s.applySecret(&edited, in); err != nil {
		return 0, err
	}
	edited.active = *in.Active
	if in.AcceptedRedeems.Set {
		if in.AcceptedRedeems.V < int64(sc.claimed) || in.AcceptedRedeems.V > wire.MaxRequestedCodes {
			return 0, badRequest("accepted_redeems must be from the %d already claimed to %d", sc.claimed, wire.MaxRequestedCodes)
		}
		edited.total = int(in.AcceptedRedeems.V)
	}
	delete(s.secrets, strings.ToLower(sc.name))
	*sc = edited
	s.secrets[strings.ToLower(sc.name)] = sc
	return sc.id, nil
}

// applySecret checks and copies the name, time zone and window of in to
// sc. The caller holds s.mu.
func (st *state) applySecret(sc *secretClaim, in secretInput) error {
	name := strings.TrimSpace(in.ClaimName)
	if err := checkClaimName(name); err != nil {
		return err
	}
	if other := st.secrets[strings.ToLower(name)]; other != nil && other != st.secrets[strings.ToLower(sc.name)] {
		return badRequest("claim_name %q is already taken", name)
	}
	sc.name = name
	if in.Timezone.Set {
		if in.Timezone.V < -12 || in.Timezone.V > 12 {
			return badRequest("timezone must be an offset in hours from -12 to 12")
		}
		sc.timezone = int(in.Timezone.V)
	}
	return applyWindow(sc, in)
}

// checkSecretRequired refuses a body of POST (create) or PUT
// /secret-requests without a member the OAS requires of it; a member given
// empty counts as missing. Both require the whole window: an edit replaces
// it. requested_codes, which POST requires, is checked with its range.
func checkSecretRequired(in secretInput, create bool) error {
	for _, m := range []struct {
		field   string
		missing bool
	}{
		{"event_id", !in.EventID.Set},
		{"claim_name", strings.TrimSpace(in.ClaimName) == ""},
		{"from", strings.TrimSpace(in.From) == ""},
		{"to", strings.TrimSpace(in.To) == ""},
		{"active", !create && in.Active == nil},
		{"secret_type", strings.TrimSpace(in.SecretType) == ""},
	} {
		if m.missing {
			return badRequest("%s is required", m.field)
		}
	}
	return nil
}

// checkClaimName refuses an empty claim name or one that cannot be a path
// segment: letters, digits, hyphens and underscores only.
func checkClaimName(name string) error {
	if name == "" || len(name) > 100 || strings.Trim(strings.ToLower(name), "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
		return badRequest("claim_name must be 1 to 100 letters, digits, hyphens or underscores")
	}
	return nil
}
