package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// ErrMethodNotOffered means a claim method this bot does not offer: the
// process was started without the service of the method (a website claim,
// a POAP Delivery). A drop is not set to it, and a drop stored with it is
// not claimed through this process.
var ErrMethodNotOffered = errors.New("claim method not offered")

// claimer is one claim method's side of the drops: MintLinkService for
// auto, link and mint, WebsiteService for website, DeliveryService for
// delivery. DropService picks the drop's from the map it built at
// construction; a method without its service is not offered.
type claimer interface {
	// claim gives the member the drop, once DropService has checked that
	// it is open to them (window, codeword, role).
	claim(ctx context.Context, d Drop, user User) (ClaimResult, error)
	// held reports whether the member holds the drop already: a claim
	// would give them again what they have (the same link, the same mint,
	// the same place in a queue).
	held(ctx context.Context, d Drop, user User) (bool, error)
	// check vets a drop of eventID about to be set to the method by
	// /drop add or /drop edit, with the website claim named (website
	// only): nil, or the error for the moderator.
	check(ctx context.Context, eventID int64, website string) error
	// describe adds where the drop's method stands to its /drop info.
	describe(ctx context.Context, d Drop, st *DropStatus) error
}

// dropBase is what every drop service shares: the members and drops it
// reads, the audit log it writes, and the clock, logger and tally.
type dropBase struct {
	base
	members MemberStore
	drops   DropStore
	audit   AuditLog
}

// placeDrop returns the place's drop eventID: ErrNoSuchDrop when it has
// none, ErrDropRemoved when it was removed (unless removed is true).
func (s dropBase) placeDrop(ctx context.Context, p Place, eventID int64, removed bool) (Drop, error) {
	place, err := s.members.UpsertPlace(ctx, p.stored())
	if err != nil {
		return Drop{}, wrap("drop", err)
	}
	return s.storedDrop(ctx, "drop", place, eventID, removed)
}

// storedDrop returns the stored place's drop eventID: ErrNoSuchDrop when
// it has none, ErrDropRemoved when it was removed (unless removed is
// true); a store error is wrapped with op.
func (s dropBase) storedDrop(ctx context.Context, op string, place Place, eventID int64, removed bool) (Drop, error) {
	d, err := s.drops.DropByEvent(ctx, place.ID, eventID)
	switch {
	case errors.Is(err, ErrNotFound):
		return Drop{}, dropError(Drop{PlaceID: place.ID, EventID: eventID}, ErrNoSuchDrop)
	case err != nil:
		return Drop{}, wrap(op, err)
	case d.RemovedAt != nil && !removed:
		return Drop{}, dropError(d, ErrDropRemoved)
	}
	return d, nil
}

// upsertPlace stores the place and the member, returning both.
func (s dropBase) upsertPlace(ctx context.Context, p Place, m Member) (Place, User, error) {
	place, err := s.members.UpsertPlace(ctx, p.stored())
	if err != nil {
		return Place{}, User{}, err
	}
	user, err := s.members.UpsertUser(ctx, m.user())
	if err != nil {
		return Place{}, User{}, err
	}
	return place, user, nil
}

// record appends an entry to the audit log. A failure is logged, not
// returned: the step it records has happened already.
func (s dropBase) record(ctx context.Context, placeID, userID int64, action, detail string) {
	s.appendAudit(ctx, s.audit, placeID, userID, action, detail)
}

// appendAudit appends an entry to audit, of the place and the user (zero:
// none), stamped with the clock of b. A failure is logged, not returned:
// the step it records has happened already.
func (b base) appendAudit(ctx context.Context, audit AuditLog, placeID, userID int64, action, detail string) {
	e := AuditEntry{Action: action, Detail: detail, CreatedAt: b.clock.Now()}
	if placeID != 0 {
		e.PlaceID = &placeID
	}
	if userID != 0 {
		e.UserID = &userID
	}
	if err := audit.Audit(ctx, e); err != nil {
		b.log.Error("audit entry lost", "action", action, "detail", detail, "err", err)
	}
}

// auditBy audits an action of the member, upserting them first.
func (s dropBase) auditBy(ctx context.Context, placeID int64, m Member, action, detail string) {
	user, err := s.members.UpsertUser(ctx, m.user())
	if err != nil {
		s.log.Error("audit entry lost", "action", action, "detail", detail, "err", err)
		return
	}
	s.record(ctx, placeID, user.ID, action, detail)
}

