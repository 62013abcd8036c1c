package poap

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/poapbot/poapbot/core"
)

var _ core.DistributionIssuer = DropIssuer{}

// Website reads the website claim of that name (GET /secret/{name}).
// Errors: core.ErrNoWebsite for an unknown name or a secret word, and
// those of coreError.
func (d DropIssuer) Website(ctx context.Context, name string) (core.WebsiteStatus, error) {
	s, err := d.c.Secret(ctx, name)
	switch {
	case errors.Is(err, ErrNotFound):
		return core.WebsiteStatus{}, fmt.Errorf("%w: %w", core.ErrNoWebsite, err)
	case err != nil:
		return core.WebsiteStatus{}, coreError(err)
	case s.Type != "" && s.Type != SecretTypeWebsite:
		return core.WebsiteStatus{}, fmt.Errorf("%q is a secret word, not a website: %w", name, core.ErrNoWebsite)
	}
	return core.WebsiteStatus{
		Name: s.ClaimName, EventID: s.EventID, Active: s.Active, From: s.From, To: s.To,
		Total: s.Total, Claimed: s.Claimed,
	}, nil
}

// RequestWebsite asks for a website claim (POST /secret-requests, type
// website). Errors: core.ErrWebsitePending when a website request of the
// drop is pending review, core.ErrWrongEditCode, core.ErrInvalidWindow for
// a window the client cannot send, and those of coreError.
func (d DropIssuer) RequestWebsite(ctx context.Context, r core.WebsiteRequest) error {
	_, err := d.c.CreateSecretRequest(ctx, SecretRequest{
		EventID: r.EventID, EditCode: r.EditCode, ClaimName: r.Name, Type: SecretTypeWebsite,
		From: r.From, To: r.To, Count: r.Count,
	})
	var field *FieldError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrRequestPending):
		return fmt.Errorf("%w: %w", core.ErrWebsitePending, err)
	case errors.As(err, &field) && (field.Field == "from" || field.Field == "to"):
		return fmt.Errorf("%w: %w", core.ErrInvalidWindow, err)
	}
	return coreError(err)
}

// PendingWebsiteRequests counts the drop's website requests under review
// (GET /redeem-requests/active/count). Errors: those of coreError.
func (d DropIssuer) PendingWebsiteRequests(ctx context.Context, eventID int64) (int, error) {
	n, err := d.c.PendingRequests(ctx, eventID, RedeemSecretWebsite)
	if err != nil {
		return 0, coreError(err)
	}
	return n, nil
}

// MintWebsite mints through the website claim name to wallet (POST
// /website/claim), never retried. Errors: core.ErrWebsiteLimit
// (LIMIT_EXCEEDED), core.ErrWebsiteInactive (an unknown or inactive name),
// core.ErrClaimNotStarted, core.ErrDropExpired, core.ErrWalletHoldsDrop,
// core.ErrInvalidWallet, a *core.BusyError for a 429 (not processed), and
// those of coreError; any other refusal is core.ErrMintRefused.
func (d DropIssuer) MintWebsite(ctx context.Context, name, wallet string) (core.WebsiteMint, error) {
	cl, err := d.c.WebsiteClaim(ctx, name, wallet)
	if err == nil {
		return core.WebsiteMint{QRHash: cl.QRHash, TransactionID: cl.TxHash}, nil
	}
	return core.WebsiteMint{}, mintError(err)
}

// mintError translates the refusals of a website claim's mint.
func mintError(err error) error {
	var apiErr *APIError
	isAPI := errors.As(err, &apiErr)
	var target error
	switch {
	case errors.Is(err, ErrRateLimited):
		b := &core.BusyError{}
		if isAPI {
			b.RetryAfter = apiErr.RetryAfter
		}
		return fmt.Errorf("%w: %w", b, err)
	case errors.Is(err, ErrLimitExceeded):
		target = core.ErrWebsiteLimit
	case errors.Is(err, ErrEventExpired):
		target = core.ErrDropExpired
	case errors.Is(err, ErrAlreadyMinted):
		target = core.ErrWalletHoldsDrop
	case errors.Is(err, ErrInvalidAddress):
		target = core.ErrInvalidWallet
	case errors.Is(err, ErrNotFound):
		target = core.ErrWebsiteInactive
	case isAPI && apiErr.Status == 400:
		msg := strings.ToLower(apiErr.Message)
		switch {
		case strings.Contains(msg, "not active"):
			target = core.ErrWebsiteInactive
		case strings.Contains(msg, "not started"), strings.Contains(msg, "not yet"):
			target = core.ErrClaimNotStarted
		default:
			// A refusal, so nothing was minted; sending it again would be
			// refused the same way.
			target = core.ErrMintRefused
		}
	default:
		return coreError(err)
	}
	return fmt.Errorf("%w: %w", target, err)
}

// Holds reports whether wallet holds a POAP of the drop (GET
// /actions/scan/{address}/{eventId}). Errors: those of coreError.
func (d DropIssuer) Holds(ctx context.Context, wallet string, eventID int64) (bool, error) {
	_, err := d.c.ScanEvent(ctx, wallet, eventID)
	switch {
	case errors.Is(err, ErrNotFound):
		return false, nil
	case err != nil:
		return false, coreError(err)
	}
	return true, nil
}
