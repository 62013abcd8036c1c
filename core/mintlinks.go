package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
)

// MintLinkService claims drops through their mint links (claim methods
// auto, link and mint): it hands out a member's one link, or mints it
// straight to their primary wallet, recording each mint before it is sent
// and never sending one twice without reading the link's claim status in
// between; ReconcileMints settles the mints a crash or a lost answer left
// in doubt.
type MintLinkService struct {
	dropBase
	mintNews
	mintLinks MintLinkStore
	issuer    DropIssuer
	mintURL   string
}

// MintLinkServiceDeps are the dependencies of a MintLinkService.
type MintLinkServiceDeps struct {
	// Members, Drops, MintLinks and Audit are stored state (storage.DB),
	// all required.
	Members   MemberStore
	Drops     DropStore
	MintLinks MintLinkStore
	Audit     AuditLog
	// Issuer is the issuing service, required.
	Issuer DropIssuer
	// Mints hears of the POAPs minted to members (GateService), required.
	Mints MintEvents
	// MintURL is the base of mint links, POAP_MINT_URL; empty is
	// DefaultMintURL.
	MintURL string
	// Clock defaults to the system clock, Logger to one that discards.
	Clock  Clock
	Logger *slog.Logger
	// Tally counts mints for the domain metrics; nil counts nothing.
	Tally Tally
}

// DefaultMintURL is the base of mint links unless MintLinkServiceDeps.MintURL
// names another: a link is <base>/mint/<qr_hash>.
const DefaultMintURL = "https://poap.xyz"

// NewMintLinkService returns the mint link service. It returns an error
// wrapping ErrMissingDependency when a required dependency is nil.
func NewMintLinkService(d MintLinkServiceDeps) (*MintLinkService, error) {
	const name = "mint link service"
	if err := missing(name, "MintLinks", d.MintLinks, "Issuer", d.Issuer, "Mints", d.Mints); err != nil {
		return nil, err
	}
	b, err := newDropBase(name, d.Members, d.Drops, d.Audit, newBase(d.Clock, d.Logger, d.Tally))
	if err != nil {
		return nil, err
	}
	s := &MintLinkService{dropBase: b, mintNews: newMintNews(d.Mints, b), mintLinks: d.MintLinks, issuer: d.Issuer, mintURL: DefaultMintURL}
	if base := strings.TrimRight(strings.TrimSpace(d.MintURL), "/"); base != "" {
		s.mintURL = base
	}
	return s, nil
}

// MintURL is the address of the mint link qrHash: <base>/mint/<qr_hash>.
func (s *MintLinkService) MintURL(qrHash string) string {
	return s.mintURL + "/mint/" + qrHash
}

// claim gives the member their mint link, or mints it to their primary
// wallet: always for mint (ErrNotLinked without one), never for link, and
// for auto when they have linked one.
func (s *MintLinkService) claim(ctx context.Context, d Drop, user User) (ClaimResult, error) {
	wallet := ""
	if d.Method != ClaimLink {
		var err error
		if wallet, err = primaryWallet(ctx, s.members, user.ID); err != nil && !errors.Is(err, ErrNotLinked) {
			return ClaimResult{}, wrap("claim", err)
		}
	}
	switch {
	case wallet != "":
		return s.claimMint(ctx, d, user, wallet)
	case d.Method == ClaimMint:
		return ClaimResult{}, dropError(d, ErrNotLinked)
	}
	return s.claimMintLink(ctx, d, user)
}

// held reports whether the member holds one of the drop's links, in any
// state.
func (s *MintLinkService) held(ctx context.Context, d Drop, user User) (bool, error) {
	_, err := s.mintLinks.MemberMintLink(ctx, d.ID, user.ID)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// check has nothing to vet: every drop has mint links.
func (s *MintLinkService) check(context.Context, int64, string) error { return nil }

// describe adds nothing: the stock is every drop's.
func (s *MintLinkService) describe(context.Context, Drop, *DropStatus) error { return nil }

// claimMintLink hands out the member's mint link.
func (s *MintLinkService) claimMintLink(ctx context.Context, d Drop, user User) (ClaimResult, error) {
	link, again, err := s.mintLinks.ClaimMintLink(ctx, d.ID, user.ID, "", s.clock.Now())
	if err != nil {
		return ClaimResult{}, s.claimError(d, "", err)
	}
	if !again {
		s.record(ctx, d.PlaceID, user.ID, AuditMintLinkHandedOut, fmt.Sprintf("event %d, link #%d", d.EventID, link.ID))
	}
	return s.mintLinkResult(d, link, again), nil
}

// mintLinkResult is the answer for a link the member mints themselves, or for
// a mint done before.
func (s *MintLinkService) mintLinkResult(d Drop, link MintLink, again bool) ClaimResult {
	res := ClaimResult{Drop: d, MintLink: link, Again: again, Wallet: link.Wallet}
	switch link.State {
	case MintLinkMinted:
		res.Outcome = ResultMinted
	case MintLinkMinting:
		res.Outcome = ResultMintPending
	default:
		res.Outcome, res.URL = ResultLink, s.MintURL(link.QRHash)
	}
	return res
}

// claimError wraps a ClaimMintLink error in a *DropError when it is one of the
// refusals, else adds the operation.
func (s *MintLinkService) claimError(d Drop, wallet string, err error) error {
	if errors.Is(err, ErrNoMintLinksLeft) || errors.Is(err, ErrWalletClaimed) || errors.Is(err, ErrDropRemoved) {
		return &DropError{Drop: d, Wallet: wallet, Err: err}
	}
	return wrap("claim", err)
}
