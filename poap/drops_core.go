package poap

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
)

// DropIssuer is the client in the terms of core.DropIssuer and
// core.DeliveryIssuer: the drop, mint link, mint and delivery calls that
// drops and claims need, with the client's errors translated into the
// core's sentinels (the poap sentinel stays reachable).
// It is a type of its own because the client's methods of the same names
// take and return the service's shapes.
type DropIssuer struct {
	c *Client
}

var _ core.DropIssuer = DropIssuer{}

// NewDropIssuer returns c as a core.DropIssuer.
func NewDropIssuer(c *Client) DropIssuer { return DropIssuer{c: c} }

// ValidateEditCode reports whether code is the edit code of drop eventID
// (POST /event/validate). A wrong code, or one that is not 6 digits, is
// false without error. Errors: core.ErrUnknownEvent, and those of
// coreError.
func (d DropIssuer) ValidateEditCode(ctx context.Context, eventID int64, code core.Secret) (bool, error) {
	ok, err := d.c.ValidateEditCode(ctx, eventID, code)
	if err != nil {
		return false, coreError(err)
	}
	return ok, nil
}

// DropDetails reads the drop's name, artwork and expiry (GET
// /events/id/{id}). The drop expires at the end of its expiry day, in UTC.
// Errors: core.ErrUnknownEvent, and those of coreError.
func (d DropIssuer) DropDetails(ctx context.Context, eventID int64) (core.DropDetails, error) {
	drop, err := d.c.Drop(ctx, eventID)
	if err != nil {
		return core.DropDetails{}, coreError(err)
	}
	out := core.DropDetails{Name: drop.Name, ImageURL: drop.ImageURL}
	if out.ImageURL == "" {
		out.ImageURL = drop.Image.URL(ImageOriginal)
	}
	if !drop.ExpiryDate.IsZero() {
		out.ExpiresAt = drop.ExpiryDate.In(time.UTC).AddDate(0, 0, 1)
	}
	return out, nil
}

// MintLinks lists the drop's mint links (POST /event/{id}/qr-codes).
// Errors: core.ErrWrongEditCode, core.ErrUnknownEvent, and those of
// coreError.
func (d DropIssuer) MintLinks(ctx context.Context, eventID int64, code core.Secret) ([]core.ImportedMintLink, error) {
	links, err := d.c.MintLinks(ctx, eventID, code)
	if err != nil {
		return nil, coreError(err)
	}
	out := make([]core.ImportedMintLink, 0, len(links))
	for _, l := range links {
		if h := strings.TrimSpace(l.QRHash); h != "" {
			out = append(out, core.ImportedMintLink{QRHash: h, Claimed: l.Claimed})
		}
	}
	return out, nil
}

// ClaimStatus reads the mint link's claim record (GET /actions/claim-qr).
// An unknown link is an error wrapping core.ErrIssuerUnavailable, like every
// failure but a refused key (core.ErrIssuerRejected).
func (d DropIssuer) ClaimStatus(ctx context.Context, qrHash string) (core.MintLinkStatus, error) {
	cl, err := d.c.ClaimStatus(ctx, qrHash)
	if err != nil {
		return core.MintLinkStatus{}, coreError(err)
	}
	return core.MintLinkStatus{Claimed: cl.Claimed, Active: cl.IsActive, Beneficiary: cl.Beneficiary, Input: cl.UserInput}, nil
}

// Mint mints the link's POAP to wallet with Mint: a status read, then POST
// /actions/claim-qr, which is never retried. An e-mail gets the service's
// e-mail. It returns the transaction request id (or the older queue uid).
// Errors: core.ErrMintLinkClaimed, core.ErrMintLinkExpired, core.ErrWalletHoldsDrop,
// core.ErrInvalidWallet, and those of coreError; on core.ErrIssuerUnavailable
// the mint may have happened, unless the error matches core.ErrNotSent too.
func (d DropIssuer) Mint(ctx context.Context, qrHash, wallet string) (string, error) {
	res, err := d.c.Mint(ctx, MintInput{QRHash: qrHash, Address: wallet, SendEmail: strings.Contains(wallet, "@")})
	if err != nil {
		return "", coreError(err)
	}
	if res.TransactionRequestID != 0 {
		return strconv.FormatInt(res.TransactionRequestID, 10), nil
	}
	return res.QueueUID, nil
}

