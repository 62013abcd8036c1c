package core

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// ClaimMethod says how members claim a drop: through its mint links
// (auto, link, mint), its website claim, or its POAP Delivery.
type ClaimMethod string

// Claim methods of a drop through its mint links.
const (
	// ClaimAuto mints to the member's primary wallet when one is linked,
	// else hands out the member's mint link.
	ClaimAuto ClaimMethod = "auto"
	// ClaimLink always hands out the member's mint link.
	ClaimLink ClaimMethod = "link"
	// ClaimMint always mints; members without a linked wallet are told
	// to link one.
	ClaimMint ClaimMethod = "mint"
)

// Claim methods of a drop that go another way than its mint links.
const (
	// ClaimWebsite mints to the member's primary wallet through the
	// drop's website claim (Drop.Website), queued because the service's
	// endpoint is rate limited.
	ClaimWebsite ClaimMethod = "website"
	// ClaimDelivery mints to the member's listed address through the
	// drop's POAP Delivery (a fixed list of addresses, see DropDelivery).
	ClaimDelivery ClaimMethod = "delivery"
)

// UsesLinks reports whether the method hands out or mints the drop's mint
// links (auto, link, mint).
func (m ClaimMethod) UsesLinks() bool {
	return m == ClaimAuto || m == ClaimLink || m == ClaimMint
}

// Drop is a POAP drop registered in a place (a Discord server, a Telegram
// chat, the console). EventID is the issuing service's drop id.
type Drop struct {
	ID       int64
	PlaceID  int64
	EventID  int64
	Name     string
	ImageURL string
	// EditCode is the drop's 6-digit secret_code; storage keeps it
	// encrypted.
	EditCode Secret
	Method   ClaimMethod
	// Website is the name of the drop's website claim, for ClaimWebsite
	// ({website_url}/<name>); WebsiteRequestedAt is when the bot asked the
	// issuing service for it (nil when the moderator brought one the drop
	// had).
	Website            string
	WebsiteRequestedAt *time.Time
	// Chain is the chain id of the network the drop mints on, as last
	// read or set; zero when not read yet.
	Chain int64
	// Starts and Ends bound the claim window; nil means open.
	Starts *time.Time
	Ends   *time.Time
	// Codeword, when set, must be given with /claim (compared without
	// regard to case and surrounding space).
	Codeword string
	// RequiredRole is a Discord role id, or on Telegram the chat whose
	// membership is required; empty means none.
	RequiredRole string
	// ExpiresAt is the drop's expiry at the issuing service: no mint after.
	ExpiresAt time.Time
	// LowStock is the number of available links under which moderators
	// are told, once.
	LowStock int
	// RemovedAt is set when moderators stopped the drop.
	RemovedAt *time.Time
	CreatedBy int64
	CreatedAt time.Time
}

// Change is one setting of a drop edit: Set says it was given, To is its
// new value, the zero value clearing it (no bound, no codeword, no role).
type Change[T any] struct {
	Set bool
	To  T
}

// DropEdit are the settings /drop edit changes; those not Set stay.
type DropEdit struct {
	EventID int64
	Starts  Change[*time.Time]
	Ends    Change[*time.Time]
	// Codeword and RequiredRole: an empty To removes them.
	Codeword     Change[string]
	RequiredRole Change[string]
	// Method is auto, link, mint or website; Website names the website
	// claim of ClaimWebsite.
	Method  Change[ClaimMethod]
	Website string
	// LowStock: as AddDropOptions.LowStock, zero is DefaultLowStock and
	// negative never (stored as 0).
	LowStock Change[int]
}

// Empty reports whether e changes nothing.
func (e DropEdit) Empty() bool {
	return !e.Starts.Set && !e.Ends.Set && !e.Codeword.Set && !e.RequiredRole.Set && !e.Method.Set && !e.LowStock.Set
}

// MintLinkState is where a mint link is in its life.
type MintLinkState string

// States of a mint link.
const (
	// MintLinkAvailable: imported, not handed out.
	MintLinkAvailable MintLinkState = "available"
	// MintLinkHandedOut: given to a member, who mints it on POAP's page.
	MintLinkHandedOut MintLinkState = "handed_out"
	// MintLinkMinting: a direct mint was recorded and its request sent; the
	// outcome is not known yet (reconciled by reading the claim status).
	MintLinkMinting MintLinkState = "minting"
	// MintLinkMinted: the bot minted it to the member's wallet.
	MintLinkMinted MintLinkState = "minted"
	// MintLinkClaimedElsewhere: used outside the bot (the import or a status
	// read said so); never handed out again.
	MintLinkClaimedElsewhere MintLinkState = "claimed_elsewhere"
)

