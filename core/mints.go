package core

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// maxMintLinks bounds how many links one claim goes through when links turn
// out claimed elsewhere (or another press of the member's got there first).
const maxMintLinks = 5

// mintOutcome is what became of a mint.
type mintOutcome int

const (
	// mintDone: the POAP is the member's wallet's.
	mintDone mintOutcome = iota
	// mintPending: sent, outcome unknown; the link stays minting.
	mintPending
	// mintElsewhere: the link was used outside the bot; take the next.
	mintElsewhere
	// mintNotDone: the link is unclaimed; it is back with the member.
	mintNotDone
	// mintRetry: the link changed under us; claim it again.
	mintRetry
	// mintExpired: the link is unclaimed and can no longer be minted.
	mintExpired
)

// recorder is on whose behalf a mint's outcome is recorded.
type recorder int

const (
	// bySender: the claim that began the link's mint attempt. Its word
	// wins, even over a reconciler that settled the attempt first.
	bySender recorder = iota
	// bySettler: anyone else, the reconciler or the member's next claim,
	// reading the link's status. It settles an attempt only once its
	// lease ran out, but for a mint the status proves.
	bySettler
)

// claimMint mints the drop to wallet through the member's link.
func (s *MintLinkService) claimMint(ctx context.Context, d Drop, user User, wallet string) (ClaimResult, error) {
	for range maxMintLinks {
		link, again, err := s.mintLinks.ClaimMintLink(ctx, d.ID, user.ID, wallet, s.clock.Now())
		if err != nil {
			return ClaimResult{}, s.claimError(d, wallet, err)
		}
		if !again {
			s.record(ctx, d.PlaceID, user.ID, AuditMintLinkHandedOut, fmt.Sprintf("event %d, link #%d, for a mint", d.EventID, link.ID))
		}
		if again && link.State == MintLinkHandedOut && link.Wallet == "" && d.Method == ClaimAuto {
			// The member was given this link to mint themselves before
			// they linked a wallet; it is theirs, as it was.
			return s.mintLinkResult(d, link, true), nil
		}
		var out mintOutcome
		switch link.State {
		case MintLinkMinted:
			return s.mintLinkResult(d, link, again), nil
		case MintLinkClaimedElsewhere:
			// The store kept the used link as the member's rather than
			// handing out the next one.
			return ClaimResult{}, dropError(d, ErrMintLinkUsed)
		case MintLinkMinting:
			out, err = s.settleUnderWay(ctx, d, &link, wallet)
		case MintLinkHandedOut:
			if again && link.Wallet != "" {
				// A mint of this link to link.Wallet was tried before
				// and not confirmed (it may have gone through late), or
				// it was refused: its status is read first either way.
				out, err = s.settleThenMint(ctx, d, &link, wallet)
				break
			}
			fallthrough
		default:
			out, err = s.sendMint(ctx, d, &link, wallet, "")
		}
		if err != nil {
			return ClaimResult{}, err
		}
		res := ClaimResult{Drop: d, MintLink: link, Wallet: mintWallet(link, wallet)}
		switch out {
		case mintDone:
			// MintEvents heard of it where it was recorded (finish).
			res.Outcome = ResultMinted
			return res, nil
		case mintPending:
			res.Outcome, res.Again = ResultMintPending, again
			return res, nil
		}
	}
	s.log.Warn("claim gave up: links claimed elsewhere or changed meanwhile", "event", d.EventID, "tries", maxMintLinks)
	return ClaimResult{}, dropError(d, fmt.Errorf("%d links in a row were claimed elsewhere or changed: %w", maxMintLinks, ErrIssuerUnavailable))
}

// settleThenMint handles the member's link that a mint to link.Wallet was
// tried on before and did not confirm: a timeout or a lost answer, whose
// mint may still have gone through, to a wallet the member may since have
// replaced as primary; or a refusal, which the store does not tell apart.
// Its status is read before anything is sent: a link claimed by any wallet
// of the member's is their POAP, and nothing more is minted for them; a
// link claimed by anyone else was used elsewhere; only an unclaimed link is
// minted, to wallet, and even then a link found claimed by one of theirs
// afterwards counts as theirs. When the status cannot be read, nothing is
// sent.
func (s *MintLinkService) settleThenMint(ctx context.Context, d Drop, link *MintLink, wallet string) (mintOutcome, error) {
	earlier := link.Wallet
	st, err := s.issuer.ClaimStatus(ctx, link.QRHash)
	if err != nil {
		return 0, dropError(d, fmt.Errorf("the earlier mint of link #%d cannot be checked (%w): %w", link.ID, err, ErrIssuerUnavailable))
	}
	mine := s.mine(ctx, *link, earlier)
	switch out := judge(st, mine...); out {
	case mintDone, mintElsewhere:
		// Recorded as a mint to the wallet it went to.
		to := earlier
		if i := slices.IndexFunc(mine, st.ClaimedBy); out == mintDone && i >= 0 {
			to = mine[i]
		}
		begun, err := s.mintLinks.BeginMint(ctx, link.ID, to, s.clock.Now())
		if errors.Is(err, ErrConflict) {
			return mintRetry, nil
		}
		if err != nil {
			return 0, wrap("claim", err)
		}
		*link = begun
		state := MintLinkMinted
		if out == mintElsewhere {
			state = MintLinkClaimedElsewhere
		}
		s.finish(ctx, d, link, state, "", bySender)
		return out, nil
	case mintExpired:
		return 0, dropError(d, ErrDropExpired)
	}
	return s.sendMint(ctx, d, link, wallet, earlier)
}

