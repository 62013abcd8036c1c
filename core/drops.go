package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Place is where a command runs, in the platform's terms: a Discord server,
// a Telegram chat, the console. It becomes the tenant drops belong to.
type Place struct {
	Platform   Platform
	ExternalID string
	Name       string
}

// tenant is the place as a Tenant to upsert.
func (p Place) tenant() Tenant {
	return Tenant{Platform: p.Platform, ExternalID: p.ExternalID, Name: p.Name}
}

// Errors of drops and claims, beside those next to DropStore. Claims and
// moderator commands return them inside a *DropError that names the drop.
var (
	// ErrUnknownEvent means the issuing service knows no drop with that id.
	ErrUnknownEvent = errors.New("unknown drop at the issuing service")
	// ErrNoSuchDrop means the place has no drop with that id.
	ErrNoSuchDrop = errors.New("no such drop here")
	// ErrDropExists means the place has the drop already.
	ErrDropExists = errors.New("drop registered already")
	// ErrInvalidWindow means a claim window that ends before it starts,
	// or ends in the past.
	ErrInvalidWindow = errors.New("invalid claim window")
	// ErrInvalidDelivery means a delivery other than auto, link or mint.
	ErrInvalidDelivery = errors.New("invalid delivery")
	// ErrDropExpired means the drop expired at the issuing service: no
	// more of its POAPs can be minted. It matches ErrClaimEnded too.
	ErrDropExpired = fmt.Errorf("drop expired: %w", ErrClaimEnded)
	// ErrMintLinkClaimed means the issuing service says the mint link was
	// used already.
	ErrMintLinkClaimed = errors.New("mint link already claimed")
	// ErrMintLinkExpired means the issuing service says the mint link expired.
	ErrMintLinkExpired = errors.New("mint link expired")
	// ErrMintLinkUsed means the link set aside for the member's mint turned
	// out used outside the bot, and the store keeps it as theirs.
	ErrMintLinkUsed = errors.New("the member's mint link was used elsewhere")
	// ErrWalletHoldsDrop means the wallet holds a POAP of the drop
	// already, so the issuing service refuses another.
	ErrWalletHoldsDrop = errors.New("wallet holds the drop already")
)

// DropError is a refusal about one drop: Err is the sentinel (ErrClaimEnded,
// ErrWrongEditCode...), Drop what is known of the drop (at least its
// EventID), Wallet the wallet concerned, if any.
type DropError struct {
	Drop   Drop
	Wallet string
	Err    error
}

func (e *DropError) Error() string { return fmt.Sprintf("drop %d: %v", e.Drop.EventID, e.Err) }

// Unwrap returns the sentinel.
func (e *DropError) Unwrap() error { return e.Err }

// dropError wraps err with the drop it is about.
func dropError(d Drop, err error) error { return &DropError{Drop: d, Err: err} }

// ChoiceError says /claim named no drop and the place has not exactly one
// open for claims: Open lists those that are (none, or several). It matches
// ErrNoActiveDrop.
type ChoiceError struct {
	Open []Drop
}

func (e *ChoiceError) Error() string { return fmt.Sprintf("%d drops open for claims", len(e.Open)) }

// Is makes errors.Is(err, ErrNoActiveDrop) true.
func (e *ChoiceError) Is(target error) bool { return target == ErrNoActiveDrop }

// The actions of the audit log written by drops and claims. Details name
// drops by event id and links by their number, never by mint link, edit code
// or a member's name.
const (
	AuditDropAdded         = "drop added"
	AuditDropRemoved       = "drop removed"
	AuditDropRefreshed     = "drop links imported"
	AuditTopUpRequested    = "drop top-up requested"
	AuditDropExported      = "drop exported"
	AuditMintLinkHandedOut = "mint link handed out"
	AuditMinted            = "poap minted"
	AuditMintFailed        = "mint failed"
	AuditMintPending       = "mint unconfirmed"
	AuditClaimedElsewhere  = "mint link claimed elsewhere"
)

// DefaultLowStock is the number of available links under which moderators
// are told, when AddDropOptions leaves it zero.
const DefaultLowStock = 10

// AddDropOptions are the settings of /drop add.
type AddDropOptions struct {
	EventID  int64
	EditCode Secret
	// Delivery is how members get the POAP; empty means DeliveryAuto.
	Delivery Delivery
	// Starts and Ends bound the claim window; nil leaves it open.
	Starts *time.Time
	Ends   *time.Time
	// Codeword, when set, must be given with /claim.
	Codeword string
	// RequiredRole is the Discord role id (or Telegram chat id) members
	// need; empty means none.
	RequiredRole string
	// LowStock is the number of available links under which moderators
	// are told; zero means DefaultLowStock, negative never.
	LowStock int
}

