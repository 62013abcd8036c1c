package core

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// DeliverySpec is /drop deliver as typed.
type DeliverySpec struct {
	EventID int64
	// Target is the role whose members are listed (a Discord role id, a
	// console role's name); empty for the Telegram group the command runs
	// in.
	Target string
	// Slug, Title and Text override the page address and the texts taken
	// from the drop.
	Slug  string
	Title string
	Text  string
}

// DeliveryPlan is a delivery as shown to the moderator: a draft to confirm,
// or the delivery created.
type DeliveryPlan struct {
	Drop     Drop
	Delivery DropDelivery
	// URL is the delivery page's address.
	URL string
	// Shared counts members left off the list because another member
	// listed the same address first.
	Shared int
	// Again: the draft confirmed had been created already.
	Again bool
}

// DeliveryInfo is where a drop's delivery stands, for /drop info.
type DeliveryInfo struct {
	Delivery DropDelivery
	URL      string
	// Claims counts the list's entries by their claims through the chat.
	Claims DeliveryStats
	// Status is the service's word on it (its claims on the page too);
	// StatusErr why it could not be read.
	Status    DeliveryStatus
	StatusErr error
}

// DeliveryService claims drops through their POAP Delivery (claim method
// delivery): moderators turn the verified wallets of a role's members, or
// of a Telegram group's, into a delivery of a drop (DraftDelivery, then
// ConfirmDelivery), whose list is fixed once created; a member's /claim
// then mints to their listed address, settled before anything is sent
// again, never twice.
type DeliveryService struct {
	dropBase
	mintNews
	store  DeliveryStore
	issuer DeliveryIssuer
	roster Roster
	// pages is the base of delivery pages.
	pages string
}

// DeliveryServiceDeps are the dependencies of a DeliveryService.
type DeliveryServiceDeps struct {
	// Members, Drops, Audit and Store are stored state (storage.DB), all
	// required.
	Members MemberStore
	Drops   DropStore
	Audit   AuditLog
	Store   DeliveryStore
	// Issuer is the issuing service's side of deliveries
	// (poap.DropIssuer), required.
	Issuer DeliveryIssuer
	// Roster says who has a role or is in a group (GateService), and
	// Mints hears of the POAPs minted to members (GateService); both
	// required.
	Roster Roster
	Mints  MintEvents
	// URL is the base of delivery pages, POAP_DELIVERY_URL; empty is
	// DefaultDeliveryURL.
	URL string
	// Clock defaults to the system clock, Logger to one that discards.
	Clock  Clock
	Logger *slog.Logger
}

// NewDeliveryService returns the deliveries' service. It returns an error
// wrapping ErrMissingDependency when a required dependency is nil.
func NewDeliveryService(d DeliveryServiceDeps) (*DeliveryService, error) {
	const name = "delivery service"
	if err := missing(name, "Store", d.Store, "Issuer", d.Issuer, "Roster", d.Roster, "Mints", d.Mints); err != nil {
		return nil, err
	}
	b, err := newDropBase(name, d.Members, d.Drops, d.Audit, newBase(d.Clock, d.Logger, nil))
	if err != nil {
		return nil, err
	}
	s := &DeliveryService{dropBase: b, mintNews: newMintNews(d.Mints, b), store: d.Store, issuer: d.Issuer, roster: d.Roster,
		pages: DefaultDeliveryURL}
	if base := strings.TrimRight(strings.TrimSpace(d.URL), "/"); base != "" {
		s.pages = base
	}
	return s, nil
}

// DeliveryURL returns the address of the delivery page slug.
func (s *DeliveryService) DeliveryURL(slug string) string { return s.pages + "/" + slug }

