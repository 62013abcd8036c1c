package core

import (
	"context"
	"errors"
	"fmt"
)

// held reports whether the member's entry of the drop's created delivery
// was claimed, is being claimed, or was sent with its outcome not known
// yet: a claim again answers with what they have (claimed, in progress, or
// settled and finished). An entry listed and never sent is not held:
// nothing was claimed for it (never claimed, or the claims were not sent
// or refused), as a website claim refused is not. No created delivery, or
// no entry of the member's, is not held.
func (s *DeliveryService) held(ctx context.Context, d Drop, user User) (bool, error) {
	dl, err := s.store.CreatedDelivery(ctx, d.ID)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	e, err := s.store.MemberDeliveryEntry(ctx, dl.ID, user.ID)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	return e.State != EntryListed || e.Sent, nil
}

// claim mints the drop to the member's address on its delivery's
// list through the delivery claim. The entry is held while the claim is
// sent (two presses send one claim), by the attempt that took it (a claim
// whose request outlived DeliveryLease records nothing once another took
// the entry: the latter owns the outcome), and marked sent before the
// request leaves: a claim whose answer was lost is settled, by reading
// whether the address holds the drop, before anything is sent again; the
// service itself refuses an address's second claim, which counts as
// claimed. A claim whose outcome is not known is Pending. Errors, inside a
// *DropError: ErrNotListed, ErrClaimInProgress (also to a claim whose
// lease ran out and another took the entry), ErrDropExpired,
// ErrMintRefused, ErrIssuerUnavailable (nothing was sent: claim again);
// ErrNoDelivery when the drop has no delivery created.
func (s *DeliveryService) claim(ctx context.Context, d Drop, user User) (ClaimResult, error) {
	dl, err := s.store.CreatedDelivery(ctx, d.ID)
	switch {
	case errors.Is(err, ErrNotFound):
		return ClaimResult{}, dropError(d, ErrNoDelivery)
	case err != nil:
		return ClaimResult{}, wrap("claim", err)
	}
	res := ClaimResult{Drop: d, DeliveryPage: s.DeliveryURL(dl.Slug)}
	now := s.clock.Now()
	e, taken, err := s.store.TakeDeliveryClaim(ctx, dl.ID, user.ID, now, now.Add(-DeliveryLease))
	switch {
	case errors.Is(err, ErrNotFound):
		return ClaimResult{}, dropError(d, ErrNotListed)
	case err != nil:
		return ClaimResult{}, wrap("claim", err)
	}
	res.Wallet = e.Address
	switch {
	case !taken && e.State == EntryClaimed:
		res.Outcome, res.Again = ResultDeliveryClaimed, true
		return res, nil
	case !taken:
		return ClaimResult{}, dropError(d, ErrClaimInProgress)
	}
	// From here the claim may leave: its bookkeeping goes on when the
	// member's command runs out of time.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	wasSent := e.Sent
	state, sent, uid, cerr := s.sendDelivery(ctx, d, dl, e)
	e.State, e.Sent, e.QueueUID, e.UpdatedAt = state, sent, uid, s.clock.Now()
	if err := s.store.FinishDeliveryClaim(ctx, e); err != nil {
		if errors.Is(err, ErrConflict) {
			return s.overtaken(d, res, cerr)
		}
		if cerr == nil {
			// Claimed at POAP: the entry, left claiming and sent, is
			// settled by the next /claim after DeliveryLease, which
			// records it and tells MintEvents then (here it would be told
			// twice); until then the sweep counts the POAP.
			s.log.Error("delivery claim not recorded", "event", d.EventID, "err", err)
			res.Outcome = ResultDeliveryClaimed
			return res, nil
		}
		return ClaimResult{}, wrap("claim", err)
	}
	switch {
	case cerr != nil && sent && outcomeUnknown(cerr):
		// The claim may have been taken: the member hears it is pending,
		// and their next claim settles it.
		s.log.Warn("delivery claim outcome unknown", "event", d.EventID, "err", cerr)
		res.Outcome = ResultDeliveryPending
		return res, nil
	case cerr != nil:
		return ClaimResult{}, &DropError{Drop: d, Wallet: e.Address, Err: cerr}
	}
	res.Outcome = ResultDeliveryClaimed
	// Recorded claimed just now, by the entry's latest taker (the store
	// takes it to claimed once): told once.
	s.minted(ctx, user, e.Address)
	s.auditClaim(ctx, d, dl, user, uid, wasSent)
	return res, nil
}