// mine is wallets and every wallet the link's member has linked: a claim of
// the link by any of them is the member's POAP (an earlier mint of theirs,
// to a wallet they have since replaced as primary, that went through late).
// When the member's wallets cannot be read, wallets alone count.
func (s *MintLinkService) mine(ctx context.Context, link MintLink, wallets ...string) []string {
	if link.UserID == nil {
		return wallets
	}
	linked, err := s.members.Wallets(ctx, *link.UserID)
	if err != nil {
		s.log.Warn("the member's wallets not read to judge a mint", "link", link.ID, "err", err)
		return wallets
	}
	out := slices.Clone(wallets)
	for _, w := range linked {
		out = append(out, w.Value)
	}
	return out
}

// judge says what a link's claim status means for a mint of the member's
// to any of wallets: done, claimed elsewhere, expired, or not done.
func judge(st MintLinkStatus, wallets ...string) mintOutcome {
	for _, w := range wallets {
		if st.ClaimedBy(w) {
			return mintDone
		}
	}
	switch {
	case st.Claimed:
		return mintElsewhere
	case !st.Active:
		return mintExpired
	}
	return mintNotDone
}

// sendMint records the mint, sends it, and records its outcome; an outcome
// the answer does not tell is read from the link's claim status, where a
// claim by earlier, the wallet of an unconfirmed earlier mint of this link,
// counts as the member's too. A mint that never left (ErrNotSent) is undone
// at once.
func (s *MintLinkService) sendMint(ctx context.Context, d Drop, link *MintLink, wallet, earlier string) (mintOutcome, error) {
	begun, err := s.mintLinks.BeginMint(ctx, link.ID, wallet, s.clock.Now())
	switch {
	case errors.Is(err, ErrWalletClaimed):
		return 0, &DropError{Drop: d, Wallet: wallet, Err: ErrWalletClaimed}
	case errors.Is(err, ErrConflict):
		// Another claim of the member's changed the link meanwhile.
		return mintRetry, nil
	}
	if err != nil {
		return 0, wrap("claim", err)
	}
	*link = begun
	tx, err := s.mint(ctx, link.QRHash, wallet)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	switch {
	case err == nil:
		s.finish(ctx, d, link, MintLinkMinted, tx, bySender)
		return mintDone, nil
	case errors.Is(err, ErrNotSent):
		// Nothing reached the service, so nothing was minted: the link
		// goes back to the member now rather than stay minting until a
		// status read gets through, which needs what was missing (an
		// access token, say).
		s.finish(ctx, d, link, MintLinkHandedOut, "", bySender)
		return 0, dropError(d, fmt.Errorf("the mint was not sent: %w", err))
	case errors.Is(err, ErrWalletHoldsDrop):
		s.finish(ctx, d, link, MintLinkHandedOut, "", bySender)
		return 0, &DropError{Drop: d, Wallet: wallet, Err: ErrWalletHoldsDrop}
	case errors.Is(err, ErrMintLinkExpired):
		s.finish(ctx, d, link, MintLinkHandedOut, "", bySender)
		return 0, dropError(d, ErrDropExpired)
	case errors.Is(err, ErrInvalidWallet), errors.Is(err, ErrIssuerRejected):
		s.finish(ctx, d, link, MintLinkHandedOut, "", bySender)
		return 0, wrap("claim", err)
	}
	// A timeout, a lost answer, a 5xx, "already claimed": the mint may
	// have happened; only the link's status tells.
	s.log.Warn("mint outcome unknown, reading the link's status", "event", d.EventID, "link", link.ID, "err", err)
	out, err2 := s.settle(ctx, d, link, bySender, wallet, earlier)
	if out == mintNotDone && err2 == nil {
		err2 = dropError(d, fmt.Errorf("the mint did not go through (%w): %w", err, ErrIssuerUnavailable))
	}
	return out, err2
}

// mint sends the mint, bounded by mintTimeout so that it never outlasts
// the lease BeginMint recorded.
func (s *MintLinkService) mint(ctx context.Context, qrHash, wallet string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, mintTimeout)
	defer cancel()
	return s.issuer.Mint(ctx, qrHash, wallet)
}

// settleUnderWay handles a link the member's earlier claim left minting.
// While that claim's lease lasts it may still be running, so nothing is
// sent: the status may only confirm the mint. Once the lease ran out (or
// the sender gave it up, the outcome unknown), the mint is settled from
// the status, and sent afresh when the link is still unclaimed.
func (s *MintLinkService) settleUnderWay(ctx context.Context, d Drop, link *MintLink, wallet string) (mintOutcome, error) {
	if held(*link, s.clock.Now()) {
		st, err := s.issuer.ClaimStatus(ctx, link.QRHash)
		if err == nil && judge(st, s.mine(ctx, *link, mintWallet(*link, wallet))...) == mintDone {
			s.finish(ctx, d, link, MintLinkMinted, "", bySettler)
			return mintDone, nil
		}
		return mintPending, nil
	}
	earlier := mintWallet(*link, wallet)
	out, err := s.settle(ctx, d, link, bySettler, earlier)
	if out == mintNotDone && err == nil {
		return s.sendMint(ctx, d, link, wallet, earlier)
	}
	return out, err
}

// mintWallet is the wallet the link's mint went to: the recorded one, else
// wallet.
func mintWallet(link MintLink, wallet string) string {
	if link.Wallet != "" {
		return link.Wallet
	}
	return wallet
}

// linkRef names a link in the audit log: by the drop's event id (or its
// own id when the event id is not at hand) and the link's number.
func linkRef(d Drop, link MintLink) string {
	if d.EventID == 0 {
		return fmt.Sprintf("drop #%d, link #%d", link.DropID, link.ID)
	}
	return fmt.Sprintf("event %d, link #%d", d.EventID, link.ID)
}
