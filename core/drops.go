package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// DropService owns drops and their mint links: moderators set drops up,
// edit, refresh, top up, export and remove them, claim posts are kept
// current and moderators are told when a drop runs low. A member's claim is
// checked here (the drop, its window, codeword and role) and then made by
// the service of the drop's claim method: MintLinkService for auto, link
// and mint, WebsiteService for website, DeliveryService for a POAP
// Delivery. A method whose service the process was not given is not
// offered: drops are not set to it (ErrMethodNotOffered).
type DropService struct {
	dropBase
	mintLinks MintLinkStore
	posts     PostStore
	issuer    DropIssuer
	// attendance restricts the claims of drops with attendance sessions.
	attendance Attendance
	// methods are the claim methods offered, each with its service.
	methods map[ClaimMethod]claimer
	// networks reads the network of a drop just added; nil reads none.
	networks *NetworkService
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
	// Links claims through mint links (auto, link, mint), required.
	Links *MintLinkService
	// Attendance says who attended a drop's sessions (AttendanceService),
	// required: a drop with attendance sessions is claimed only by the
	// members counted in one.
	Attendance Attendance
	// Websites and Deliveries are the other claim methods' services: a
	// nil one's method is not offered.
	Websites   *WebsiteService
	Deliveries *DeliveryService
	// Networks reads the network a drop mints on when it is added; nil
	// leaves it unread.
	Networks *NetworkService
	// Clock defaults to the system clock, Logger to one that discards.
	Clock  Clock
	Logger *slog.Logger
	// Tally counts what the service does for the domain metrics; nil
	// counts nothing.
	Tally Tally
}

// NewDropService returns the drop service. It returns an error wrapping
// ErrMissingDependency when a required dependency is nil.
func NewDropService(d DropServiceDeps) (*DropService, error) {
	err := missing("drop service", "MintLinks", d.MintLinks, "Posts", d.Posts, "Issuer", d.Issuer, "Links", d.Links, "Attendance", d.Attendance)
	if err != nil {
		return nil, err
	}
	b, err := newDropBase("drop service", d.Members, d.Drops, d.Audit, newBase(d.Clock, d.Logger, d.Tally))
	if err != nil {
		return nil, err
	}
	s := &DropService{dropBase: b, mintLinks: d.MintLinks, posts: d.Posts, issuer: d.Issuer, attendance: d.Attendance,
		networks: d.Networks, methods: map[ClaimMethod]claimer{ClaimAuto: d.Links, ClaimLink: d.Links, ClaimMint: d.Links}}
	if d.Websites != nil {
		s.methods[ClaimWebsite] = d.Websites
	}
	if d.Deliveries != nil {
		s.methods[ClaimDelivery] = d.Deliveries
	}
	return s, nil
}

// method returns the service of the claim method m, or an error wrapping
// ErrMethodNotOffered.
func (s *DropService) method(m ClaimMethod) (claimer, error) {
	if c, ok := s.methods[m]; ok {
		return c, nil
	}
	return nil, notOffered(m)
}

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
// inside a *DropError: ErrInvalidClaimMethod, ErrInvalidWindow,
// ErrInvalidWebsiteName, ErrMethodNotOffered (checked before any request),
// ErrNoWebsite,
// ErrWrongEditCode, ErrUnknownEvent, ErrDropExists; and the issuer's
// ErrIssuerUnavailable or ErrIssuerRejected.
func (s *DropService) AddDrop(ctx context.Context, moderator Member, p Place, opts AddDropOptions) (DropStatus, error) {
	d := Drop{EventID: opts.EventID}
	if err := opts.validate(s.clock.Now()); err != nil {
		return DropStatus{}, dropError(d, err)
	}
	method, err := s.method(opts.Method)
	if err != nil {
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
	if err := method.check(ctx, opts.EventID, opts.Website); err != nil {
		return DropStatus{}, dropError(d, err)
	}
	links, err := s.issuer.MintLinks(ctx, opts.EventID, opts.EditCode)
	if err != nil {
		return DropStatus{}, dropError(d, err)
	}
	place, user, err := s.upsertPlace(ctx, p, moderator)
	if err != nil {
		return DropStatus{}, wrap("add drop", err)
	}
	d = Drop{
		PlaceID: place.ID, EventID: opts.EventID, Name: details.Name, ImageURL: details.ImageURL,
		EditCode: opts.EditCode, Method: opts.Method, Starts: utcPtr(opts.Starts), Ends: utcPtr(opts.Ends),
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
	d = added
	if s.networks != nil {
		d = s.networks.read(ctx, d)
	}
	stock, err := s.mintLinks.Stock(ctx, d.ID)
	if err != nil {
		return DropStatus{}, wrap("add drop", err)
	}
	action := AuditDropAdded
	if again {
		action = AuditDropAddedAgain
	}
	s.record(ctx, d.PlaceID, user.ID, action, fmt.Sprintf("event %d, claim method %s, %d links (%d claimed elsewhere)",
		d.EventID, d.Method, stock.Total, stock.ClaimedElsewhere))
	return DropStatus{Drop: d, Stock: stock, Again: again}, nil
}

// ListDrops lists the place's drops that are not removed, with their stock.
// It returns the store's error.
func (s *DropService) ListDrops(ctx context.Context, p Place) ([]DropStatus, error) {
	place, err := s.members.UpsertPlace(ctx, p.stored())
	if err != nil {
		return nil, wrap("list drops", err)
	}
	drops, err := s.drops.Drops(ctx, place.ID)
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
	st := DropStatus{Drop: d, Stock: stock}
	if method, ok := s.methods[d.Method]; ok {
		if err := method.describe(ctx, d, &st); err != nil {
			return DropStatus{}, wrap("drop info", err)
		}
	}
	return st, nil
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
	s.auditBy(ctx, d.PlaceID, moderator, AuditDropRemoved, fmt.Sprintf("event %d", d.EventID))
	return d, nil
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
	places, err := s.drops.DropPlaces(ctx, platform, eventID)
	if err != nil {
		return nil, wrap("drop places", err)
	}
	if len(places) == 0 {
		return nil, nil
	}
	out := make([]Place, len(places))
	for i, t := range places {
		out[i] = Place{Platform: t.Platform, ExternalID: t.ExternalID, Name: t.Name}
	}
	return out, nil
}
