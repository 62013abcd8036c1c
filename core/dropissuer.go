package core

import (
	"context"
	"strings"
	"time"
)

// DropIssuer is what drops and claims need from the issuing service.
// Implementations translate their errors into the core's sentinels:
// ErrIssuerUnavailable when the service cannot answer (also on a timeout),
// ErrIssuerRejected when it refuses the bot's credentials, and ErrNotSent
// besides either when the call never reached the service.
type DropIssuer interface {
	// ValidateEditCode reports whether code is the edit code of drop
	// eventID; a wrong code is false without error. ErrUnknownEvent when
	// the service knows no such drop.
	ValidateEditCode(ctx context.Context, eventID int64, code Secret) (bool, error)
	// DropDetails reads the drop's name, artwork and expiry.
	// ErrUnknownEvent when the service knows no such drop.
	DropDetails(ctx context.Context, eventID int64) (DropDetails, error)
	// MintLinks lists every mint link of the drop and whether each is
	// claimed. ErrWrongEditCode when the service refuses code.
	MintLinks(ctx context.Context, eventID int64, code Secret) ([]ImportedMintLink, error)
	// ClaimStatus reads whether the link was used, and by whom.
	ClaimStatus(ctx context.Context, qrHash string) (MintLinkStatus, error)
	// Mint mints the link's POAP to wallet (an address, ENS name or
	// e-mail) and returns the service's transaction id, or "" when it gave
	// none. It is never retried: on ErrIssuerUnavailable the mint may or
	// may not have happened, and only ClaimStatus can tell, unless the
	// error matches ErrNotSent: then it did not. Errors:
	// ErrMintLinkClaimed, ErrMintLinkExpired, ErrWalletHoldsDrop, ErrInvalidWallet.
	Mint(ctx context.Context, qrHash, wallet string) (transactionID string, err error)
	// RequestMintLinks asks for count more mint links, which the service
	// reviews. ErrTopUpPending when a request is pending already,
	// ErrWrongEditCode when code is refused.
	RequestMintLinks(ctx context.Context, eventID int64, code Secret, count int) error
	// PendingMintLinkRequests counts the drop's requests for mint links
	// still under review.
	PendingMintLinkRequests(ctx context.Context, eventID int64) (int, error)
}

// DropDetails is what the issuing service says about a drop.
type DropDetails struct {
	Name     string
	ImageURL string
	// ExpiresAt is the first instant no mint is possible; zero when the
	// drop does not expire.
	ExpiresAt time.Time
}

// MintLinkStatus is a mint link's claim record at the issuing service.
type MintLinkStatus struct {
	Claimed bool
	// Active is false once the link expired.
	Active bool
	// Beneficiary is the address or e-mail the POAP went to, Input what
	// was typed to mint it (an ENS name, say).
	Beneficiary string
	Input       string
}

// ClaimedBy reports whether the link was claimed for wallet.
func (st MintLinkStatus) ClaimedBy(wallet string) bool {
	w := strings.TrimSpace(wallet)
	return st.Claimed && w != "" &&
		(strings.EqualFold(strings.TrimSpace(st.Beneficiary), w) || strings.EqualFold(strings.TrimSpace(st.Input), w))
}

// HoldsReader reads whether a wallet holds a drop's POAP, to settle a mint
// or a claim whose answer was lost.
type HoldsReader interface {
	// Holds reports whether wallet (an address, ENS name or e-mail) holds
	// a POAP of the drop.
	Holds(ctx context.Context, wallet string, eventID int64) (bool, error)
}
