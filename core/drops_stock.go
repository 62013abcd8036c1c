package core

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DropEvents is told about the stock of drops. Events given to WithEvents
// that also implement it are told; the channel notice to moderators
// subscribes here. Implementations must not block for long: they run inside
// a member's claim.
type DropEvents interface {
	// LowStock: fewer than d.LowStock links of d are left to hand out. It
	// is told once per shortage, until new links are imported.
	LowStock(ctx context.Context, d Drop, stock Stock)
}

// LowStockStore is what the low-stock notice needs beside DropStore
// (storage.DB has it); without it, no notice is given.
type LowStockStore interface {
	// NoteLowStock marks that moderators are told the drop runs low, when
	// its available links are fewer than its LowStock and they were not
	// told since links were last imported. It reports whether this call
	// marked it: true once per shortage, however many callers race.
	NoteLowStock(ctx context.Context, dropID int64, at time.Time) (bool, error)
}

// DropLister is what RefreshAll needs beside DropStore: every drop of every
// tenant that is not removed.
type DropLister interface {
	AllDrops(ctx context.Context) ([]Drop, error)
}

// DefaultTopUp is how many links /drop topup asks for when no count is
// given.
const DefaultTopUp = 50

// MaxTopUp is the most links one request may ask for.
const MaxTopUp = 50000

// Refreshed is what RefreshDrop did: links added, links found claimed
// elsewhere, and the stock after.
type Refreshed struct {
	Drop   Drop
	Added  int
	Marked int
	Stock  Stock
}

// RefreshDrop re-imports the mint links of the place's drop eventID, after
// a top-up was approved: new links are added, and available links the
// issuing service says are claimed are set aside. The moderator is audited.
// Errors: a *DropError with
// ErrNoSuchDrop, ErrDropRemoved or ErrWrongEditCode (the code changed), the
// issuer's ErrIssuerUnavailable or ErrIssuerRejected, or the store's error.
func (s *Service) RefreshDrop(ctx context.Context, moderator Member, p Place, eventID int64) (Refreshed, error) {
	d, err := s.placeDrop(ctx, p, eventID, false)
	if err != nil {
		return Refreshed{}, err
	}
	r, err := s.refresh(ctx, d)
	if err != nil {
		return Refreshed{}, err
	}
	s.auditBy(ctx, d.TenantID, moderator, AuditDropRefreshed, refreshDetail(r))
	return r, nil
}

