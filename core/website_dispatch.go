package core

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// RunWebsiteClaims sends the queued website claims, websiteWorkers at a
// time, until ctx is done: it takes the claims that are due, settles those
// whose earlier request may have reached the service (a scan of the wallet;
// the service also refuses a second mint of the drop to the same address),
// sends the others, and records each outcome. When the service asks it to
// slow down it pauses every send, for as long as the service said or with
// a growing backoff. Run it on one replica at a time (cmd/bot takes a lock
// for it); it returns nil when ctx is done, or the error that stopped it.
func (s *WebsiteService) RunWebsiteClaims(ctx context.Context) error {
	var (
		wg     sync.WaitGroup
		slots  = make(chan struct{}, websiteWorkers)
		pause  = newBackoff()
		failed int
	)
	defer wg.Wait()
	for ctx.Err() == nil {
		if until := pause.until(); until > 0 {
			if !sleep(ctx, until) {
				return nil
			}
		}
		free := websiteWorkers - len(slots)
		var claims []WebsiteClaim
		if free > 0 {
			var err error
			claims, err = s.store.TakeWebsiteClaims(ctx, s.clock.Now(), WebsiteLease, free)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				failed++
				s.log.Warn("website claims not read", "err", err)
				if failed > 10 {
					return wrap("website claims", err)
				}
			} else {
				failed = 0
			}
		}
		for _, c := range claims {
			slots <- struct{}{}
			wg.Go(func() {
				defer func() { <-slots }()
				s.sendWebsite(ctx, c, pause)
			})
		}
		if len(claims) == free && free > 0 {
			continue
		}
		poll := time.NewTimer(websitePoll)
		select {
		case <-ctx.Done():
		case <-s.web.kick:
		case <-poll.C:
		case <-s.web.waitChange():
		}
		poll.Stop()
	}
	return nil
}

// sendWebsite settles or sends one claim the dispatcher took, and records
// what became of it.
func (s *WebsiteService) sendWebsite(ctx context.Context, c WebsiteClaim, pause *backoff) {
	d, err := s.drops.DropByID(ctx, c.DropID)
	switch {
	case err != nil:
		s.log.Warn("website claim's drop not read", "claim", c.ID, "err", err)
		s.finishWebsite(ctx, c, WebsiteOutcome{State: WebsiteQueued, DueAt: s.clock.Now().Add(settleAfter), Sent: c.Sent})
		return
	case d.RemovedAt != nil || d.Method != ClaimWebsite:
		if !c.Sent {
			s.finishWebsite(ctx, c, WebsiteOutcome{State: WebsiteRefused, Reason: reasonRemoved})
			return
		}
	}
	if c.Sent {
		// The last request may have reached the service: the wallet's
		// holding says whether it minted.
		holds, err := s.issuer.Holds(ctx, c.Wallet, d.EventID)
		if err != nil {
			s.log.Warn("website mint left unsettled: holding not read", "claim", c.ID, "err", err)
			s.finishWebsite(ctx, c, WebsiteOutcome{State: WebsiteQueued, DueAt: s.clock.Now().Add(settleAfter), Sent: true})
			return
		}
		if holds {
			s.websiteMinted(ctx, d, c, WebsiteOutcome{State: WebsiteMinted}, "settled")
			return
		}
		if d.RemovedAt != nil || d.Method != ClaimWebsite {
			s.finishWebsite(ctx, c, WebsiteOutcome{State: WebsiteRefused, Reason: reasonRemoved})
			return
		}
	}
	if err := s.store.MarkWebsiteSent(ctx, c, s.clock.Now()); errors.Is(err, ErrConflict) {
		s.log.Info("website claim taken again after its lease ran out; not sending", "claim", c.ID, "try", c.Tries)
		return
	} else if err != nil {
		s.log.Warn("website claim not marked sent; not sending", "claim", c.ID, "err", err)
		return
	}
	mint, err := s.issuer.MintWebsite(ctx, d.Website, c.Wallet)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	now := s.clock.Now()
	switch reason := websiteReason(err); {
	case err == nil:
		pause.reset()
		s.websiteMinted(ctx, d, c, WebsiteOutcome{State: WebsiteMinted, Mint: mint}, "")
	case errors.Is(err, ErrIssuerBusy):
		wait := pause.busy(retryAfter(err))
		s.log.Info("website claims paused: the service asked to slow down", "for", wait)
		s.finishWebsite(ctx, c, WebsiteOutcome{State: WebsiteQueued, DueAt: now.Add(wait), Sent: c.Sent})
	case errors.Is(err, ErrNotSent), errors.Is(err, ErrIssuerRejected):
		s.log.Warn("website mint not sent", "claim", c.ID, "err", err)
		s.finishWebsite(ctx, c, WebsiteOutcome{State: WebsiteQueued, DueAt: now.Add(settleAfter), Sent: c.Sent})
	case reason == reasonHolds && c.Sent:
		// A mint sent again after an unknown outcome: the first went
		// through.
		s.websiteMinted(ctx, d, c, WebsiteOutcome{State: WebsiteMinted}, "settled")
	case reason != "":
		s.finishWebsite(ctx, c, WebsiteOutcome{State: WebsiteRefused, Reason: reason})
	default:
		s.log.Warn("website mint outcome unknown; settled before it is sent again", "claim", c.ID, "err", err)
		s.finishWebsite(ctx, c, WebsiteOutcome{State: WebsiteQueued, DueAt: now.Add(settleAfter), Sent: true})
	}
}

