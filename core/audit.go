package core

import (
	"context"
	"time"
)

// AuditEntry is one line of the audit log: who did what, where, and when.
type AuditEntry struct {
	ID        int64
	PlaceID   *int64
	UserID    *int64
	Action    string
	Detail    string
	CreatedAt time.Time
}

// AuditLog keeps the audit log.
type AuditLog interface {
	// Audit appends an entry to the audit log.
	Audit(ctx context.Context, e AuditEntry) error
}

// The actions of the audit log written by drops and claims. Details name
// drops by event id and links by their number, never by mint link, edit code
// or a member's name.
const (
	AuditDropAdded         = "drop added"
	AuditDropAddedAgain    = "drop added again"
	AuditDropEdited        = "drop edited"
	AuditDropRemoved       = "drop removed"
	AuditDropRefreshed     = "drop links imported"
	AuditTopUpRequested    = "drop top-up requested"
	AuditDropExported      = "drop exported"
	AuditMintLinkHandedOut = "mint link handed out"
	AuditMinted            = "poap minted"
	AuditMintFailed        = "mint failed"
	AuditMintPending       = "mint unconfirmed"
	AuditClaimedElsewhere  = "mint link claimed elsewhere"
	AuditWebsiteQueued     = "website claim queued"
	AuditWebsiteRequested  = "website claim requested"
	AuditNetworkSet        = "drop network set"
	AuditDeliveryCreated   = "delivery created"
)

// AuditDropDistributed is the audit action of /distribute.
const AuditDropDistributed = "drop distributed"

// The actions of the audit log written by gating.
const (
	AuditGateAdded   = "gate added"
	AuditGateRemoved = "gate removed"
	AuditGatePaused  = "gate paused"
	AuditGateResumed = "gate resumed"
)

// The actions of the audit log written by linking. Details never hold a
// signature, a nonce or a member's name.
const (
	AuditWalletLinked    = "wallet linked"
	AuditWalletVerified  = "wallet verified"
	AuditWalletMoved     = "wallet moved"
	AuditWalletUnlinked  = "wallet unlinked"
	AuditMemberForgotten = "member forgotten"
)