// validate checks the options that need no service, at now.
func (o *AddDropOptions) validate(now time.Time) error {
	switch o.Delivery {
	case "":
		o.Delivery = DeliveryAuto
	case DeliveryAuto, DeliveryLink, DeliveryMint:
	default:
		return ErrInvalidDelivery
	}
	if o.Ends != nil && (!o.Ends.After(now) || o.Starts != nil && !o.Ends.After(*o.Starts)) {
		return ErrInvalidWindow
	}
	switch {
	case o.LowStock == 0:
		o.LowStock = DefaultLowStock
	case o.LowStock < 0:
		o.LowStock = 0
	}
	o.Codeword = strings.TrimSpace(o.Codeword)
	o.RequiredRole = strings.TrimSpace(o.RequiredRole)
	return nil
}

// DropStatus is a drop with the count of its links by state.
type DropStatus struct {
	Drop  Drop
	Stock Stock
}

// AddDrop registers drop opts.EventID in the place, for the moderator: it
// checks the edit code with the issuing service first (nothing is stored
// when it is wrong), reads the drop's name, artwork and expiry, imports its
// mint links (those already claimed are kept aside) and stores it all with
// the edit code, which storage encrypts. Errors, inside a *DropError:
// ErrInvalidDelivery, ErrInvalidWindow, ErrWrongEditCode, ErrUnknownEvent,
// ErrDropExists; and the issuer's ErrIssuerUnavailable or ErrIssuerRejected.
func (s *Service) AddDrop(ctx context.Context, moderator Member, p Place, opts AddDropOptions) (DropStatus, error) {
	ds, di, err := s.dropDeps()
	if err != nil {
		return DropStatus{}, err
	}
	d := Drop{EventID: opts.EventID}
	if err := opts.validate(s.clock.Now()); err != nil {
		return DropStatus{}, dropError(d, err)
	}
	ok, err := di.ValidateEditCode(ctx, opts.EventID, opts.EditCode)
	switch {
	case err != nil:
		return DropStatus{}, dropError(d, err)
	case !ok:
		return DropStatus{}, dropError(d, ErrWrongEditCode)
	}
	details, err := di.DropDetails(ctx, opts.EventID)
	if err != nil {
		return DropStatus{}, dropError(d, err)
	}
	links, err := di.MintLinks(ctx, opts.EventID, opts.EditCode)
	if err != nil {
		return DropStatus{}, dropError(d, err)
	}
	tenant, user, err := s.upsertPlace(ctx, p, moderator)
	if err != nil {
		return DropStatus{}, wrap("add drop", err)
	}
	d = Drop{
		TenantID: tenant.ID, EventID: opts.EventID, Name: details.Name, ImageURL: details.ImageURL,
		EditCode: opts.EditCode, Delivery: opts.Delivery, Starts: utcPtr(opts.Starts), Ends: utcPtr(opts.Ends),
		Codeword: opts.Codeword, RequiredRole: opts.RequiredRole, ExpiresAt: details.ExpiresAt,
		LowStock: opts.LowStock, CreatedBy: user.ID, CreatedAt: s.clock.Now(),
	}
	added, err := ds.AddDrop(ctx, d, links)
	if errors.Is(err, ErrConflict) {
		return DropStatus{}, dropError(d, ErrDropExists)
	}
	if err != nil {
		return DropStatus{}, wrap("add drop", err)
	}
	d = added
	stock, err := ds.Stock(ctx, d.ID)
	if err != nil {
		return DropStatus{}, wrap("add drop", err)
	}
	s.audit(ctx, d.TenantID, user.ID, AuditDropAdded, fmt.Sprintf("event %d, %s delivery, %d links (%d claimed elsewhere)",
		d.EventID, d.Delivery, stock.Total, stock.ClaimedElsewhere))
	return DropStatus{Drop: d, Stock: stock}, nil
}

// ListDrops lists the place's drops that are not removed, with their stock.
// It returns the store's error.
func (s *Service) ListDrops(ctx context.Context, p Place) ([]DropStatus, error) {
	ds, _, err := s.dropDeps()
	if err != nil {
		return nil, err
	}
	tenant, err := s.store.UpsertTenant(ctx, p.tenant())
	if err != nil {
		return nil, wrap("list drops", err)
	}
	drops, err := ds.Drops(ctx, tenant.ID)
	if err != nil {
		return nil, wrap("list drops", err)
	}
	out := make([]DropStatus, 0, len(drops))
	for _, d := range drops {
		stock, err := ds.Stock(ctx, d.ID)
		if err != nil {
			return nil, wrap("list drops", err)
		}
		out = append(out, DropStatus{Drop: d, Stock: stock})
	}
	return out, nil
}

