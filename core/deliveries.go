package core

import (
	"context"
	"errors"
	"time"
)

// A delivery is the issuing service's fixed list of addresses that may mint
// a drop, on a page of their own ({delivery_url}/<slug>). The bot builds the
// list from the verified wallets of a role's members (Discord, console) or
// of a group's (Telegram), shows it to the moderator as a draft, and creates
// it when they confirm: from then on /claim mints the drop to the member's
// listed address through the delivery claim. The list cannot change once
// created, at the service as here.

// DeliveryState is where a drop's delivery stands.
type DeliveryState string

// States of a delivery.
const (
	// DeliveryDraft: built and shown to the moderator, not created at the
	// issuing service.
	DeliveryDraft DeliveryState = "draft"
	// DeliveryCreated: created at the issuing service (ServiceID); its list
	// is fixed.
	DeliveryCreated DeliveryState = "created"
)

// DropDelivery is a delivery of a drop.
type DropDelivery struct {
	ID     int64
	DropID int64
	// Source says whom the list was built from: "role:<id>" or
	// "group:<id>".
	Source string
	// Slug is the page's path segment; the texts are shown on the card of
	// the deliveries' main page and on the delivery's page.
	Slug      string
	CardTitle string
	CardText  string
	PageTitle string
	PageText  string
	State     DeliveryState
	// ServiceID is the delivery's id at the issuing service, once created.
	ServiceID int64
	// CreatedBy is the user id of the moderator who built it (0 when gone).
	CreatedBy int64
	// Size is the number of addresses on its list, as read.
	Size      int
	CreatedAt time.Time
	UpdatedAt time.Time
}

// DeliveryEntryState is where a member's claim of their listed address
// stands.
type DeliveryEntryState string

// States of a delivery entry: listed -> claiming -> claimed.
const (
	// EntryListed: not claimed through the chat (yet).
	EntryListed DeliveryEntryState = "listed"
	// EntryClaiming: a /claim holds it; another one waits until
	// DeliveryLease has passed.
	EntryClaiming DeliveryEntryState = "claiming"
	// EntryClaimed: the service took the claim (or said the address had
	// claimed already).
	EntryClaimed DeliveryEntryState = "claimed"
)

// DeliveryEntry is one address of a delivery's list: the member's it was
// taken from, and their claim through the chat.
type DeliveryEntry struct {
	DeliveryID int64
	// Address is lower case.
	Address string
	UserID  int64
	State   DeliveryEntryState
	// Sent is true once a claim request may have reached the service: the
	// next attempt settles it (reads the address's POAPs) before sending
	// again.
	Sent bool
	// QueueUID is the service's id of the mint, once claimed.
	QueueUID string
	// Attempt numbers the claims that took the entry: each take adds one,
	// and only the latest taker's attempt is accepted by MarkDeliverySent
	// and FinishDeliveryClaim, so that a claim whose request outlived
	// DeliveryLease cannot write over the claim that took the entry after.
	Attempt   int
	UpdatedAt time.Time
}

// DeliveryStats counts a delivery's entries by state.
type DeliveryStats struct {
	Listed, Claiming, Claimed int
}

// DeliveryStore keeps drops' deliveries and their lists (storage.DB).
// Methods return ErrNotFound for a missing row.
type DeliveryStore interface {
	// SaveDeliveryDraft stores d (DropID, Source, Slug, texts, CreatedBy,
	// CreatedAt) as a draft with its entries (Address, UserID), in one
	// transaction, deleting the drop's earlier drafts. It returns d with
	// its ID, State and Size.
	SaveDeliveryDraft(ctx context.Context, d DropDelivery, entries []DeliveryEntry) (DropDelivery, error)
	// Delivery returns the delivery with its Size.
	Delivery(ctx context.Context, id int64) (DropDelivery, error)
	// CreatedDelivery returns the drop's created delivery with its Size.
	CreatedDelivery(ctx context.Context, dropID int64) (DropDelivery, error)
	// DeliveryEntries lists the delivery's entries, by address.
	DeliveryEntries(ctx context.Context, id int64) ([]DeliveryEntry, error)
	// MarkDeliveryCreated records that the draft was created at the
	// service as serviceID and makes its drop mint through it (method
	// delivery), in one transaction, and returns the delivery. Marking a
	// delivery created already with the same serviceID changes nothing.
	// ErrDeliveryExists when the drop has another created delivery;
	// ErrNotFound when the draft is gone (replaced by a newer one).
	MarkDeliveryCreated(ctx context.Context, id, serviceID int64, at time.Time) (DropDelivery, error)
	// TakeDeliveryClaim moves the user's entry of the delivery to
	// claiming when it is listed, or claiming since before stale, with
	// one more Attempt: taken is true then. Otherwise it returns the
	// entry as it is, taken false. ErrNotFound when the user is not on
	// the list.
	TakeDeliveryClaim(ctx context.Context, deliveryID, userID int64, now, stale time.Time) (e DeliveryEntry, taken bool, err error)
	// MemberDeliveryEntry returns the user's entry of the delivery.
	// ErrNotFound when the user is not on the list.
	MemberDeliveryEntry(ctx context.Context, deliveryID, userID int64) (DeliveryEntry, error)
	// MarkDeliverySent records that the claim which took the entry
	// (e.DeliveryID, e.Address) as e.Attempt is about to leave.
	// ErrConflict unless the entry is claiming by that attempt.
	MarkDeliverySent(ctx context.Context, e DeliveryEntry, at time.Time) error
	// FinishDeliveryClaim records the outcome of the claim that took the
	// entry as e.Attempt: e.State (listed or claimed), e.Sent, e.QueueUID
	// at e.UpdatedAt. ErrConflict unless the entry is claiming by that
	// attempt: another claim took it since.
	FinishDeliveryClaim(ctx context.Context, e DeliveryEntry) error
	// DeliveryStats counts the delivery's entries by state.
	DeliveryStats(ctx context.Context, id int64) (DeliveryStats, error)
}

