package core

import (
	"cmp"
	"context"
	"fmt"
	"strings"
)

// WebsiteInfo is where a drop's website claim stands, for /drop info.
type WebsiteInfo struct {
	Name string
	// Status is the service's word on it; StatusErr why it could not be
	// read (ErrNoWebsite: not created yet, as while its request is
	// reviewed).
	Status    WebsiteStatus
	StatusErr error
	// Pending counts the drop's website requests under review, -1 when
	// not read.
	Pending int
	// Claims counts the members' mints through it here.
	Claims WebsiteStats
}

// Defaults of a website request: how many mints it asks for, and its
// window (hh:mm on the drop's first and last day, UTC).
const (
	DefaultWebsiteCount = 100
	DefaultWebsiteFrom  = "00:00"
	DefaultWebsiteTo    = "23:59"
)

// check checks that the issuing service has the website claim name and
// that it is eventID's: ErrNoWebsite otherwise.
func (s *WebsiteService) check(ctx context.Context, eventID int64, name string) error {
	st, err := s.issuer.Website(ctx, name)
	if err != nil {
		return err
	}
	if st.EventID != 0 && st.EventID != eventID {
		return fmt.Errorf("website %q is drop %d's: %w", name, st.EventID, ErrNoWebsite)
	}
	return nil
}

// RequestWebsite asks the issuing service for a website claim of the
// place's drop, with the drop's stored edit code, and makes the drop mint
// through it: members' claims wait until the review approves it (up to 24
// hours, 48 for integrators). One website request of a drop may be pending
// at a time. Nothing is stored when the service refuses. Errors, inside a
// *DropError: ErrNoSuchDrop, ErrDropRemoved, ErrDeliveryExists (the drop
// mints through its delivery), ErrInvalidWebsiteName (a name that
// cannot be a path segment), ErrInvalidTopUp (a count outside 1 to
// MaxTopUp), ErrInvalidWindow, ErrWebsitePending, ErrWebsiteExists,
// ErrClaimNameTaken, ErrWrongEditCode, and the
// issuer's ErrIssuerRefused, ErrIssuerUnavailable or ErrIssuerRejected.
func (s *WebsiteService) RequestWebsite(ctx context.Context, moderator Member, p Place, r WebsiteRequest) (Drop, error) {
	d, err := s.placeDrop(ctx, p, r.EventID, false)
	if err != nil {
		return Drop{}, err
	}
	if d.Method == ClaimDelivery {
		// Its members' claims go through the delivery, whose list is
		// fixed: another method would leave them on a list nobody reads.
		return Drop{}, dropError(d, ErrDeliveryExists)
	}
	r.Name = strings.TrimSpace(r.Name)
	switch {
	case !validWebsiteName(r.Name):
		return Drop{}, dropError(d, ErrInvalidWebsiteName)
	case r.Count == 0:
		r.Count = DefaultWebsiteCount
	case r.Count < 0 || r.Count > MaxTopUp:
		return Drop{}, dropError(d, ErrInvalidTopUp)
	}
	r.From = cmp.Or(r.From, DefaultWebsiteFrom)
	r.To = cmp.Or(r.To, DefaultWebsiteTo)
	r.EditCode = d.EditCode
	if err := s.issuer.RequestWebsite(ctx, r); err != nil {
		return Drop{}, dropError(d, err)
	}
	now := s.clock.Now()
	if err := s.store.SetDropWebsite(ctx, d.ID, r.Name, &now); err != nil {
		return Drop{}, wrap("request website", err)
	}
	d.Method, d.Website, d.WebsiteRequestedAt = ClaimWebsite, r.Name, &now
	s.web.forget(r.Name)
	s.auditBy(ctx, d.PlaceID, moderator, AuditWebsiteRequested, fmt.Sprintf("event %d, website %s, %d mints", d.EventID, r.Name, r.Count))
	return d, nil
}

// describe reads where the drop's website claim stands, into st.Website:
// the service's status (fresh, not cached), the requests under review and
// the members' claims here. Failures to read the service are part of the
// answer.
func (s *WebsiteService) describe(ctx context.Context, d Drop, st *DropStatus) error {
	info := &WebsiteInfo{Name: d.Website, Pending: -1}
	info.Status, info.StatusErr = s.issuer.Website(ctx, d.Website)
	if n, err := s.issuer.PendingWebsiteRequests(ctx, d.EventID); err == nil {
		info.Pending = n
	}
	var err error
	if info.Claims, err = s.store.WebsiteStats(ctx, d.ID); err != nil {
		return err
	}
	st.Website = info
	return nil
}

// forget drops the website's last open verdict, so that the next claim
// reads its status afresh.
func (q *websiteQueue) forget(name string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.openAt, name)
}