// MintLink is one imported mint link of a drop and who holds it.
type MintLink struct {
	ID     int64
	DropID int64
	QRHash string
	State  MintLinkState
	// UserID is the member the link was handed to or minted for.
	UserID *int64
	// Wallet is the address, ENS name or e-mail a direct mint went to.
	Wallet string
	// TransactionID is the issuing service's transaction request id of a
	// direct mint, when known.
	TransactionID string
	ClaimedAt     *time.Time
	UpdatedAt     time.Time
	// Attempt numbers the mints begun on the link, the latest one's
	// included (0 when none was): each BeginMint adds one.
	Attempt int
	// LeaseUntil is, while the link is minting, until when the process
	// that began the attempt may still be sending it or reading its
	// outcome (see MintLease); zero when no process holds it.
	LeaseUntil time.Time
}

// ImportedMintLink is a mint link as the issuing service lists it.
type ImportedMintLink struct {
	QRHash  string
	Claimed bool
}

// Stock counts a drop's links by state.
type Stock struct {
	Total            int
	Available        int
	HandedOut        int
	Minting          int
	Minted           int
	ClaimedElsewhere int
}

// ExportRow is one line of /drop export: a link that left the pool.
type ExportRow struct {
	QRHash string
	// Member is a pseudonymous id (a keyed hash), never the platform id.
	Member string
	Wallet string
	State  MintLinkState
	At     time.Time
}

// DropStatus is a drop with the count of its mint links by state.
type DropStatus struct {
	Drop  Drop
	Stock Stock
	// Website is where the drop's website claim stands (DropInfo of a
	// website drop only).
	Website *WebsiteInfo
	// Delivery is where the drop's delivery stands (DropInfo of a drop
	// minted through one only).
	Delivery *DeliveryInfo
	// Again: AddDrop brought back the drop removed here before, with the
	// links its members were given.
	Again bool
}

// DropStore is what the drop service needs from stored state about drops.
// Every method is one atomic step; lookups return ErrNotFound for a missing
// drop.
type DropStore interface {
	// AddDrop registers a drop in its place with its mint links (those
	// already claimed are stored as claimed elsewhere). When the place's
	// latest drop of the event was removed, that drop is brought back
	// (again true) with d's settings and its links, so that each member
	// keeps the link they were given. ErrConflict when the place has the
	// event already (and it is not removed).
	AddDrop(ctx context.Context, d Drop, links []ImportedMintLink) (added Drop, again bool, err error)
	// EditDrop changes the settings e gives of the drop, atomically, and
	// returns the drop before and after. ErrNotFound, ErrDropRemoved,
	// ErrInvalidWindow (the window it would leave ends before it starts),
	// ErrDeliveryExists (a delivery set for a drop minted through its
	// delivery).
	EditDrop(ctx context.Context, dropID int64, e DropEdit) (before, after Drop, err error)
	// DropByEvent returns the place's drop of eventID, or ErrNotFound.
	DropByEvent(ctx context.Context, placeID, eventID int64) (Drop, error)
	// DropByID returns the drop, removed or not, or ErrNotFound.
	DropByID(ctx context.Context, dropID int64) (Drop, error)
	// Drops lists the place's drops that are not removed.
	Drops(ctx context.Context, placeID int64) ([]Drop, error)
	// AllDrops lists every place's drops that are not removed.
	AllDrops(ctx context.Context) ([]Drop, error)
	// DropPlaces lists the places of the platform that have a drop of
	// eventID that is not removed, oldest place first.
	DropPlaces(ctx context.Context, platform Platform, eventID int64) ([]Place, error)
	// RemoveDrop stops handing out the drop's mint links.
	RemoveDrop(ctx context.Context, dropID int64, at time.Time) error
}

