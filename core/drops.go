package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// DropService owns drops and their mint links: moderators set drops up,
// refresh, top up, export and remove them (this file and stock.go), members
// claim them (claims.go, mints.go), claim posts are kept current
// (posts.go) and moderators are told when a drop runs low (notices.go).
type DropService struct {
	runtime
	members   MemberStore
	drops     DropStore
	mintLinks MintLinkStore
	posts     PostStore
	audit     AuditLog
	issuer    DropIssuer
	mintURL   string
	// dist and distStore serve the other distribution methods; nil
	// without them (ErrMethodUnavailable). web is the process's side of
	// the website claims' queue.
	dist      DistributionIssuer
	distStore DistributionStore
	web       *websiteQueue
	// websiteWait is DropServiceDeps.WebsiteWait.
	websiteWait time.Duration
	// netIssuer and netStore serve drops' networks: Networks and
	// NetworkStore, or else dist and distStore; nil without them
	// (ErrMethodUnavailable).
	netIssuer NetworkIssuer
	netStore  NetworkStore
	// deliveries, delivIssuer and roster serve deliveries; nil without
	// them (ErrMethodUnavailable). deliveryURL is the base of their pages.
	deliveries  DeliveryStore
	delivIssuer DeliveryIssuer
	roster      Roster
	deliveryURL string
	// mints hears of the POAPs minted to members; nil hears nothing.
	mints MintEvents
}

// MintEvents hears of a POAP the bot minted to a member's wallet (a direct
// mint, a delivery claim, a website claim), once as the mint is recorded,
// whoever records it (the member's claim, the website dispatcher, the
// reconciler), so that what the member holds counts at once (GateService
// re-evaluates their gates). It must not block.
type MintEvents interface {
	Minted(ctx context.Context, user User, wallet string)
}

// DropServiceDeps are the dependencies of a DropService.
type DropServiceDeps struct {
	// Members, Drops, MintLinks, Posts and Audit are stored state, all
	// required; storage.DB is each of them.
	Members   MemberStore
	Drops     DropStore
	MintLinks MintLinkStore
	Posts     PostStore
	Audit     AuditLog
	// Issuer is the issuing service, required.
	Issuer DropIssuer
	// MintURL is the base of mint links, POAP_MINT_URL; empty is
	// DefaultMintURL.
	MintURL string
	// Distribution and DistributionStore serve website claims,
	// deliveries and networks (poap.DropIssuer and storage.DB); without
	// either, those commands answer ErrMethodUnavailable.
	Distribution      DistributionIssuer
	DistributionStore DistributionStore
	// WebsiteWait is the longest a claim through a website claim waits
	// for its mint before it tells the member they are queued; zero is
	// DefaultWebsiteWait.
	WebsiteWait time.Duration
	// Networks and NetworkStore serve drops' networks alone; when nil,
	// Distribution and DistributionStore do.
	Networks     NetworkIssuer
	NetworkStore NetworkStore
	// Deliveries, DeliveryIssuer and Roster serve deliveries to a role or
	// a group (storage.DB, poap.DropIssuer, GateService); with
	// Distribution, which settles their claims, all are needed, else
	// /drop deliver answers ErrMethodUnavailable. DeliveryURL is the base
	// of delivery pages, POAP_DELIVERY_URL; empty is DefaultDeliveryURL.
	Deliveries     DeliveryStore
	DeliveryIssuer DeliveryIssuer
	Roster         Roster
	DeliveryURL    string
	// Mints hears of the POAPs minted to members (GateService); nil
	// hears nothing.
	Mints MintEvents
	// Clock defaults to the system clock, Logger to one that discards.
	Clock  Clock
	Logger *slog.Logger
	// Tally counts what the service does for the domain metrics; nil
	// counts nothing.
	Tally Tally
}

// DefaultMintURL is the base of mint links unless DropServiceDeps.MintURL
// names another: a link is <base>/mint/<qr_hash>.
const DefaultMintURL = "https://poap.xyz"