// RequestMintLinks asks for count more mint links (POST /redeem-requests).
// Errors: core.ErrTopUpPending when one is pending already (ErrRequestPending),
// core.ErrWrongEditCode, and those of coreError.
func (d DropIssuer) RequestMintLinks(ctx context.Context, eventID int64, code core.Secret, count int) error {
	if _, err := d.c.RequestMintLinks(ctx, RedeemRequest{EventID: eventID, Count: count, EditCode: code}); err != nil {
		return coreError(err)
	}
	return nil
}

// PendingMintLinkRequests counts the drop's mint-link requests under
// review (GET /redeem-requests/active/count). Errors: those of coreError.
func (d DropIssuer) PendingMintLinkRequests(ctx context.Context, eventID int64) (int, error) {
	n, err := d.c.PendingRequests(ctx, eventID, RedeemQRCode)
	if err != nil {
		return 0, coreError(err)
	}
	return n, nil
}

// coreError translates a client error of the drop calls into the core's
// sentinels, keeping the original reachable: the refusals each have their
// own (a pending request is core.ErrTopUpPending), an unknown drop (or an
// id below 1) is core.ErrUnknownEvent, a refused key is
// core.ErrIssuerRejected, a cancelled ctx stays context.Canceled only, any
// other 4xx refusal a *core.IssuerRefusal (core.ErrIssuerRefused), a 429
// a *core.BusyError, and every other failure (rate limiting, 5xx,
// timeouts, lost answers, unknown answers) is core.ErrIssuerUnavailable. A call that never reached the
// service (ErrNotSent) also matches core.ErrNotSent.
func coreError(err error) error {
	translated := coreSentinel(err)
	if errors.Is(err, ErrNotSent) {
		return fmt.Errorf("%w: %w", core.ErrNotSent, translated)
	}
	return translated
}

// coreSentinel is coreError but for ErrNotSent.
func coreSentinel(err error) error {
	var target error
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, ErrRequestPending):
		target = core.ErrTopUpPending
	case errors.Is(err, ErrInvalidEditCode):
		target = core.ErrWrongEditCode
	case errors.Is(err, ErrQRClaimed):
		target = core.ErrMintLinkClaimed
	case errors.Is(err, ErrQRExpired), errors.Is(err, ErrEventExpired):
		target = core.ErrMintLinkExpired
	case errors.Is(err, ErrAlreadyMinted):
		target = core.ErrWalletHoldsDrop
	case errors.Is(err, ErrInvalidAddress):
		target = core.ErrInvalidWallet
	case errors.Is(err, ErrUnauthorized):
		target = core.ErrIssuerRejected
	case (errors.Is(err, ErrNotFound) || errors.Is(err, ErrInvalidInput)) && !isClaimOp(err):
		target = core.ErrUnknownEvent
	default:
		return otherError(err)
	}
	return fmt.Errorf("%w: %w", target, err)
}

// otherError translates a failure no sentinel of the caller's names: a
// refusal (see refusal) is a *core.IssuerRefusal, a 429 a *core.BusyError
// that also matches core.ErrIssuerUnavailable (the service may take the
// same request in a moment), and the rest core.ErrIssuerUnavailable.
func otherError(err error) error {
	if r := refusal(err); r != nil {
		return fmt.Errorf("%w: %w", r, err)
	}
	if errors.Is(err, ErrRateLimited) {
		return fmt.Errorf("%w: %w", core.ErrIssuerUnavailable, busyError(err))
	}
	return fmt.Errorf("%w: %w", core.ErrIssuerUnavailable, err)
}

// isClaimOp reports whether err comes from a mint link operation, whose
// "not found" is about the link, not the drop.
func isClaimOp(err error) bool {
	var apiErr *APIError
	var fieldErr *FieldError
	switch {
	case errors.As(err, &apiErr):
		return mintOperations[apiErr.Operation]
	case errors.As(err, &fieldErr):
		return mintOperations[fieldErr.Operation]
	}
	return false
}