// DraftDelivery builds the list of a delivery of the place's drop: one
// verified address for each member who has the role (or is in the group),
// their primary wallet first, and keeps it as a draft, replacing the drop's
// earlier draft. Nothing reaches the issuing service until the moderator
// confirms it (ConfirmDelivery). Errors, inside a *DropError: ErrNoSuchDrop,
// ErrDropRemoved, ErrDeliveryExists, ErrInvalidSlug, ErrRosterIncomplete,
// ErrEmptyDelivery, ErrCannotListMembers; the platform's errors reading
// the members.
func (s *DeliveryService) DraftDelivery(ctx context.Context, moderator Member, p Place, spec DeliverySpec) (DeliveryPlan, error) {
	d, err := s.placeDrop(ctx, p, spec.EventID, false)
	if err != nil {
		return DeliveryPlan{}, err
	}
	switch _, err := s.store.CreatedDelivery(ctx, d.ID); {
	case err == nil:
		return DeliveryPlan{}, dropError(d, ErrDeliveryExists)
	case !errors.Is(err, ErrNotFound):
		return DeliveryPlan{}, wrap("draft delivery", err)
	}
	dl, err := deliveryTexts(d, spec)
	if err != nil {
		return DeliveryPlan{}, err
	}
	members, err := s.roster.VerifiedMembersOf(ctx, p, spec.Target)
	if err != nil {
		return DeliveryPlan{}, dropError(d, err)
	}
	entries, shared, err := s.deliveryEntries(ctx, members)
	if err != nil {
		return DeliveryPlan{}, wrap("draft delivery", err)
	}
	if len(entries) == 0 {
		return DeliveryPlan{}, dropError(d, ErrEmptyDelivery)
	}
	user, err := s.members.UpsertUser(ctx, moderator.user())
	if err != nil {
		return DeliveryPlan{}, wrap("draft delivery", err)
	}
	dl.DropID, dl.CreatedBy, dl.CreatedAt = d.ID, user.ID, s.clock.Now()
	dl.Source = "group:" + p.ExternalID
	if spec.Target != "" {
		dl.Source = "role:" + spec.Target
	}
	if dl, err = s.store.SaveDeliveryDraft(ctx, dl, entries); err != nil {
		return DeliveryPlan{}, wrap("draft delivery", err)
	}
	return DeliveryPlan{Drop: d, Delivery: dl, URL: s.DeliveryURL(dl.Slug), Shared: shared}, nil
}

// deliveryTexts returns the delivery's page address and texts: the
// moderator's, or else the drop's.
func deliveryTexts(d Drop, spec DeliverySpec) (DropDelivery, error) {
	slug := strings.TrimSpace(spec.Slug)
	if slug == "" {
		slug = defaultSlug(d)
	}
	if !validWebsiteName(slug) || len(slug) > MaxSlug {
		return DropDelivery{}, dropError(d, ErrInvalidSlug)
	}
	title := clip(strings.TrimSpace(spec.Title), MaxDeliveryText)
	if title == "" {
		title = clip(dropName(d), MaxDeliveryText)
	}
	text := clip(strings.TrimSpace(spec.Text), MaxDeliveryText)
	if text == "" {
		text = clip("The POAP of "+dropName(d)+", for the community that earned it.", MaxDeliveryText)
	}
	return DropDelivery{Slug: slug, CardTitle: title, CardText: text, PageTitle: title, PageText: text}, nil
}

// defaultSlug makes a page address of the drop's name, its id and six
// random hex digits: lower-case letters and digits joined by hyphens.
func defaultSlug(d Drop) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(d.Name) {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			hyphen = false
		default:
			hyphen = true
		}
		if b.Len() >= 60 {
			break
		}
	}
	// A random tail keeps two places' deliveries of one drop, and two
	// drafts of one place, at different pages: a creation is settled by
	// reading its page, which must be this draft's alone.
	tail := make([]byte, 3)
	_, _ = rand.Read(tail)
	id := strconv.FormatInt(d.EventID, 10) + "-" + hex.EncodeToString(tail)
	if b.Len() == 0 {
		return "poap-" + id
	}
	return strings.TrimRight(b.String(), "-") + "-" + id
}

