package core

import (
	"context"
	"errors"
	"fmt"
)

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
func (s *DropService) RefreshDrop(ctx context.Context, moderator Member, p Place, eventID int64) (Refreshed, error) {
	d, err := s.placeDrop(ctx, p, eventID, false)
	if err != nil {
		return Refreshed{}, err
	}
	r, err := s.refresh(ctx, d)
	if err != nil {
		return Refreshed{}, err
	}
	s.auditBy(ctx, d.PlaceID, moderator, AuditDropRefreshed, refreshDetail(r))
	return r, nil
}

// RefreshAll re-imports the mint links of every drop not removed nor
// expired, for a schedule. It goes on after a failing drop and returns the
// failures joined.
func (s *DropService) RefreshAll(ctx context.Context) error {
	drops, err := s.drops.AllDrops(ctx)
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
			s.record(ctx, d.PlaceID, 0, AuditDropRefreshed, refreshDetail(r)+" (scheduled)")
		}
	}
	return errors.Join(errs...)
}

// refresh imports d's links.
func (s *DropService) refresh(ctx context.Context, d Drop) (Refreshed, error) {
	links, err := s.issuer.MintLinks(ctx, d.EventID, d.EditCode)
	if err != nil {
		return Refreshed{}, dropError(d, err)
	}
	added, marked, err := s.mintLinks.ImportMintLinks(ctx, d.ID, links)
	if err != nil {
		return Refreshed{}, wrap(fmt.Sprintf("refresh drop %d", d.EventID), err)
	}
	stock, err := s.mintLinks.Stock(ctx, d.ID)
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
func (s *DropService) TopUp(ctx context.Context, moderator Member, p Place, eventID int64, count int) (Drop, int, error) {
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
	pending, err := s.issuer.PendingMintLinkRequests(ctx, d.EventID)
	switch {
	case err != nil:
		return Drop{}, 0, dropError(d, err)
	case pending > 0:
		return Drop{}, 0, dropError(d, ErrTopUpPending)
	}
	if err := s.issuer.RequestMintLinks(ctx, d.EventID, d.EditCode, count); err != nil {
		return Drop{}, 0, dropError(d, err)
	}
	s.auditBy(ctx, d.PlaceID, moderator, AuditTopUpRequested, fmt.Sprintf("event %d, %d links", d.EventID, count))
	return d, count, nil
}

// Export lists the links of the place's drop eventID that left the pool,
// members by pseudonymous id; the moderator is audited. Errors: a
// *DropError with ErrNoSuchDrop, or the store's error.
func (s *DropService) Export(ctx context.Context, moderator Member, p Place, eventID int64) (Drop, []ExportRow, error) {
	d, err := s.placeDrop(ctx, p, eventID, true)
	if err != nil {
		return Drop{}, nil, err
	}
	rows, err := s.mintLinks.ExportMintLinks(ctx, d.ID)
	if err != nil {
		return Drop{}, nil, wrap("export", err)
	}
	s.auditBy(ctx, d.PlaceID, moderator, AuditDropExported, fmt.Sprintf("event %d, %d rows", d.EventID, len(rows)))
	return d, rows, nil
}

// noteStock notes, once per shortage, that d's stock fell below its low
// mark, for LowStockNotices to tell the moderators. A failure is logged:
// the claim it follows has happened.
func (s *DropService) noteStock(ctx context.Context, d Drop) {
	if d.LowStock <= 0 {
		return
	}
	first, err := s.mintLinks.NoteLowStock(ctx, d.ID, s.clock.Now())
	if err != nil {
		s.log.Warn("low stock not noted", "event", d.EventID, "err", err)
		return
	}
	if first {
		s.log.Info("drop low on mint links", "event", d.EventID, "low", d.LowStock)
	}
}
