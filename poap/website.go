package poap

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/internal/transport"
	"github.com/poapbot/poapbot/poap/wire"
)

// Kinds of secret request (secret_type).
const (
	// SecretTypeWebsite is a website claim at {website_url}/<claim_name>,
	// which WebsiteClaim can mint through.
	SecretTypeWebsite = "website"
	// SecretTypeWord is a secret word, redeemable only in the mobile app.
	// The OpenAPI definition and GET /secret/{secret_word} call it "word";
	// the interface's table says "secret", which is accepted too.
	SecretTypeWord = "word"
)

// SecretRequest is a secret-word or website distribution of a drop, the body
// of POST and PUT /secret-requests.
type SecretRequest struct {
	// EventID is the drop's id.
	EventID int64
	// EditCode is the drop's 6-digit secret_code.
	EditCode core.Secret
	// ClaimName is the secret word, or the path segment of the website
	// address; a generated phrase such as "increase-group-student" resists
	// guessing.
	ClaimName string
	// Type is SecretTypeWebsite or SecretTypeWord.
	Type string
	// From and To bound the distribution window, as the member gave them:
	// hh:mm (the interface's format), on the drop's start day for From and
	// its end day for To; a date and time without a zone, such as
	// 2022-07-18T00:01, 2022-07-18T00:01:00.000 (the OpenAPI definition's
	// example) or 2022-07-18 00:01; or an RFC 3339 date-time with its
	// offset. They are sent as RFC 3339 date-times in UTC, as the OpenAPI
	// definition asks (see window).
	From string
	To   string
	// Location is the zone of bounds given without one (hh:mm and
	// zone-less date-times); nil means UTC, which the timezone 0 sent with
	// every request has always meant.
	Location *time.Location
	// Count is the number of tokens planned (requested_codes); on an edit,
	// when above zero, the number accepted (accepted_redeems).
	Count int
}

// CreateSecretRequest submits a secret-word or website distribution for
// review: POST /secret-requests, an open, rate-limited write, sent with
// timezone 0, captcha and active true as the interface asks. A window given
// as hh:mm is first placed on the drop's days (GET /events/id/{id}). It
// returns the request's id. Errors: a *FieldError (ErrInvalidInput,
// ErrInvalidEditCode) before sending, also for a window whose end is not
// after its start; from the service ErrRequestPending, ErrInvalidEditCode,
// ErrNotFound (an unknown drop, for an hh:mm window), ErrRateLimited,
// ErrUnauthorized, ErrUnavailable and other answers as *APIError.
func (c *Client) CreateSecretRequest(ctx context.Context, in SecretRequest) (string, error) {
	const op = wire.OpCreateSecretRequest
	if err := in.validate(op); err != nil {
		return "", err
	}
	if in.Count < 1 {
		return "", fieldError(op, "requested_codes", "%d is below 1", in.Count)
	}
	payload, err := c.secretPayload(ctx, op, in)
	if err != nil {
		return "", err
	}
	captcha := true
	payload.RequestedCodes, payload.Captcha, payload.Active = in.Count, &captcha, true
	body, err := jsonBody(payload)
	if err != nil {
		return "", err
	}
	var id idJSON
	r := request{op: op, method: http.MethodPost, path: "/secret-requests", body: body, contentType: "application/json",
		secrets: []string{in.EditCode.Reveal()}}
	if err := c.do(ctx, r, &id); err != nil {
		return "", c.pendingRefusal(ctx, err, in.EventID, in.redeemType())
	}
	return string(id), nil
}

// redeemType is the distribution method of the request, as redeem requests
// and the pending count name it.
func (in SecretRequest) redeemType() string {
	if in.Type == SecretTypeWebsite {
		return RedeemSecretWebsite
	}
	return RedeemSecretWord
}

