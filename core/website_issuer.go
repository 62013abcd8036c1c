package core

import (
	"context"
	"errors"
	"time"
)

// Errors of website claims, inside a *DropError.
var (
	// ErrWebsitePending means a request for a website claim of the drop
	// is pending review: one at a time.
	ErrWebsitePending = errors.New("a website request is pending")
	// ErrWebsiteInactive means the drop's website claim is not active: its
	// request is under review, or the issuer paused it.
	ErrWebsiteInactive = errors.New("website claim not active")
	// ErrWebsiteLimit means the website claim minted all it may
	// (LIMIT_EXCEEDED).
	ErrWebsiteLimit = errors.New("website claim limit reached")
)

// WebsiteStatus is what the issuing service says of a website claim.
type WebsiteStatus struct {
	Name    string
	EventID int64
	// Active is false while its request is under review or when the issuer
	// paused it.
	Active bool
	// From and To bound its window; zero when not known.
	From time.Time
	To   time.Time
	// Total is how many it may mint, Claimed how many it minted.
	Total   int64
	Claimed int64
}

// WebsiteRequest asks the issuing service for a website claim of a drop.
type WebsiteRequest struct {
	EventID  int64
	EditCode Secret
	// Name is the path segment of the claim's address.
	Name string
	// Count is how many POAPs it may mint.
	Count int
	// From and To bound its window, as the moderator typed them: hh:mm on
	// the drop's first and last day, or a date and time (UTC unless it
	// names its zone).
	From string
	To   string
}

// WebsiteMint is what a mint through a website claim returned.
type WebsiteMint struct {
	// QRHash is the claim record's code, TransactionID the mint's
	// transaction (either may be empty).
	QRHash        string
	TransactionID string
}

// WebsiteIssuer is what website claims need of the issuing service
// (poap.DropIssuer). Implementations translate errors as
// DropIssuer's do; besides, ErrIssuerBusy when the service refused to
// process a request for now (rate limited), with RetryAfter telling how
// long to wait when it said.
type WebsiteIssuer interface {
	// Website reads the website claim of that name. ErrNoWebsite when
	// there is none.
	Website(ctx context.Context, name string) (WebsiteStatus, error)
	// RequestWebsite asks for a website claim, which the service reviews.
	// ErrWebsitePending when one is pending already, ErrWebsiteExists (a
	// *WebsiteExistsError) when the drop has one, ErrClaimNameTaken,
	// ErrWrongEditCode, an *IssuerRefusal for another refusal.
	RequestWebsite(ctx context.Context, r WebsiteRequest) error
	// PendingWebsiteRequests counts the drop's website requests under
	// review.
	PendingWebsiteRequests(ctx context.Context, eventID int64) (int, error)
	// MintWebsite mints through the website claim name to wallet (an
	// address, ENS name or e-mail). It is never retried. Errors:
	// ErrWebsiteLimit, ErrWebsiteInactive or ErrNoWebsite, ErrDropExpired
	// (the window closed or the drop expired), ErrClaimNotStarted,
	// ErrWalletHoldsDrop, ErrInvalidWallet, ErrIssuerBusy (not processed);
	// on ErrIssuerUnavailable the mint may or may not have happened,
	// unless the error matches ErrNotSent too.
	MintWebsite(ctx context.Context, name, wallet string) (WebsiteMint, error)
	// HoldsReader settles a mint whose answer was lost.
	HoldsReader
}