// RefreshAll re-imports the mint links of every drop not removed nor
// expired, for a schedule. It goes on after a failing drop and returns the
// failures joined. It needs a store that implements DropLister.
func (s *Service) RefreshAll(ctx context.Context) error {
	lister, ok := s.drops.(DropLister)
	if !ok || s.dropIssuer == nil {
		return errors.New("refresh all: the store cannot list every drop")
	}
	drops, err := lister.AllDrops(ctx)
	if err != nil {
		return wrap("refresh all", err)
	}
	var errs []error
	now := s.clock.Now()
	for _, d := range drops {
		if d.RemovedAt != nil || !d.ExpiresAt.IsZero() && !now.Before(d.ExpiresAt) {
			continue
		}
		if ctx.Err() != nil {
			return errors.Join(append(errs, ctx.Err())...)
		}
		r, err := s.refresh(ctx, d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if r.Added > 0 || r.Marked > 0 {
			s.audit(ctx, d.TenantID, 0, AuditDropRefreshed, refreshDetail(r)+" (scheduled)")
		}
	}
	return errors.Join(errs...)
}

// refresh imports d's links.
func (s *Service) refresh(ctx context.Context, d Drop) (Refreshed, error) {
	links, err := s.dropIssuer.MintLinks(ctx, d.EventID, d.EditCode)
	if err != nil {
		return Refreshed{}, dropError(d, err)
	}
	added, marked, err := s.drops.ImportMintLinks(ctx, d.ID, links)
	if err != nil {
		return Refreshed{}, wrap(fmt.Sprintf("refresh drop %d", d.EventID), err)
	}
	stock, err := s.drops.Stock(ctx, d.ID)
	if err != nil {
		return Refreshed{}, wrap(fmt.Sprintf("refresh drop %d", d.EventID), err)
	}
	return Refreshed{Drop: d, Added: added, Marked: marked, Stock: stock}, nil
}

func refreshDetail(r Refreshed) string {
	return fmt.Sprintf("event %d, %d links added, %d claimed elsewhere", r.Drop.EventID, r.Added, r.Marked)
}

// TopUp asks the issuing service for count more mint links of the place's
// drop eventID (DefaultTopUp when count is zero). One request may be pending
// at a time. Errors: a *DropError with ErrNoSuchDrop, ErrDropRemoved,
// ErrTopUpPending, ErrWrongEditCode or ErrInvalidTopUp; the issuer's
// ErrIssuerUnavailable or ErrIssuerRejected.
func (s *Service) TopUp(ctx context.Context, moderator Member, p Place, eventID int64, count int) (Drop, int, error) {
	d, err := s.placeDrop(ctx, p, eventID, false)
	if err != nil {
		return Drop{}, 0, err
	}
	if count == 0 {
		count = DefaultTopUp
	}
	if count < 1 || count > MaxTopUp {
		return Drop{}, 0, dropError(d, ErrInvalidTopUp)
	}
	pending, err := s.dropIssuer.PendingMintLinkRequests(ctx, d.EventID)
	switch {
	case err != nil:
		return Drop{}, 0, dropError(d, err)
	case pending > 0:
		return Drop{}, 0, dropError(d, ErrTopUpPending)
	}
	if err := s.dropIssuer.RequestMintLinks(ctx, d.EventID, d.EditCode, count); err != nil {
		return Drop{}, 0, dropError(d, err)
	}
	s.auditBy(ctx, d.TenantID, moderator, AuditTopUpRequested, fmt.Sprintf("event %d, %d links", d.EventID, count))
	return d, count, nil
}

// ErrInvalidTopUp means a top-up count outside 1 to MaxTopUp.
var ErrInvalidTopUp = errors.New("invalid top-up count")

// Export lists the links of the place's drop eventID that left the pool,
// members by pseudonymous id; the moderator is audited. Errors: a
// *DropError with ErrNoSuchDrop, or the store's error.
func (s *Service) Export(ctx context.Context, moderator Member, p Place, eventID int64) (Drop, []ExportRow, error) {
	d, err := s.placeDrop(ctx, p, eventID, true)
	if err != nil {
		return Drop{}, nil, err
	}
	rows, err := s.drops.ExportMintLinks(ctx, d.ID)
	if err != nil {
		return Drop{}, nil, wrap("export", err)
	}
	s.auditBy(ctx, d.TenantID, moderator, AuditDropExported, fmt.Sprintf("event %d, %d rows", d.EventID, len(rows)))
	return d, rows, nil
}

// noteStock reports whether d's stock just fell below its low mark, once
// per shortage, and tells the DropEvents if so.
func (s *Service) noteStock(ctx context.Context, d Drop) bool {
	ls, ok := s.drops.(LowStockStore)
	if !ok || d.LowStock <= 0 {
		return false
	}
	first, err := ls.NoteLowStock(ctx, d.ID, s.clock.Now())
	if err != nil {
		s.log.Warn("low stock not noted", "event", d.EventID, "err", err)
		return false
	}
	if !first {
		return false
	}
	stock, err := s.drops.Stock(ctx, d.ID)
	if err != nil {
		s.log.Warn("stock not read after a claim", "event", d.EventID, "err", err)
	}
	s.log.Info("drop low on mint links", "event", d.EventID, "available", stock.Available, "low", d.LowStock)
	if e, ok := s.events.(DropEvents); ok {
		e.LowStock(ctx, d, stock)
	}
	return true
}