// deliveryEntries picks one address for each member: their primary wallet
// when it is verified, else their first verified one. A member whose every
// address is another's on the list already is left off (shared).
func (s *DeliveryService) deliveryEntries(ctx context.Context, members []VerifiedMember) ([]DeliveryEntry, int, error) {
	taken := map[string]bool{}
	var out []DeliveryEntry
	shared := 0
	for _, m := range members {
		ws, err := s.members.Wallets(ctx, m.User.ID) // primary first
		if err != nil {
			return nil, 0, err
		}
		address := ""
		for _, w := range ws {
			a := strings.ToLower(w.Address)
			if w.Verified() && w.Kind != KindEmail && a != "" && !taken[a] {
				address = a
				break
			}
		}
		if address == "" {
			shared++
			continue
		}
		taken[address] = true
		out = append(out, DeliveryEntry{Address: address, UserID: m.User.ID, State: EntryListed})
	}
	return out, shared, nil
}

// ConfirmDelivery creates the draft at the issuing service with the drop's
// stored edit code, and makes the drop mint through it: /claim then mints
// to the member's listed address. Its list is fixed from then on. A
// creation whose answer was lost, or a second press, is settled by reading
// the delivery at its page address: the same delivery is never created
// twice. Errors, inside a *DropError: ErrNoSuchDrop, ErrDropRemoved,
// ErrDraftGone, ErrDeliveryExists, ErrSlugTaken, ErrWrongEditCode,
// ErrDraftStale (older than DeliveryDraftTTL, or a listed member's address
// is no longer theirs and verified), ErrIssuerBusy,
// and the issuer's ErrIssuerUnavailable (it may have been created:
// confirming the same draft again settles it).
func (s *DeliveryService) ConfirmDelivery(ctx context.Context, moderator Member, p Place, eventID, draftID int64) (DeliveryPlan, error) {
	d, err := s.placeDrop(ctx, p, eventID, false)
	if err != nil {
		return DeliveryPlan{}, err
	}
	dl, err := s.store.Delivery(ctx, draftID)
	switch {
	case errors.Is(err, ErrNotFound) || err == nil && dl.DropID != d.ID:
		return DeliveryPlan{}, dropError(d, ErrDraftGone)
	case err != nil:
		return DeliveryPlan{}, wrap("confirm delivery", err)
	case dl.State == DeliveryCreated:
		return DeliveryPlan{Drop: d, Delivery: dl, URL: s.DeliveryURL(dl.Slug), Again: true}, nil
	case s.clock.Now().Sub(dl.CreatedAt) > DeliveryDraftTTL:
		return DeliveryPlan{}, dropError(d, ErrDraftStale)
	}
	switch other, err := s.store.CreatedDelivery(ctx, d.ID); {
	case err == nil && other.ID != dl.ID:
		return DeliveryPlan{}, dropError(d, ErrDeliveryExists)
	case err != nil && !errors.Is(err, ErrNotFound):
		return DeliveryPlan{}, wrap("confirm delivery", err)
	}
	entries, err := s.store.DeliveryEntries(ctx, dl.ID)
	if err != nil {
		return DeliveryPlan{}, wrap("confirm delivery", err)
	}
	switch current, err := s.stillVerified(ctx, entries); {
	case err != nil:
		return DeliveryPlan{}, wrap("confirm delivery", err)
	case !current:
		return DeliveryPlan{}, dropError(d, ErrDraftStale)
	}
	id, err := s.createDelivery(ctx, d, dl, entries)
	if err != nil {
		return DeliveryPlan{}, dropError(d, err)
	}
	// The delivery exists at POAP from here: its record must not be
	// lost to the member's command running out of time.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	created, err := s.store.MarkDeliveryCreated(ctx, dl.ID, id, s.clock.Now())
	if errors.Is(err, ErrNotFound) {
		// A newer draft replaced this one while POAP created it: this
		// one is what POAP holds, so it is recorded again, as created.
		if dl, err = s.store.SaveDeliveryDraft(ctx, dl, entries); err == nil {
			created, err = s.store.MarkDeliveryCreated(ctx, dl.ID, id, s.clock.Now())
		}
	}
	if err != nil {
		s.log.Error("delivery created at the issuing service, not recorded", "event", d.EventID, "delivery", id, "err", err)
		return DeliveryPlan{}, dropError(d, err)
	}
	dl = created
	s.auditBy(ctx, d.PlaceID, moderator, AuditDeliveryCreated,
		fmt.Sprintf("event %d, delivery %d, %d addresses", d.EventID, id, len(entries)))
	d.Method = ClaimDelivery
	return DeliveryPlan{Drop: d, Delivery: dl, URL: s.DeliveryURL(dl.Slug)}, nil
}