// EditSecretRequest changes the secret request of in.EventID named
// in.ClaimName: PUT /secret-requests, an open, rate-limited write (without
// captcha, which this operation dropped in 2022), with the whole window, as
// the OpenAPI definition requires. active false pauses the distribution.
// Errors: those of CreateSecretRequest.
func (c *Client) EditSecretRequest(ctx context.Context, in SecretRequest, active bool) error {
	const op = wire.OpEditSecretRequest
	if err := in.validate(op); err != nil {
		return err
	}
	payload, err := c.secretPayload(ctx, op, in)
	if err != nil {
		return err
	}
	payload.Active = active
	if in.Count > 0 {
		payload.AcceptedRedeems = in.Count
	}
	body, err := jsonBody(payload)
	if err != nil {
		return err
	}
	r := request{op: op, method: http.MethodPut, path: "/secret-requests", body: body, contentType: "application/json", emptyOK: true,
		secrets: []string{in.EditCode.Reveal()}}
	return c.do(ctx, r, nil)
}

// secretRequestJSON is the body of POST and PUT /secret-requests.
type secretRequestJSON struct {
	EventID         int64  `json:"event_id"`
	RequestedCodes  int    `json:"requested_codes,omitempty"`
	AcceptedRedeems int    `json:"accepted_redeems,omitempty"`
	SecretCode      string `json:"secret_code"`
	ClaimName       string `json:"claim_name"`
	From            string `json:"from"`
	To              string `json:"to"`
	Timezone        int    `json:"timezone"`
	Captcha         *bool  `json:"captcha,omitempty"`
	Active          bool   `json:"active"`
	SecretType      string `json:"secret_type"`
}

// secretPayload returns the fields both operations send, the window
// resolved (see window).
func (c *Client) secretPayload(ctx context.Context, op string, in SecretRequest) (secretRequestJSON, error) {
	from, to, err := c.window(ctx, op, in)
	if err != nil {
		return secretRequestJSON{}, err
	}
	return secretRequestJSON{
		EventID: in.EventID, SecretCode: in.EditCode.Reveal(), ClaimName: strings.TrimSpace(in.ClaimName),
		From: from.Format(time.RFC3339), To: to.Format(time.RFC3339), SecretType: in.Type,
	}, nil
}

// validate checks a secret request before anything is sent.
func (in SecretRequest) validate(op string) error {
	err := firstError(
		checkID(op, "event_id", in.EventID),
		checkRequired(op, "claim_name", in.ClaimName),
		checkBound(op, "from", in.From),
		checkBound(op, "to", in.To),
		checkEditCode(op, "secret_code", in.EditCode))
	if err != nil {
		return err
	}
	switch in.Type {
	case SecretTypeWebsite, SecretTypeWord, "secret":
		return nil
	}
	return fieldError(op, "secret_type", "%q is not website or word", transport.Truncate(in.Type, 40))
}

// WebsiteClaim mints the POAP of the website claim named website to address
// (a 0x address or ENS name): POST /website/claim, an open, rate-limited
// write; it is not retried. It returns the claim record, like ClaimStatus.
// Secret words cannot be claimed this way. Errors: ErrLimitExceeded when no
// mints are left, ErrEventExpired, ErrNotFound for an unknown or inactive
// name (400 INVALID_SECRET), ErrAlreadyMinted, ErrInvalidAddress (also for
// an empty address, before sending), ErrInvalidInput, ErrRateLimited,
// ErrUnauthorized, ErrUnavailable; answers of the service come as *APIError.
func (c *Client) WebsiteClaim(ctx context.Context, website, address string) (Claim, error) {
	const op = wire.OpWebsiteClaim
	if err := firstError(checkRequired(op, "website", website), checkRequired(op, "address", address)); err != nil {
		return Claim{}, err
	}
	body, err := jsonBody(struct {
		Website string `json:"website"`
		Address string `json:"address"`
	}{strings.TrimSpace(website), strings.TrimSpace(address)})
	if err != nil {
		return Claim{}, err
	}
	var cl Claim
	r := request{op: op, method: http.MethodPost, path: "/website/claim", body: body, contentType: "application/json"}
	if err := c.do(ctx, r, &cl); err != nil {
		return Claim{}, err
	}
	return cl, nil
}

