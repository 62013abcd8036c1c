package sandbox

import (
	"net/http"
	"strings"
	"time"
)

// applyWindow checks and copies from and to: date-times, as the OAS asks
// (format date-time, "YYYY-MM-DDTHH-MM-SSZ"). One with an offset, such as
// 2022-07-18T00:01:00Z, is read as it is; one without, such as the OAS's
// own example 2022-07-18T00:01:00.000, at sc's time zone (an offset in
// hours). The interface's hh:mm is refused: it is no date-time, and which
// day it would fall on is not documented.
func applyWindow(sc *secretClaim, in secretInput) error {
	from, ok := parseDateTime(in.From, sc.timezone)
	if !ok {
		return badRequest("from must be a date-time such as 2022-07-18T00:01:00Z")
	}
	to, ok := parseDateTime(in.To, sc.timezone)
	if !ok {
		return badRequest("to must be a date-time such as 2022-07-18T00:01:00Z")
	}
	if !to.After(from) {
		return badRequest("to must be after from")
	}
	sc.from, sc.to = from, to
	return nil
}

// parseDateTime reads a window bound as applyWindow says, at offset tz
// hours from UTC unless it names its own; it returns UTC. Fractional
// seconds are accepted.
func parseDateTime(v string, tz int) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t.UTC(), true
	}
	if t, err := time.ParseInLocation("2006-01-02T15:04:05", v, time.FixedZone("", tz*3600)); err == nil {
		return t.UTC(), true
	}
	return time.Time{}, false
}

// secretJSON is the answer of GET /secret/{secret_word}.
type secretJSON struct {
	ID                      int64    `json:"id"`
	EventID                 int64    `json:"event_id"`
	Event                   dropJSON `json:"event"`
	ClaimName               string   `json:"claim_name"`
	From                    *string  `json:"from"`
	To                      *string  `json:"to"`
	Timezone                int      `json:"timezone"`
	Active                  bool     `json:"active"`
	Total                   int      `json:"total"`
	Claimed                 int      `json:"claimed"`
	CreatedDate             *string  `json:"created_date"`
	IsCollectorsGameEnabled bool     `json:"is_collectors_game_enabled"`
	Type                    string   `json:"type"`
}

// secret answers GET /secret/{secret_word}: the website or word claim of
// that name. active is false until its request is approved.
func (s *Server) secret(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.secrets[strings.ToLower(r.PathValue("secret_word"))]
	if sc == nil {
		writeError(w, http.StatusNotFound, "There is no secret word or website with this name")
		return
	}
	writeJSON(w, http.StatusOK, secretJSON{
		ID:          sc.id,
		EventID:     sc.eventID,
		Event:       dropJSONOf(s.drops[sc.eventID], false),
		ClaimName:   sc.name,
		From:        isoTime(sc.from),
		To:          isoTime(sc.to),
		Timezone:    sc.timezone,
		Active:      sc.active && sc.approved,
		Total:       sc.total,
		Claimed:     sc.claimed,
		CreatedDate: isoTime(sc.created),
		Type:        sc.kind,
	})
}

// websiteInput is the body of POST /website/claim.
type websiteInput struct {
	Website string `json:"website"`
	Address string `json:"address"`
}

// websiteClaim answers POST /website/claim: a mint through a website claim
// inside its window, answered with the claim record it makes, unless the
// gateway's throttle (Options.WebsiteClaimRate) answers first.
func (s *Server) websiteClaim(w http.ResponseWriter, r *http.Request) {
	if wait, ok := s.takeWebsiteClaim(); !ok {
		writeThrottled(w, wait)
		return
	}
	serveMint(s, w, r, s.claimWebsite)
}

// takeWebsiteClaim spends a token of the website-claim throttle, or
// reports how long until the next one.
func (s *Server) takeWebsiteClaim() (wait time.Duration, ok bool) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.websiteClaims.take(now)
}

// claimWebsite applies a website mint, refusing as production does; drop
// says the response is to be lost.
func (s *Server) claimWebsite(in websiteInput, now time.Time) (body claimJSON, drop bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.secrets[strings.ToLower(strings.TrimSpace(in.Website))]
	if err := s.checkWebsite(sc, in.Address, now); err != nil {
		return claimJSON{}, false, err
	}
	input := strings.TrimSpace(in.Address)
	lk := s.newLink(sc.eventID, s.newHash(), now)
	lk.website = sc.name
	if lk.claim, err = s.mintClaim(sc.eventID, input, txMint, now); err != nil {
		return claimJSON{}, false, err
	}
	sc.claimed++
	return s.claimJSON(lk, now), s.mintApplied(), nil
}

// checkWebsite refuses a website mint to address at now, with production's
// words where they are known. The caller holds s.mu.
func (st *state) checkWebsite(sc *secretClaim, address string, now time.Time) error {
	if sc == nil {
		return notFoundError("There is no website claim with this name")
	}
	holder, k := st.resolve(strings.TrimSpace(address))
	switch {
	case sc.kind != secretWebsite:
		return badRequest("Secret words can only be claimed in the POAP app, not through the API")
	case k == kindInvalid:
		return badRequest(msgInvalidAddress)
	case !sc.approved || !sc.active:
		return badRequest("This website claim is not active")
	case now.Before(sc.from):
		return badRequest("This website claim has not started yet")
	case !now.Before(sc.to) || dropExpired(st.drops[sc.eventID], now):
		return badRequest("EVENT_EXPIRED: this website claim has expired")
	case st.holdsDrop(sc.eventID, holder):
		return badRequest(msgAlreadyMinted)
	case sc.claimed >= sc.total:
		return badRequest(msgLimitExceeded)
	}
	return nil
}