// MintLinkStore is what the drop service needs from stored state about
// mint links: their import, their hand-out to members and the direct mints
// through them. Every method is one atomic step.
type MintLinkStore interface {
	// ImportMintLinks adds links not known yet and marks known available
	// links that the service says are claimed as claimed elsewhere. It
	// returns how many were added and how many were marked.
	ImportMintLinks(ctx context.Context, dropID int64, links []ImportedMintLink) (added, marked int, err error)
	// Stock counts the drop's links by state.
	Stock(ctx context.Context, dropID int64) (Stock, error)
	// ClaimMintLink gives the user one link of the drop, atomically: the
	// link the user holds already (again true), or the next available one.
	// With a non-empty wallet, ErrWalletClaimed when another member's
	// link of the drop went to that wallet. ErrNoMintLinksLeft when none is
	// available. No link is ever given to two users.
	ClaimMintLink(ctx context.Context, dropID, userID int64, wallet string, at time.Time) (link MintLink, again bool, err error)
	// MemberMintLink returns the link of the drop the user holds, whatever
	// its state, or ErrNotFound.
	MemberMintLink(ctx context.Context, dropID, userID int64) (MintLink, error)
	// BeginMint records, before the request is sent, that the link is
	// being minted to wallet (state minting), as a new attempt (Attempt
	// one more) held by the caller until at plus MintLease. ErrConflict
	// when the link is not the user's or not in a state that can be
	// minted.
	BeginMint(ctx context.Context, linkID int64, wallet string, at time.Time) (MintLink, error)
	// FinishMint records the outcome of the caller's own mint attempt:
	// MintLinkMinted (with the transaction id), MintLinkHandedOut (the
	// mint did not go through; the member may retry) or
	// MintLinkClaimedElsewhere. The sender's word wins: minted or claimed
	// elsewhere is accepted also after a reconciler recorded the attempt
	// handed out, unless a later attempt was begun. It reports whether the
	// state changed (false when the link is in that state already);
	// ErrConflict when the link is elsewhere.
	FinishMint(ctx context.Context, linkID int64, attempt int, state MintLinkState, transactionID string, at time.Time) (bool, error)
	// SettleMint records the outcome read from the link's status for an
	// attempt the caller did not send: only while the link is still
	// minting that attempt and its lease ran out by at, except minted,
	// which the status proves whoever reads it. It reports whether the
	// state changed; ErrConflict when the link moved on.
	SettleMint(ctx context.Context, linkID int64, attempt int, state MintLinkState, at time.Time) (bool, error)
	// ReleaseMint ends the caller's lease on its attempt at at, the
	// outcome unknown: the link stays minting, for the reconciler.
	// ErrConflict when the link is no longer minting that attempt.
	ReleaseMint(ctx context.Context, linkID int64, attempt int, at time.Time) error
	// PendingMints lists links left minting whose lease ran out by now
	// (a crash, or an outcome the sender could not tell), for
	// reconciliation.
	PendingMints(ctx context.Context, now time.Time) ([]MintLink, error)
	// ExportMintLinks lists the drop's links that left the pool, with the
	// member as a pseudonymous id.
	ExportMintLinks(ctx context.Context, dropID int64) ([]ExportRow, error)
	// NoteLowStock marks that moderators are to be told the drop runs
	// low, when its available links are fewer than its LowStock and they
	// were not told since links were last imported. It reports whether
	// this call marked it: true once per shortage, however many callers
	// race.
	NoteLowStock(ctx context.Context, dropID int64, at time.Time) (bool, error)
}

// dropName is the drop's name, or its number when it has none.
func dropName(d Drop) string {
	if n := strings.TrimSpace(d.Name); n != "" {
		return n
	}
	return "drop " + strconv.FormatInt(d.EventID, 10)
}

// MaxWebsiteName is the longest website claim name: a path segment of
// letters, digits, hyphens and underscores.
//
// The issuing service publishes no rule for a claim name beyond "string":
// it is the last segment of the claim's poap.website address and the
// {secret_word} of GET /secret/{secret_word}, and its own names are words
// joined by hyphens ("increase-group-student"). This rule keeps every name
// one plain path segment: no "/", no ".." and nothing to escape.
const MaxWebsiteName = 100

// validWebsiteName reports whether name can be a website claim's path
// segment. Every name is checked with it where it enters (/drop add
// website:, /drop website) before anything is asked of the service.
func validWebsiteName(name string) bool {
	if name == "" || len(name) > MaxWebsiteName {
		return false
	}
	return strings.Trim(strings.ToLower(name), "abcdefghijklmnopqrstuvwxyz0123456789-_") == ""
}

// DefaultTopUp is how many links /drop topup asks for when no count is
// given.
const DefaultTopUp = 50

// MaxTopUp is the most links one request may ask for.
const MaxTopUp = 50000