// newDropBase checks the shared dependencies of the drop service named
// service and returns them.
func newDropBase(service string, members MemberStore, drops DropStore, audit AuditLog, b base) (dropBase, error) {
	if err := missing(service, "Members", members, "Drops", drops, "Audit", audit); err != nil {
		return dropBase{}, err
	}
	return dropBase{base: b, members: members, drops: drops, audit: audit}, nil
}

// mintNews tells MintEvents of the POAPs a claim service minted; users
// finds a member by id, and logger says when one is not found.
type mintNews struct {
	events MintEvents
	users  MemberStore
	logger *slog.Logger
}

// minted tells MintEvents of the member's POAP minted to wallet.
func (n mintNews) minted(ctx context.Context, user User, wallet string) {
	if wallet != "" {
		n.events.Minted(ctx, user, wallet)
	}
}

// mintedTo tells MintEvents of the POAP minted to wallet for the member
// userID names (a mint link's or a website claim's, nil once they were
// forgotten), looked up by id: the mint was recorded away from the
// member's command (the dispatcher, the reconciler), or by it, in one
// place for all. A member not found is logged: the next sweep counts the
// POAP.
func (n mintNews) mintedTo(ctx context.Context, userID *int64, wallet string) {
	if userID == nil || wallet == "" {
		return
	}
	user, err := n.users.UserByID(ctx, *userID)
	if err != nil {
		n.logger.Warn("a member minted to was not re-evaluated: the next sweep does", "user", *userID, "err", err)
		return
	}
	n.minted(ctx, user, wallet)
}

// newMintNews returns the news of the service whose base is b.
func newMintNews(events MintEvents, b dropBase) mintNews {
	return mintNews{events: events, users: b.members, logger: b.log}
}

// MintEvents hears of a POAP the bot minted to a member's wallet (a direct
// mint, a delivery claim, a website claim), once as the mint is recorded,
// whoever records it (the member's claim, the website dispatcher, the
// reconciler), so that what the member holds counts at once (GateService
// re-evaluates their gates). It must not block.
type MintEvents interface {
	Minted(ctx context.Context, user User, wallet string)
}

// notOffered is the error of a claim method this process does not offer.
func notOffered(m ClaimMethod) error {
	return fmt.Errorf("%w: %s", ErrMethodNotOffered, m)
}

// settleTimeout bounds the bookkeeping after a mint was sent, which goes on
// even when the member's command runs out of time: the outcome must be
// recorded or reconciled, never lost.
const settleTimeout = 20 * time.Second

// ClaimOutcome is what a claim gave the member: one of the Result values.
type ClaimOutcome int

// Outcomes of a claim.
const (
	// ResultLink: the member's own mint link (ClaimResult.URL), which they
	// mint themselves.
	ResultLink ClaimOutcome = iota + 1
	// ResultMinted: the bot minted the drop's mint link to Wallet.
	ResultMinted
	// ResultMintPending: a mint of the member's link to Wallet was sent
	// and is not confirmed yet.
	ResultMintPending
	// ResultWebsiteMinted: minted to Wallet through the drop's website
	// claim.
	ResultWebsiteMinted
	// ResultWebsiteQueued: the mint through the drop's website claim waits
	// its turn, with Ahead claims before it.
	ResultWebsiteQueued
	// ResultDeliveryClaimed: claimed for Wallet, the member's address on
	// the drop's POAP Delivery list.
	ResultDeliveryClaimed
	// ResultDeliveryPending: the claim through the drop's POAP Delivery
	// may have reached POAP and is not confirmed yet.
	ResultDeliveryPending
)

// ClaimResult is what a claim gave the member.
type ClaimResult struct {
	Drop    Drop
	Outcome ClaimOutcome
	// Again: the member had claimed the drop before and this claim added
	// nothing: the same link, the same mint, or the same pending mint.
	Again    bool
	MintLink MintLink
	// URL is the mint link's address, for ResultLink.
	URL string
	// Wallet is where a mint went.
	Wallet string
	// Ahead counts the claims before a ResultWebsiteQueued one.
	Ahead int
	// DeliveryPage is, for a drop claimed through its POAP Delivery, the
	// Delivery's page, where the member may claim too.
	DeliveryPage string
}
