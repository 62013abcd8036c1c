package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// DefaultLowStock is the number of available links under which moderators
// are told, when AddDropOptions leaves it zero.
const DefaultLowStock = 10

// AddDropOptions are the settings of /drop add.
type AddDropOptions struct {
	EventID  int64
	EditCode Secret
	// Method is how members get the POAP; empty means ClaimAuto.
	Method ClaimMethod
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
	// Website names the drop's website claim, for ClaimWebsite.
	Website string
}

// validate checks the options that need no service, at now. /drop edit
// checks the settings it changes with the same functions.
func (o *AddDropOptions) validate(now time.Time) error {
	var err error
	if o.Method, o.Website, err = checkClaimMethod(o.Method, o.Website); err != nil {
		return err
	}
	if err := checkWindow(o.Starts, o.Ends, now, true); err != nil {
		return err
	}
	o.LowStock = lowStock(o.LowStock)
	o.Codeword = strings.TrimSpace(o.Codeword)
	o.RequiredRole = strings.TrimSpace(o.RequiredRole)
	return nil
}

// checkClaimMethod returns the claim method ("" is auto) and the website claim's
// name, trimmed, or ErrInvalidClaimMethod, ErrNoWebsite (website without a
// name) or ErrInvalidWebsiteName.
func checkClaimMethod(d ClaimMethod, website string) (ClaimMethod, string, error) {
	switch d {
	case "":
		return ClaimAuto, website, nil
	case ClaimAuto, ClaimLink, ClaimMint:
		return d, website, nil
	case ClaimWebsite:
		website = strings.TrimSpace(website)
		switch {
		case website == "":
			return d, website, ErrNoWebsite
		case !validWebsiteName(website):
			return d, website, ErrInvalidWebsiteName
		}
		return d, website, nil
	}
	return d, website, ErrInvalidClaimMethod
}

// checkWindow returns ErrInvalidWindow when the window ends before it
// starts, or, when ends is being set (newEnds), not after now.
func checkWindow(starts, ends *time.Time, now time.Time, newEnds bool) error {
	if ends != nil && (newEnds && !ends.After(now) || starts != nil && !ends.After(*starts)) {
		return ErrInvalidWindow
	}
	return nil
}

// lowStock is the threshold a LowStock option stores: zero is
// DefaultLowStock, negative is 0 (never).
func lowStock(n int) int {
	switch {
	case n == 0:
		return DefaultLowStock
	case n < 0:
		return 0
	}
	return n
}

// DropChange is a drop before and after /drop edit.
type DropChange struct {
	Before Drop
	After  Drop
}

// Changed names the settings that differ between Before and After, as
// /drop edit's options are named: starts, ends, codeword, required_role,
// delivery, low_stock. None when the edit changed nothing.
func (c DropChange) Changed() []string {
	b, a := c.Before, c.After
	var out []string
	add := func(name string, differ bool) {
		if differ {
			out = append(out, name)
		}
	}
	add("starts", !sameTime(b.Starts, a.Starts))
	add("ends", !sameTime(b.Ends, a.Ends))
	add("codeword", b.Codeword != a.Codeword)
	add("required_role", b.RequiredRole != a.RequiredRole)
	add("delivery", b.Method != a.Method || a.Method == ClaimWebsite && b.Website != a.Website)
	add("low_stock", b.LowStock != a.LowStock)
	return out
}

// sameTime reports whether a and b are both nil or the same instant.
func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// EditDrop changes the settings e gives of the place's drop e.EventID, in
// place, for the moderator, with /drop add's checks: the claim window must
// end after it starts (and a new end be in the future), the claim method be
// auto, link, mint or website (with a website claim POAP has for the
// drop), and a drop minted through its delivery keeps it. Nothing changes
// when a check fails. Members keep the links they were given. A lower or
// higher low_stock applies at once (a drop already below it is noted).
// Claim messages posted with /distribute show the drop's name, image and
// count only, so none of these settings changes them. Errors, inside a
// *DropError: ErrNoSuchDrop, ErrDropRemoved, ErrInvalidWindow,
// ErrInvalidClaimMethod, ErrNoWebsite, ErrInvalidWebsiteName,
// ErrDeliveryExists, ErrMethodNotOffered (a method this process does not
// offer); the issuer's ErrIssuerUnavailable; or the store's error.
func (s *DropService) EditDrop(ctx context.Context, moderator Member, p Place, e DropEdit) (DropChange, error) {
	d, err := s.placeDrop(ctx, p, e.EventID, false)
	if err != nil {
		return DropChange{}, err
	}
	if err := s.checkEdit(ctx, d, &e); err != nil {
		return DropChange{}, dropError(d, err)
	}
	if e.Empty() {
		return DropChange{Before: d, After: d}, nil
	}
	before, after, err := s.drops.EditDrop(ctx, d.ID, e)
	switch {
	case errors.Is(err, ErrNotFound):
		return DropChange{}, dropError(d, ErrNoSuchDrop)
	case errors.Is(err, ErrDropRemoved), errors.Is(err, ErrInvalidWindow), errors.Is(err, ErrDeliveryExists):
		return DropChange{}, dropError(d, err)
	case err != nil:
		return DropChange{}, wrap("edit drop", err)
	}
	c := DropChange{Before: before, After: after}
	if changed := c.Changed(); len(changed) > 0 {
		s.auditBy(ctx, d.PlaceID, moderator, AuditDropEdited, fmt.Sprintf("event %d: %s", d.EventID, strings.Join(changed, ", ")))
	}
	if before.LowStock != after.LowStock {
		s.noteStock(ctx, after)
	}
	return c, nil
}

// checkEdit checks e against the drop d as it stands, normalising its
// values as /drop add does; the website claim method is checked with the
// issuing service last.
func (s *DropService) checkEdit(ctx context.Context, d Drop, e *DropEdit) error {
	var method claimer
	if e.Method.Set {
		if d.Method == ClaimDelivery {
			// Its members' claims go through the delivery, whose list is
			// fixed (see RequestWebsite).
			return ErrDeliveryExists
		}
		var err error
		if e.Method.To, e.Website, err = checkClaimMethod(e.Method.To, e.Website); err != nil {
			return err
		}
		if method, err = s.method(e.Method.To); err != nil {
			return err
		}
	}
	starts, ends := d.Starts, d.Ends
	if e.Starts.Set {
		starts = utcPtr(e.Starts.To)
		e.Starts.To = starts
	}
	if e.Ends.Set {
		ends = utcPtr(e.Ends.To)
		e.Ends.To = ends
	}
	if e.Starts.Set || e.Ends.Set {
		if err := checkWindow(starts, ends, s.clock.Now(), e.Ends.Set); err != nil {
			return err
		}
	}
	if e.LowStock.Set {
		e.LowStock.To = lowStock(e.LowStock.To)
	}
	e.Codeword.To = strings.TrimSpace(e.Codeword.To)
	e.RequiredRole.To = strings.TrimSpace(e.RequiredRole.To)
	if method != nil {
		return method.check(ctx, d.EventID, e.Website)
	}
	return nil
}