// SecretClaim is a secret word's or website's claim record, as GET
// /secret/{secret_word} returns it. The published schema and what production
// returns differ, so every field may be zero.
type SecretClaim struct {
	ID      int64
	EventID int64
	Event   Drop
	// ClaimName is the word or the website's path segment.
	ClaimName string
	// Type is "word" or "website".
	Type   string
	Active bool
	// From and To bound the distribution window, in UTC.
	From time.Time
	To   time.Time
	// Timezone is the window's UTC offset as the service writes it.
	Timezone string
	// Total is the number of tokens the claim may mint, Claimed how many
	// were minted.
	Total       int64
	Claimed     int64
	CreatedDate time.Time
	// CollectorsGame says whether the collectors' game is enabled.
	CollectorsGame bool
}

// UnmarshalJSON reads the record leniently: "claimed" (the OpenAPI name) or
// "claimed_count" (seen live), dates in any known form or not at all.
func (s *SecretClaim) UnmarshalJSON(b []byte) error {
	var w struct {
		ID             flexInt    `json:"id"`
		EventID        flexInt    `json:"event_id"`
		Event          Drop       `json:"event"`
		ClaimName      string     `json:"claim_name"`
		Type           string     `json:"type"`
		Active         flexBool   `json:"active"`
		From           looseTime  `json:"from"`
		To             looseTime  `json:"to"`
		Timezone       flexString `json:"timezone"`
		Total          flexInt    `json:"total"`
		Claimed        flexInt    `json:"claimed"`
		ClaimedCount   flexInt    `json:"claimed_count"`
		CreatedDate    looseTime  `json:"created_date"`
		CollectorsGame flexBool   `json:"is_collectors_game_enabled"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = SecretClaim{
		ID: int64(w.ID), EventID: int64(w.EventID), Event: w.Event, ClaimName: w.ClaimName, Type: w.Type,
		Active: bool(w.Active), From: w.From.Time, To: w.To.Time, Timezone: string(w.Timezone),
		Total: int64(w.Total), Claimed: int64(max(w.Claimed, w.ClaimedCount)),
		CreatedDate: w.CreatedDate.Time, CollectorsGame: bool(w.CollectorsGame),
	}
	return nil
}

// Secret reads the claim record of a secret word or website claim name:
// GET /secret/{secret_word}, a protected read. Errors: ErrNotFound for an
// unknown word, ErrInvalidInput for an empty one, ErrUnauthorized (also
// without client credentials), ErrRateLimited, ErrUnavailable; answers of
// the service come as *APIError. The word travels as one escaped path
// segment; "." and "..", which no escaping keeps one (a server or proxy on
// the way resolves them, also as %2E%2E), are refused with ErrInvalidInput
// before any request.
func (c *Client) Secret(ctx context.Context, word string) (SecretClaim, error) {
	if err := firstError(checkRequired(wire.OpSecret, "secret_word", word), checkSegment(wire.OpSecret, "secret_word", word)); err != nil {
		return SecretClaim{}, err
	}
	var s SecretClaim
	r := request{
		op: wire.OpSecret, method: http.MethodGet, path: "/secret/" + pathSegment(strings.TrimSpace(word)),
		access: keyAndBearer, audience: c.audience, idempotent: true,
	}
	if err := c.do(ctx, r, &s); err != nil {
		return SecretClaim{}, err
	}
	return s, nil
}

// checkSegment refuses a value that is a dot segment once trimmed: sent as
// a path segment, "." or ".." would name another resource (RFC 3986,
// 5.2.4), however it is escaped. Every other value is escaped by
// pathSegment.
func checkSegment(op, field, value string) error {
	if v := strings.TrimSpace(value); v == "." || v == ".." {
		return fieldError(op, field, "%q is a dot segment, not a name", v)
	}
	return nil
}