// DropInfo returns the place's drop eventID with its stock. Errors: a
// *DropError with ErrNoSuchDrop, or the store's error.
func (s *Service) DropInfo(ctx context.Context, p Place, eventID int64) (DropStatus, error) {
	d, err := s.placeDrop(ctx, p, eventID, true)
	if err != nil {
		return DropStatus{}, err
	}
	stock, err := s.drops.Stock(ctx, d.ID)
	if err != nil {
		return DropStatus{}, wrap("drop info", err)
	}
	return DropStatus{Drop: d, Stock: stock}, nil
}

// RemoveDrop stops handing out the place's drop eventID; links handed out
// stay valid at the issuing service. Errors: a *DropError with
// ErrNoSuchDrop or ErrDropRemoved, or the store's error.
func (s *Service) RemoveDrop(ctx context.Context, moderator Member, p Place, eventID int64) (Drop, error) {
	d, err := s.placeDrop(ctx, p, eventID, false)
	if err != nil {
		return Drop{}, err
	}
	now := s.clock.Now()
	if err := s.drops.RemoveDrop(ctx, d.ID, now); err != nil {
		return Drop{}, wrap("remove drop", err)
	}
	d.RemovedAt = &now
	s.auditBy(ctx, d.TenantID, moderator, AuditDropRemoved, fmt.Sprintf("event %d", d.EventID))
	return d, nil
}

// placeDrop returns the place's drop eventID: ErrNoSuchDrop when it has
// none, ErrDropRemoved when it was removed (unless removed is true).
func (s *Service) placeDrop(ctx context.Context, p Place, eventID int64, removed bool) (Drop, error) {
	ds, _, err := s.dropDeps()
	if err != nil {
		return Drop{}, err
	}
	tenant, err := s.store.UpsertTenant(ctx, p.tenant())
	if err != nil {
		return Drop{}, wrap("drop", err)
	}
	d, err := ds.DropByEvent(ctx, tenant.ID, eventID)
	switch {
	case errors.Is(err, ErrNotFound):
		return Drop{}, dropError(Drop{TenantID: tenant.ID, EventID: eventID}, ErrNoSuchDrop)
	case err != nil:
		return Drop{}, wrap("drop", err)
	case d.RemovedAt != nil && !removed:
		return Drop{}, dropError(d, ErrDropRemoved)
	}
	return d, nil
}

// upsertPlace stores the place and the member, returning both.
func (s *Service) upsertPlace(ctx context.Context, p Place, m Member) (Tenant, User, error) {
	tenant, err := s.store.UpsertTenant(ctx, p.tenant())
	if err != nil {
		return Tenant{}, User{}, err
	}
	user, err := s.store.UpsertUser(ctx, m.user())
	if err != nil {
		return Tenant{}, User{}, err
	}
	return tenant, user, nil
}

// audit appends an entry to the audit log. A failure is logged, not
// returned: the step it records has happened already.
func (s *Service) audit(ctx context.Context, tenantID, userID int64, action, detail string) {
	e := AuditEntry{Action: action, Detail: detail, CreatedAt: s.clock.Now()}
	if tenantID != 0 {
		e.TenantID = &tenantID
	}
	if userID != 0 {
		e.UserID = &userID
	}
	if err := s.store.Audit(ctx, e); err != nil {
		s.log.Error("audit entry lost", "action", action, "detail", detail, "err", err)
	}
}

// auditBy audits an action of the member, upserting them first.
func (s *Service) auditBy(ctx context.Context, tenantID int64, m Member, action, detail string) {
	user, err := s.store.UpsertUser(ctx, m.user())
	if err != nil {
		s.log.Error("audit entry lost", "action", action, "detail", detail, "err", err)
		return
	}
	s.audit(ctx, tenantID, user.ID, action, detail)
}

// errNoDrops is returned by the drop methods of a Service whose store does
// not implement DropStore or that has no DropIssuer.
var errNoDrops = errors.New("the service cannot manage drops: no drop store or no drop issuer")

// dropDeps returns the drop store and issuer.
func (s *Service) dropDeps() (DropStore, DropIssuer, error) {
	if s.drops == nil || s.dropIssuer == nil {
		return nil, nil, errNoDrops
	}
	return s.drops, s.dropIssuer, nil
}

// utcPtr returns a copy of *t in UTC, or nil.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