// NewDropService returns the drop service. It returns an error wrapping
// ErrMissingDependency when a required dependency is nil.
func NewDropService(d DropServiceDeps) (*DropService, error) {
	err := missing("drop service", "Members", d.Members, "Drops", d.Drops, "MintLinks", d.MintLinks,
		"Posts", d.Posts, "Audit", d.Audit, "Issuer", d.Issuer)
	if err != nil {
		return nil, err
	}
	s := &DropService{runtime: newRuntime(d.Clock, d.Logger, d.Tally), members: d.Members, drops: d.Drops,
		mintLinks: d.MintLinks, posts: d.Posts, audit: d.Audit, issuer: d.Issuer, mintURL: DefaultMintURL,
		dist: d.Distribution, distStore: d.DistributionStore, web: newWebsiteQueue(), websiteWait: DefaultWebsiteWait,
		netIssuer: d.Networks, netStore: d.NetworkStore,
		deliveries: d.Deliveries, delivIssuer: d.DeliveryIssuer, roster: d.Roster, deliveryURL: DefaultDeliveryURL, mints: d.Mints}
	if base := strings.TrimRight(strings.TrimSpace(d.DeliveryURL), "/"); base != "" {
		s.deliveryURL = base
	}
	if d.WebsiteWait > 0 {
		s.websiteWait = d.WebsiteWait
	}
	if s.netIssuer == nil && d.Distribution != nil {
		s.netIssuer = d.Distribution
	}
	if s.netStore == nil && d.DistributionStore != nil {
		s.netStore = d.DistributionStore
	}
	if base := strings.TrimRight(strings.TrimSpace(d.MintURL), "/"); base != "" {
		s.mintURL = base
	}
	return s, nil
}

// minted tells MintEvents of the member's POAP minted to wallet.
func (s *DropService) minted(ctx context.Context, user User, wallet string) {
	if s.mints != nil && wallet != "" {
		s.mints.Minted(ctx, user, wallet)
	}
}

// MintURL is the address of the mint link qrHash: <base>/mint/<qr_hash>.
func (s *DropService) MintURL(qrHash string) string {
	return s.mintURL + "/mint/" + qrHash
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

// AddDrop registers drop opts.EventID in the place, for the moderator: it
// checks the edit code with the issuing service first (nothing is stored
// when it is wrong), reads the drop's name, artwork and expiry, imports its
// mint links (those already claimed are kept aside) and stores it all with
// the edit code, which storage encrypts; then it reads the network the drop
// mints on, when it can (a failure to read it fails nothing). A drop
// removed here before comes back with the new settings and who got which
// link (DropStatus.Again): a member who had a link gets the same one, a
// member minted to is told they have it, so removing and adding a drop
// again never gives anyone a second link. Errors,
// inside a *DropError: ErrInvalidDelivery, ErrInvalidWindow,
// ErrInvalidWebsiteName (checked before any request), ErrNoWebsite,
// ErrWrongEditCode, ErrUnknownEvent, ErrDropExists; and the issuer's
// ErrIssuerUnavailable or ErrIssuerRejected.
func (s *DropService) AddDrop(ctx context.Context, moderator Member, p Place, opts AddDropOptions) (DropStatus, error) {
	d := Drop{EventID: opts.EventID}
	if err := opts.validate(s.clock.Now()); err != nil {
		return DropStatus{}, dropError(d, err)
	}
	ok, err := s.issuer.ValidateEditCode(ctx, opts.EventID, opts.EditCode)
	switch {
	case err != nil:
		return DropStatus{}, dropError(d, err)
	case !ok:
		return DropStatus{}, dropError(d, ErrWrongEditCode)
	}
	details, err := s.issuer.DropDetails(ctx, opts.EventID)
	if err != nil {
		return DropStatus{}, dropError(d, err)
	}
	if opts.Delivery == DeliveryWebsite {
		if err := s.checkWebsite(ctx, opts.EventID, opts.Website); err != nil {
			return DropStatus{}, dropError(d, err)
		}
	}
	links, err := s.issuer.MintLinks(ctx, opts.EventID, opts.EditCode)
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
		LowStock: opts.LowStock, CreatedBy: user.ID, CreatedAt: s.clock.Now(), Website: opts.Website,
	}
	added, again, err := s.drops.AddDrop(ctx, d, links)
	if errors.Is(err, ErrConflict) {
		return DropStatus{}, dropError(d, ErrDropExists)
	}
	if err != nil {
		return DropStatus{}, wrap("add drop", err)
	}
	d = s.readNetwork(ctx, added)
	stock, err := s.mintLinks.Stock(ctx, d.ID)
	if err != nil {
		return DropStatus{}, wrap("add drop", err)
	}
	action := AuditDropAdded
	if again {
		action = AuditDropAddedAgain
	}
	s.record(ctx, d.TenantID, user.ID, action, fmt.Sprintf("event %d, %s delivery, %d links (%d claimed elsewhere)",
		d.EventID, d.Delivery, stock.Total, stock.ClaimedElsewhere))
	return DropStatus{Drop: d, Stock: stock, Again: again}, nil
}

