package poap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/internal/transport"
	"github.com/poapbot/poapbot/poap/wire"
)

// Distribution methods of a drop, as redeem requests name them.
const (
	// RedeemQRCode is mint links.
	RedeemQRCode = "qr_code"
	// RedeemSecretWebsite is a website claim.
	RedeemSecretWebsite = "secret_website"
	// RedeemSecretWord is a secret word (mobile app only).
	RedeemSecretWord = "secret_word"
)

// RedeemRequest asks for mint links (or more tokens for another method) for
// a drop; a review body approves it, and the links are then e-mailed and
// readable with MintLinks. One request per method may be pending at a time.
type RedeemRequest struct {
	// EventID is the drop's id.
	EventID int64
	// Count is the number of links asked for (at most wire.MaxRequestedCodes).
	Count int
	// EditCode is the drop's 6-digit secret_code.
	EditCode core.Secret
	// Type is the distribution method; empty means RedeemQRCode.
	Type string
	// NotifyIssuer, when set, says whether the service e-mails the issuer
	// (its default is true).
	NotifyIssuer *bool
}

// RequestMintLinks submits a request for mint links: POST /redeem-requests,
// a protected write. It returns the request's id, for reference. Errors: a
// *FieldError (ErrInvalidInput, ErrInvalidEditCode) before sending; from the
// service ErrRequestPending, ErrInvalidEditCode, ErrNotFound,
// ErrUnauthorized (also without client credentials), ErrRateLimited,
// ErrUnavailable and other answers as *APIError.
func (c *Client) RequestMintLinks(ctx context.Context, in RedeemRequest) (string, error) {
	if in.Type == "" {
		in.Type = RedeemQRCode
	}
	if err := in.validate(); err != nil {
		return "", err
	}
	body, err := jsonBody(struct {
		EventID        int64  `json:"event_id"`
		RequestedCodes int    `json:"requested_codes"`
		SecretCode     string `json:"secret_code"`
		RedeemType     string `json:"redeem_type"`
		NotifyIssuer   *bool  `json:"notify_issuer,omitempty"`
	}{in.EventID, in.Count, in.EditCode.Reveal(), in.Type, in.NotifyIssuer})
	if err != nil {
		return "", err
	}
	var id idJSON
	r := request{
		op: wire.OpRequestMintLinks, method: http.MethodPost, path: "/redeem-requests",
		access: keyAndBearer, audience: c.audience, body: body, contentType: "application/json",
		secrets: []string{in.EditCode.Reveal()},
	}
	if err := c.do(ctx, r, &id); err != nil {
		return "", c.pendingRefusal(ctx, err, in.EventID, in.Type)
	}
	return string(id), nil
}

// pendingRefusal returns err, the failure of a distribution request of
// method redeemType for drop eventID, as ErrRequestPending when it is that
// refusal: a 400 or 409 that matches no other sentinel, while the drop has
// a request of the method pending. The pending count is asked only then; if
// it fails, err is returned as it is.
func (c *Client) pendingRefusal(ctx context.Context, err error, eventID int64, redeemType string) error {
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.badRequest() != nil || apiErr.secretRefusal() != nil ||
		apiErr.Status != http.StatusBadRequest && apiErr.Status != http.StatusConflict {
		return err
	}
	if n, countErr := c.PendingRequests(ctx, eventID, redeemType); countErr != nil || n == 0 {
		return err
	}
	return fmt.Errorf("%w: %w", err, ErrRequestPending)
}

// validate checks a redeem request before anything is sent.
func (in RedeemRequest) validate() error {
	const op = wire.OpRequestMintLinks
	if err := firstError(checkID(op, "event_id", in.EventID), checkRedeemType(op, in.Type)); err != nil {
		return err
	}
	if in.Count < 1 || in.Count > wire.MaxRequestedCodes {
		return fieldError(op, "requested_codes", "%d is not between 1 and %d", in.Count, wire.MaxRequestedCodes)
	}
	return checkEditCode(op, "secret_code", in.EditCode)
}

// checkRedeemType refuses a distribution method the service does not know.
func checkRedeemType(op, t string) error {
	switch t {
	case RedeemQRCode, RedeemSecretWebsite, RedeemSecretWord:
		return nil
	}
	return fieldError(op, "redeem_type", "%q is not qr_code, secret_website or secret_word", transport.Truncate(t, 40))
}

// PendingRequests returns the number of requests of the given method
// (RedeemQRCode...) still under review for drop eventID: GET
// /redeem-requests/active/count. Zero means none is pending, so a new one
// may be submitted or the last one was reviewed. The service documents an
// object {active, type} but production answers an array of them, empty when
// none is pending; both are read. Errors: ErrInvalidInput for an id below 1
// or an unknown method (which the service answers with a 503),
// ErrUnauthorized, ErrRateLimited, ErrUnavailable; answers of the service
// come as *APIError.
func (c *Client) PendingRequests(ctx context.Context, eventID int64, redeemType string) (int, error) {
	const op = wire.OpPendingRequests
	if err := firstError(checkID(op, "event_id", eventID), checkRedeemType(op, redeemType)); err != nil {
		return 0, err
	}
	var counts pendingCounts
	r := request{
		op:         op,
		method:     http.MethodGet,
		path:       "/redeem-requests/active/count",
		query:      url.Values{"event_id": {strconv.FormatInt(eventID, 10)}, "redeem_type": {redeemType}},
		idempotent: true,
	}
	if err := c.do(ctx, r, &counts); err != nil {
		return 0, err
	}
	return counts.total(redeemType), nil
}

// activeCount is the count of pending requests of one method.
type activeCount struct {
	Active flexInt `json:"active"`
	Type   string  `json:"type"`
}

// pendingCounts reads the pending count as an object or an array of them.
type pendingCounts []activeCount

// UnmarshalJSON implements json.Unmarshaler.
func (p *pendingCounts) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		return json.Unmarshal(b, (*[]activeCount)(p))
	}
	var one activeCount
	if err := json.Unmarshal(b, &one); err != nil {
		return err
	}
	*p = pendingCounts{one}
	return nil
}

// total adds up the counts of method t, and those that name no method.
func (p pendingCounts) total(t string) int {
	n := 0
	for _, c := range p {
		if c.Type == "" || c.Type == t {
			n += int(c.Active)
		}
	}
	return n
}