// createDelivery creates the delivery at the issuing service and returns
// its id there. When the service says the page address is taken, or its
// answer was lost, the delivery at that address is read: if it is this
// drop's with as many addresses, it is this one, created before.
func (s *DeliveryService) createDelivery(ctx context.Context, d Drop, dl DropDelivery, entries []DeliveryEntry) (int64, error) {
	r := DeliveryRequest{
		EventID: d.EventID, EditCode: d.EditCode, Slug: dl.Slug, CardTitle: dl.CardTitle, CardText: dl.CardText,
		PageTitle: dl.PageTitle, PageText: dl.PageText, Image: d.ImageURL, Addresses: make([]string, len(entries)),
	}
	for i, e := range entries {
		r.Addresses[i] = e.Address
	}
	id, err := s.issuer.CreateDelivery(ctx, r)
	unknown := errors.Is(err, ErrIssuerUnavailable) && !errors.Is(err, ErrNotSent)
	if err == nil || !errors.Is(err, ErrSlugTaken) && !unknown {
		return id, err
	}
	st, rerr := s.issuer.DeliveryBySlug(ctx, dl.Slug)
	switch {
	case rerr == nil && slices.Contains(st.EventIDs, d.EventID) && st.Total == int64(len(entries)) && st.ID > 0:
		return st.ID, nil
	case rerr != nil && !errors.Is(rerr, ErrNotFound):
		return 0, fmt.Errorf("%w (and reading it back: %v)", err, rerr)
	}
	return 0, err
}

// describe reads where the drop's delivery stands, into st.Delivery: its
// list here and the service's count of claims (fresh). Failures to read
// the service are part of the answer.
func (s *DeliveryService) describe(ctx context.Context, d Drop, st *DropStatus) error {
	dl, err := s.store.CreatedDelivery(ctx, d.ID)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	info := &DeliveryInfo{Delivery: dl, URL: s.DeliveryURL(dl.Slug)}
	if info.Claims, err = s.store.DeliveryStats(ctx, dl.ID); err != nil {
		return err
	}
	info.Status, info.StatusErr = s.issuer.DeliveryBySlug(ctx, dl.Slug)
	st.Delivery = info
	return nil
}

// check refuses: a drop is set to its delivery by ConfirmDelivery alone,
// never by /drop add or /drop edit (checkClaimMethod refuses it first).
func (s *DeliveryService) check(context.Context, int64, string) error { return ErrInvalidClaimMethod }

// stillVerified reports whether every entry's member is still here and
// still has the entry's address as a verified wallet: a draft confirmed
// after a member unlinked or was forgotten must not give POAP their
// address.
func (s *DeliveryService) stillVerified(ctx context.Context, entries []DeliveryEntry) (bool, error) {
	for _, e := range entries {
		if e.UserID == 0 {
			return false, nil
		}
		ws, err := s.members.Wallets(ctx, e.UserID)
		if err != nil {
			return false, err
		}
		if !slices.ContainsFunc(ws, func(w Wallet) bool { return w.Verified() && strings.EqualFold(w.Address, e.Address) }) {
			return false, nil
		}
	}
	return true, nil
}