// ListDrops lists the place's drops that are not removed, with their stock.
// It returns the store's error.
func (s *DropService) ListDrops(ctx context.Context, p Place) ([]DropStatus, error) {
	tenant, err := s.members.UpsertTenant(ctx, p.tenant())
	if err != nil {
		return nil, wrap("list drops", err)
	}
	drops, err := s.drops.Drops(ctx, tenant.ID)
	if err != nil {
		return nil, wrap("list drops", err)
	}
	out := make([]DropStatus, 0, len(drops))
	for _, d := range drops {
		stock, err := s.mintLinks.Stock(ctx, d.ID)
		if err != nil {
			return nil, wrap("list drops", err)
		}
		out = append(out, DropStatus{Drop: d, Stock: stock})
	}
	return out, nil
}

// DropInfo returns the place's drop eventID with its stock. Errors: a
// *DropError with ErrNoSuchDrop, or the store's error.
func (s *DropService) DropInfo(ctx context.Context, p Place, eventID int64) (DropStatus, error) {
	d, err := s.placeDrop(ctx, p, eventID, true)
	if err != nil {
		return DropStatus{}, err
	}
	stock, err := s.mintLinks.Stock(ctx, d.ID)
	if err != nil {
		return DropStatus{}, wrap("drop info", err)
	}
	web, err := s.websiteInfo(ctx, d)
	if err != nil {
		return DropStatus{}, wrap("drop info", err)
	}
	dl, err := s.deliveryInfo(ctx, d)
	if err != nil {
		return DropStatus{}, wrap("drop info", err)
	}
	return DropStatus{Drop: d, Stock: stock, Website: web, Delivery: dl}, nil
}

// RemoveDrop stops handing out the place's drop eventID; links handed out
// stay valid at the issuing service and stay with their members: adding
// the drop here again (AddDrop) brings it back with them. Errors: a *DropError with
// ErrNoSuchDrop or ErrDropRemoved, or the store's error.
func (s *DropService) RemoveDrop(ctx context.Context, moderator Member, p Place, eventID int64) (Drop, error) {
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
func (s *DropService) placeDrop(ctx context.Context, p Place, eventID int64, removed bool) (Drop, error) {
	tenant, err := s.members.UpsertTenant(ctx, p.tenant())
	if err != nil {
		return Drop{}, wrap("drop", err)
	}
	d, err := s.drops.DropByEvent(ctx, tenant.ID, eventID)
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
func (s *DropService) upsertPlace(ctx context.Context, p Place, m Member) (Tenant, User, error) {
	tenant, err := s.members.UpsertTenant(ctx, p.tenant())
	if err != nil {
		return Tenant{}, User{}, err
	}
	user, err := s.members.UpsertUser(ctx, m.user())
	if err != nil {
		return Tenant{}, User{}, err
	}
	return tenant, user, nil
}

// audit appends an entry to the audit log. A failure is logged, not
// returned: the step it records has happened already.
func (s *DropService) record(ctx context.Context, tenantID, userID int64, action, detail string) {
	e := AuditEntry{Action: action, Detail: detail, CreatedAt: s.clock.Now()}
	if tenantID != 0 {
		e.TenantID = &tenantID
	}
	if userID != 0 {
		e.UserID = &userID
	}
	if err := s.audit.Audit(ctx, e); err != nil {
		s.log.Error("audit entry lost", "action", action, "detail", detail, "err", err)
	}
}

// auditBy audits an action of the member, upserting them first.
func (s *DropService) auditBy(ctx context.Context, tenantID int64, m Member, action, detail string) {
	user, err := s.members.UpsertUser(ctx, m.user())
	if err != nil {
		s.log.Error("audit entry lost", "action", action, "detail", detail, "err", err)
		return
	}
	s.record(ctx, tenantID, user.ID, action, detail)
}

// DropPlaces lists the places of the platform where the drop eventID is
// registered and not removed: where a member who names the drop outside
// those places (the bot's private chat on Telegram) could claim it. The
// adapter decides which of them the member belongs to. No place (nil) is
// no error, also for a drop id that is not above 0. It returns an error
// for an unknown platform, and the store's errors.
func (s *DropService) DropPlaces(ctx context.Context, platform Platform, eventID int64) ([]Place, error) {
	if !platform.Valid() {
		return nil, fmt.Errorf("drop places: unknown platform %q", platform)
	}
	if eventID <= 0 {
		return nil, nil
	}
	tenants, err := s.drops.DropTenants(ctx, platform, eventID)
	if err != nil {
		return nil, wrap("drop places", err)
	}
	if len(tenants) == 0 {
		return nil, nil
	}
	places := make([]Place, len(tenants))
	for i, t := range tenants {
		places[i] = Place{Platform: t.Platform, ExternalID: t.ExternalID, Name: t.Name}
	}
	return places, nil
}
