package core

import (
	"context"
	"errors"
	"time"
)

// held reports whether the link's mint attempt is still held by its sender
// at now: its lease lasts, or, for a mint begun before leases were
// recorded, it began less than MintLease ago (as storage reckons it).
func held(link MintLink, now time.Time) bool {
	if link.LeaseUntil.IsZero() {
		return now.Sub(link.UpdatedAt) < MintLease
	}
	return now.Before(link.LeaseUntil)
}

// settle reads the link's claim status and records what it says, for by:
// a claim by any of wallets is the member's. When the status cannot be
// read, the link stays minting (mintPending); the sender then gives up its
// lease, so that the reconciler may settle the link without waiting for it
// to run out. A settler whose record is refused or changes nothing (the
// sender, or another settler, recorded first; a new attempt began) gets
// mintRetry: the link is to be read again.
func (s *MintLinkService) settle(ctx context.Context, d Drop, link *MintLink, by recorder, wallets ...string) (mintOutcome, error) {
	st, err := s.issuer.ClaimStatus(ctx, link.QRHash)
	if err != nil {
		s.log.Warn("mint left unconfirmed: status not read", "event", d.EventID, "link", link.ID, "err", err)
		if by == bySender {
			s.release(ctx, d, *link)
			s.count(ActMint, platformOf(ctx), OutcomePending)
		}
		s.record(ctx, d.PlaceID, ptrValue(link.UserID), AuditMintPending, linkRef(d, *link))
		return mintPending, nil
	}
	out := judge(st, s.mine(ctx, *link, wallets...)...)
	state := map[mintOutcome]MintLinkState{mintDone: MintLinkMinted, mintElsewhere: MintLinkClaimedElsewhere}[out]
	if state == "" {
		state = MintLinkHandedOut
	}
	if !s.finish(ctx, d, link, state, "", by) && by == bySettler {
		return mintRetry, nil
	}
	switch out {
	case mintExpired:
		return mintNotDone, dropError(d, ErrDropExpired)
	case mintDone, mintElsewhere:
		return out, nil
	}
	return mintNotDone, nil
}

// release gives up the sender's lease on the link's attempt, its outcome
// unknown. A failure is logged: the lease then runs out by itself.
func (s *MintLinkService) release(ctx context.Context, d Drop, link MintLink) {
	if err := s.mintLinks.ReleaseMint(ctx, link.ID, link.Attempt, s.clock.Now()); err != nil {
		s.log.Warn("mint lease not released", "event", d.EventID, "link", link.ID, "attempt", link.Attempt, "err", err)
	}
}

// finish records the outcome of the link's mint attempt for by, on link
// too, and audits it when the state changed, so that each outcome is
// audited once however many record it; a link that became minted is told
// to MintEvents then, once too. It reports whether the state
// changed. A failure to record is logged: a sender's link stays minting,
// and ReconcileMints or the member's next claim settles it from the
// status once the lease runs out.
func (s *MintLinkService) finish(ctx context.Context, d Drop, link *MintLink, state MintLinkState, tx string, by recorder) bool {
	var changed bool
	var err error
	if by == bySender {
		changed, err = s.mintLinks.FinishMint(ctx, link.ID, link.Attempt, state, tx, s.clock.Now())
	} else {
		changed, err = s.mintLinks.SettleMint(ctx, link.ID, link.Attempt, state, s.clock.Now())
	}
	switch {
	case errors.Is(err, ErrConflict):
		s.log.Info("mint outcome not recorded: the link moved on", "event", d.EventID, "link", link.ID, "attempt", link.Attempt, "state", state, "err", err)
		return false
	case err != nil:
		s.log.Error("mint outcome not recorded", "event", d.EventID, "link", link.ID, "state", state, "err", err)
		return false
	}
	link.State = state
	if tx != "" {
		link.TransactionID = tx
	}
	if !changed {
		return false
	}
	action := map[MintLinkState]string{MintLinkMinted: AuditMinted, MintLinkClaimedElsewhere: AuditClaimedElsewhere}[state]
	outcome := map[MintLinkState]string{MintLinkMinted: OutcomeMinted, MintLinkClaimedElsewhere: OutcomeClaimedElsewhere}[state]
	if action == "" {
		action, outcome = AuditMintFailed, OutcomeFailed
	}
	s.count(ActMint, platformOf(ctx), outcome)
	detail := linkRef(d, *link)
	if tx != "" {
		detail += ", transaction " + tx
	}
	s.record(ctx, d.PlaceID, ptrValue(link.UserID), action, detail)
	if state == MintLinkMinted {
		// Here, where the store said the link became minted, and nowhere
		// else: the member hears of it once, whoever recorded it (the
		// sender, the member's next claim, the reconciler).
		s.mintedTo(ctx, link.UserID, link.Wallet)
	}
	return true
}

// ReconcileMints settles the mints left in doubt by a crash or a lost
// answer: for each link still minting whose lease ran out (no process is
// sending or settling it) it reads the claim status and records minted,
// claimed elsewhere, or back with the member (who may claim again;
// nothing is sent here), for the attempt it read: a sender that outlived
// its lease still has the last word (see MintLease). A mint it records
// is told to MintEvents (the member's gates follow), unless the sender
// recorded it first. A mint in flight is
// never touched. Call it at start-up and on a schedule. It returns how many
// links it settled, and the failures joined; links whose status cannot be
// read stay minting for the next run.
func (s *MintLinkService) ReconcileMints(ctx context.Context) (int, error) {
	links, err := s.mintLinks.PendingMints(ctx, s.clock.Now())
	if err != nil {
		return 0, wrap("reconcile mints", err)
	}
	settled := 0
	var errs []error
	for _, link := range links {
		if ctx.Err() != nil {
			return settled, errors.Join(append(errs, ctx.Err())...)
		}
		out, err := s.settle(ctx, Drop{ID: link.DropID}, &link, bySettler, link.Wallet)
		if err != nil && !errors.Is(err, ErrClaimEnded) {
			errs = append(errs, err)
		}
		if out != mintPending && out != mintRetry {
			settled++
		}
	}
	if settled > 0 {
		s.log.Info("interrupted mints reconciled", "settled", settled, "left", len(links)-settled)
	}
	return settled, errors.Join(errs...)
}