// DeliveryRequest is a delivery to create at the issuing service.
type DeliveryRequest struct {
	EventID  int64
	EditCode Secret
	Slug     string
	// Texts and the image of the card and the page.
	CardTitle string
	CardText  string
	PageTitle string
	PageText  string
	Image     string
	// Addresses may each mint the drop once.
	Addresses []string
}

// DeliveryStatus is what the issuing service says of a delivery.
type DeliveryStatus struct {
	ID       int64
	Slug     string
	EventIDs []int64
	Active   bool
	// Claimed of Total addresses have minted (in the chat or on the
	// page).
	Claimed int64
	Total   int64
}

// DeliveryIssuer is what deliveries need of the issuing service
// (poap.DropIssuer), errors translated as DropIssuer's are.
type DeliveryIssuer interface {
	// CreateDelivery creates the delivery and returns its id. Errors:
	// ErrWrongEditCode, ErrSlugTaken, ErrInvalidWallet (an address the
	// service refused), ErrIssuerBusy; on ErrIssuerUnavailable it may or
	// may not have been created, unless the error matches ErrNotSent.
	CreateDelivery(ctx context.Context, r DeliveryRequest) (int64, error)
	// DeliveryBySlug reads the delivery whose page is slug: ErrNotFound
	// when there is none.
	DeliveryBySlug(ctx context.Context, slug string) (DeliveryStatus, error)
	// ClaimDelivery mints the delivery's drops to address (on its list)
	// and returns the service's id of the mint. It is never retried.
	// Errors: ErrWalletHoldsDrop (the address claimed already),
	// ErrNotListed, ErrDropExpired, ErrIssuerBusy (not processed); on
	// ErrIssuerUnavailable the claim may or may not have been taken,
	// unless the error matches ErrNotSent too.
	ClaimDelivery(ctx context.Context, deliveryID int64, address string) (string, error)
	// HoldsReader settles a claim whose answer was lost.
	HoldsReader
}

// Errors of deliveries, inside a *DropError.
var (
	// ErrNotListed means the member (or their address) is not on the
	// drop's delivery list.
	ErrNotListed = errors.New("not on the delivery list")
	// ErrNoDelivery means a drop set to be claimed through its POAP
	// Delivery has no delivery created: nothing can be claimed through it.
	ErrNoDelivery = errors.New("the drop has no delivery created")
	// ErrEmptyDelivery means no member of the role or group has a
	// verified wallet: there is no list to create.
	ErrEmptyDelivery = errors.New("no verified member to deliver to")
	// ErrSlugTaken means another delivery has that page address.
	ErrSlugTaken = errors.New("delivery page address taken")
	// ErrInvalidSlug means a page address that is not 1 to MaxSlug
	// letters, digits, hyphens or underscores.
	ErrInvalidSlug = errors.New("invalid delivery page address")
	// ErrDraftGone means the draft confirmed was replaced by a newer one,
	// or belongs to another drop.
	ErrDraftGone = errors.New("delivery draft replaced")
	// ErrDraftStale means the draft is older than DeliveryDraftTTL, or a
	// member on it unlinked their address or left the bot since: it must
	// be built again.
	ErrDraftStale = errors.New("delivery draft out of date")
	// ErrClaimInProgress means another /claim of the member is being
	// processed.
	ErrClaimInProgress = errors.New("claim in progress")
)

// Limits and timing of deliveries.
const (
	// MaxSlug is the longest delivery page address.
	MaxSlug = 100
	// MaxDeliveryText is the longest title or text of a delivery.
	MaxDeliveryText = 256
	// DeliveryLease is how long a /claim holds its entry: a process that
	// died mid-claim leaves it to the next /claim after that.
	DeliveryLease = 2 * time.Minute
	// DeliveryDraftTTL is how long a draft may be confirmed: the list is
	// fixed for good once created, so it must be a recent one.
	DeliveryDraftTTL = 30 * time.Minute
	// DefaultDeliveryURL is the base of delivery pages unless
	// DropServiceDeps.DeliveryURL names another.
	DefaultDeliveryURL = "https://poap.delivery"
)