// auditClaim audits a claim recorded claimed: one POAP gave a mint id
// for, or one settled (the address holds the drop) after an earlier claim
// was sent: that claim's mint, whose answer was lost or came back to a
// claim whose lease had run out, which recorded nothing. An address that
// held the drop with nothing sent claimed it on the page: not audited.
func (s *DeliveryService) auditClaim(ctx context.Context, d Drop, dl DropDelivery, user User, uid string, settled bool) {
	detail := fmt.Sprintf("event %d, delivery %d", d.EventID, dl.ServiceID)
	switch {
	case uid != "":
	case settled:
		detail += " (settled)"
	default:
		return
	}
	s.record(ctx, d.PlaceID, user.ID, AuditMinted, detail)
}

// overtaken answers a claim whose lease ran out before its outcome was
// recorded: another claim of the member took the entry since and records
// the outcome (and tells MintEvents, audits): nothing is recorded or told
// here. The member hears claimed when this claim's request was taken, or
// that their claim is in progress.
func (s *DeliveryService) overtaken(d Drop, res ClaimResult, cerr error) (ClaimResult, error) {
	s.log.Info("delivery claim outlived its lease; another claim took the entry", "event", d.EventID, "claimed", cerr == nil)
	if cerr != nil {
		return ClaimResult{}, dropError(d, ErrClaimInProgress)
	}
	res.Outcome = ResultDeliveryClaimed
	return res, nil
}

// sendDelivery settles a claim that may have been sent, then sends it
// unless settled. It returns the entry's next state, whether a request may
// have reached the service, the mint's id, and the error for the member
// when it is not claimed.
func (s *DeliveryService) sendDelivery(ctx context.Context, d Drop, dl DropDelivery, e DeliveryEntry) (DeliveryEntryState, bool, string, error) {
	if e.Sent {
		holds, err := s.issuer.Holds(ctx, e.Address, d.EventID)
		switch {
		case err != nil:
			return EntryListed, true, "", fmt.Errorf("settling the last claim: %w", ErrIssuerUnavailable)
		case holds:
			return EntryClaimed, true, e.QueueUID, nil
		}
	}
	if err := s.store.MarkDeliverySent(ctx, e, s.clock.Now()); err != nil {
		// Not sent; ErrConflict when another claim took the entry: the
		// finish meets it too.
		return EntryListed, e.Sent, "", err
	}
	uid, err := s.issuer.ClaimDelivery(ctx, dl.ServiceID, e.Address)
	switch {
	case err == nil:
		return EntryClaimed, true, uid, nil
	case errors.Is(err, ErrWalletHoldsDrop):
		// Claimed before: on the page, or by a claim whose answer was lost.
		return EntryClaimed, true, "", nil
	case errors.Is(err, ErrNotSent) || errors.Is(err, ErrIssuerBusy):
		// Not sent this time; an earlier attempt may still have been.
		return EntryListed, e.Sent, "", errors.Join(ErrIssuerUnavailable, ErrNotSent)
	case outcomeUnknown(err):
		return EntryListed, true, "", err
	}
	// A refusal: nothing was minted this time.
	return EntryListed, e.Sent, "", err
}

// outcomeUnknown reports whether a request that failed with err may have
// reached the service and been carried out.
func outcomeUnknown(err error) bool {
	return errors.Is(err, ErrIssuerUnavailable) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
