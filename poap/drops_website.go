package poap

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/poapbot/poapbot/core"
)

var _ core.WebsiteIssuer = DropIssuer{}

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
// drop is pending review, a *core.WebsiteExistsError when the drop has a
// website claim (also when the name asked for is the drop's own claim),
// core.ErrClaimNameTaken when another claim has the name,
// core.ErrWrongEditCode, core.ErrInvalidWindow for a window the client
// cannot send, and those of coreError.
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
	case errors.Is(err, ErrSecretExists):
		return fmt.Errorf("%w: %w", &core.WebsiteExistsError{Name: quotedName(err)}, err)
	case errors.Is(err, ErrClaimNameTaken):
		return d.nameTaken(ctx, r, err)
	}
	return coreError(err)
}

// nameTaken is the refusal err of the website claim name r.Name: the
// drop's own claim, as a *core.WebsiteExistsError, when GET /secret/{name}
// says the claim is r.EventID's, else core.ErrClaimNameTaken.
func (d DropIssuer) nameTaken(ctx context.Context, r core.WebsiteRequest, err error) error {
	if s, serr := d.c.Secret(ctx, r.Name); serr == nil && s.EventID == r.EventID {
		return fmt.Errorf("%w: %w", &core.WebsiteExistsError{Name: r.Name}, err)
	}
	return fmt.Errorf("%w: %w", core.ErrClaimNameTaken, err)
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
// core.ErrClaimNotStarted, and those of mintError.
func (d DropIssuer) MintWebsite(ctx context.Context, name, wallet string) (core.WebsiteMint, error) {
	cl, err := d.c.WebsiteClaim(ctx, name, wallet)
	if err == nil {
		return core.WebsiteMint{QRHash: cl.QRHash, TransactionID: cl.TxHash}, nil
	}
	return core.WebsiteMint{}, mintError(err, websiteRefusal)
}

// websiteRefusal is the core sentinel of the refusals only a website
// claim's mint has, or nil.
func websiteRefusal(err error) error {
	var apiErr *APIError
	switch {
	case errors.Is(err, ErrLimitExceeded):
		return core.ErrWebsiteLimit
	case errors.Is(err, ErrNotFound):
		return core.ErrWebsiteInactive
	case !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest:
		return nil
	}
	msg := strings.ToLower(apiErr.Message)
	switch {
	case strings.Contains(msg, "not active"):
		return core.ErrWebsiteInactive
	case strings.Contains(msg, "not started"), strings.Contains(msg, "not yet"):
		return core.ErrClaimNotStarted
	}
	return nil
}

// mintError translates the failure of a mint that is never retried (a
// website claim's, a delivery claim's). A 429 is a *core.BusyError (not
// processed) with the wait the service asked for; an expired drop is
// core.ErrDropExpired, an address holding the drop core.ErrWalletHoldsDrop,
// a refused address core.ErrInvalidWallet; then refusal, the method's own
// reading, gives the sentinel of the refusals only the method has (nil
// when it has none for err); any other 400 is core.ErrMintRefused; the
// rest is coreError's. Only the last match core.ErrNotSent when the call
// never left: a refusal, local or not, would be refused again, and the
// core sends again what was not sent.
func mintError(err error, refusal func(error) error) error {
	var apiErr *APIError
	isAPI := errors.As(err, &apiErr)
	var target error
	switch {
	case errors.Is(err, ErrRateLimited):
		return busyError(err)
	case errors.Is(err, ErrEventExpired):
		target = core.ErrDropExpired
	case errors.Is(err, ErrAlreadyMinted):
		target = core.ErrWalletHoldsDrop
	case errors.Is(err, ErrInvalidAddress):
		target = core.ErrInvalidWallet
	case refusal(err) != nil:
		target = refusal(err)
	case isAPI && apiErr.Status == http.StatusBadRequest:
		// A refusal, so nothing was minted; sending it again would be
		// refused the same way.
		target = core.ErrMintRefused
	default:
		return coreError(err)
	}
	return fmt.Errorf("%w: %w", target, err)
}

// busyError is err, a 429, as a *core.BusyError carrying the wait the
// service asked for.
func busyError(err error) error {
	b := &core.BusyError{}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		b.RetryAfter = apiErr.RetryAfter
	}
	return fmt.Errorf("%w: %w", b, err)
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