// retryAfter is how long the *BusyError in err asked to wait, zero for
// none.
func retryAfter(err error) time.Duration {
	var b *BusyError
	if errors.As(err, &b) {
		return b.RetryAfter
	}
	return 0
}

// websiteMinted records the claim minted (out), audits it, and tells
// MintEvents, whether or not the member still waits for it: the store
// takes a claim to minted once (only from sending, by its latest taker:
// one whose lease ran out and was taken again records nothing), so the
// member hears of it once. A record that fails is neither audited nor
// told: the claim is taken again and settled from the wallet's holding.
func (s *WebsiteService) websiteMinted(ctx context.Context, d Drop, c WebsiteClaim, out WebsiteOutcome, how string) {
	if !s.finishWebsite(ctx, c, out) {
		return
	}
	s.recordMint(ctx, d, c, how)
	s.mintedTo(ctx, c.UserID, c.Wallet)
}

// recordMint audits a mint through a website claim.
func (s *WebsiteService) recordMint(ctx context.Context, d Drop, c WebsiteClaim, how string) {
	detail := fmt.Sprintf("event %d, website claim #%d", d.EventID, c.ID)
	if how != "" {
		detail += " (" + how + ")"
	}
	s.record(ctx, d.PlaceID, ptrValue(c.UserID), AuditMinted, detail)
}

// finishWebsite records a claim's outcome and wakes the claims waiting on
// one, and reports whether it was recorded; a failure to record is
// logged: the lease runs out and the claim is taken again (settled first
// when it was sent). A claim taken again after this take's lease ran out
// is the next taker's: its outcome is recorded (and told) by that one,
// not here.
func (s *WebsiteService) finishWebsite(ctx context.Context, c WebsiteClaim, out WebsiteOutcome) bool {
	err := s.store.FinishWebsiteClaim(ctx, c, out, s.clock.Now())
	switch {
	case errors.Is(err, ErrConflict):
		s.log.Info("website claim taken again after its lease ran out; its outcome left to the new taker",
			"claim", c.ID, "try", c.Tries, "state", out.State)
		return false
	case err != nil:
		s.log.Error("website claim outcome not recorded", "claim", c.ID, "state", out.State, "err", err)
		return false
	}
	s.web.recorded()
	return true
}

// backoff is the dispatcher's pause after the service asked it to slow
// down: as long as the service said, else growing from busyBase to busyMax
// with jitter, reset by a success.
type backoff struct {
	mu    sync.Mutex
	next  time.Duration
	pause time.Time
}

func newBackoff() *backoff { return &backoff{next: busyBase} }

// busy starts a pause of d, or of the next backoff step when d is zero, and
// returns its length.
func (b *backoff) busy(d time.Duration) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if d <= 0 {
		d = b.next + time.Duration(rand.Int64N(int64(b.next)/4+1))
		b.next = min(2*b.next, busyMax)
	}
	if end := time.Now().Add(d); end.After(b.pause) {
		b.pause = end
	}
	return d
}

// reset ends the growth of the backoff.
func (b *backoff) reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next = busyBase
}

// until is what is left of the pause.
func (b *backoff) until() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return time.Until(b.pause)
}

// sleep waits d or until ctx is done, and reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
