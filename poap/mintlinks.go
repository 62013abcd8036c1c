package poap

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/wire"
)

// MintLink is one of a drop's mint links: the six-character code of
// {mint_link_base}/mint/<qr_hash> and whether it was used.
type MintLink struct {
	QRHash  string `json:"qr_hash"`
	Claimed bool   `json:"claimed"`
}

// MintLinks lists the mint links of drop eventID and whether each is
// claimed: POST /event/{id}/qr-codes, a protected read that carries the
// drop's edit code. Links exist only once a mint-link request was approved.
// Errors: ErrInvalidEditCode for a code that is not 6 digits (before
// sending) or that the service refuses, ErrInvalidInput for an id below 1,
// ErrNotFound, ErrUnauthorized (also without client credentials),
// ErrRateLimited, ErrUnavailable; answers of the service come as *APIError.
func (c *Client) MintLinks(ctx context.Context, eventID int64, editCode core.Secret) ([]MintLink, error) {
	err := firstError(checkID(wire.OpMintLinks, "id", eventID), checkEditCode(wire.OpMintLinks, "secret_code", editCode))
	if err != nil {
		return nil, err
	}
	body, err := jsonBody(struct {
		SecretCode string `json:"secret_code"`
	}{editCode.Reveal()})
	if err != nil {
		return nil, err
	}
	var links []MintLink
	r := request{
		op:          wire.OpMintLinks,
		method:      http.MethodPost,
		path:        "/event/" + strconv.FormatInt(eventID, 10) + "/qr-codes",
		access:      keyAndBearer,
		audience:    c.audience,
		body:        body,
		contentType: "application/json",
		idempotent:  true, // a read sent as POST to keep the code out of the URL
		secrets:     []string{editCode.Reveal()},
	}
	if err := c.do(ctx, r, &links); err != nil {
		return nil, err
	}
	return links, nil
}

// ValidateEditCode reports whether code is the edit code of drop eventID:
// POST /event/validate, a protected read. A wrong code gives false and no
// error, whether the service answers {"valid": false} or 400
// INVALID_SECRET_CODE, or the code is not 6 digits (then nothing is sent).
// Errors: ErrInvalidInput for an id below 1, ErrNotFound, ErrUnauthorized
// (also without client credentials), ErrRateLimited, ErrUnavailable; answers
// of the service come as *APIError.
func (c *Client) ValidateEditCode(ctx context.Context, eventID int64, code core.Secret) (bool, error) {
	if err := checkID(wire.OpValidateEditCode, "event_id", eventID); err != nil {
		return false, err
	}
	if checkEditCode(wire.OpValidateEditCode, "secret_code", code) != nil {
		return false, nil
	}
	body, err := jsonBody(struct {
		EventID    int64  `json:"event_id"`
		SecretCode string `json:"secret_code"`
	}{eventID, code.Reveal()})
	if err != nil {
		return false, err
	}
	var out struct {
		Valid bool `json:"valid"`
	}
	r := request{
		op:          wire.OpValidateEditCode,
		method:      http.MethodPost,
		path:        "/event/validate",
		access:      keyAndBearer,
		audience:    c.audience,
		body:        body,
		contentType: "application/json",
		idempotent:  true, // a read sent as POST
		secrets:     []string{code.Reveal()},
	}
	err = c.do(ctx, r, &out)
	var apiErr *APIError
	if errors.As(err, &apiErr) && errors.Is(apiErr, ErrInvalidEditCode) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return out.Valid, nil
}
