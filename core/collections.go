package core

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
)

// CollectionService answers /poaps: it finds whose POAPs to read (a wallet
// typed, a member, or the caller) and reads them from the issuing service
// through its Scanner (cmd/bot gives it the HoldingsCache that /why and
// gating read too).
type CollectionService struct {
	members MemberStore
	scanner Scanner
}

// CollectionServiceDeps are the dependencies of a CollectionService; both
// are required.
type CollectionServiceDeps struct {
	Members MemberStore
	Scanner Scanner
}

// NewCollectionService returns the collection service. It returns an error
// wrapping ErrMissingDependency when Members or Scanner is nil.
func NewCollectionService(d CollectionServiceDeps) (*CollectionService, error) {
	if err := missing("collection service", "Members", d.Members, "Scanner", d.Scanner); err != nil {
		return nil, err
	}
	return &CollectionService{members: d.Members, scanner: d.Scanner}, nil
}

// CollectionQuery says whose POAPs to list: a wallet typed by the member, or
// a member of the same platform (by platform id, or by display name), or,
// when all are empty, the caller.
type CollectionQuery struct {
	Wallet           string
	MemberExternalID string
	MemberName       string
}

// Collection is the answer to a CollectionQuery: the wallet that was read
// and its POAPs, newest first.
type Collection struct {
	Wallet   string
	Holdings []Holding
}

// Collection lists the POAPs held by the wallet the query names. Errors:
// ErrInvalidWallet (as *WalletError) for a malformed wallet, ErrNotLinked
// when the member to read has no wallet, ErrUnknownMember when a named member
// is not known, and the scanner's ErrIssuerUnavailable or ErrIssuerRejected.
func (s *CollectionService) Collection(ctx context.Context, platform Platform, callerExternalID string, q CollectionQuery) (Collection, error) {
	wallet, err := s.resolveWallet(ctx, platform, callerExternalID, q)
	if err != nil {
		return Collection{}, err
	}
	holdings, err := s.scanner.Holdings(ctx, wallet)
	if err != nil {
		return Collection{}, fmt.Errorf("collection: %w", err)
	}
	slices.SortStableFunc(holdings, func(a, b Holding) int {
		if c := b.MintedAt.Compare(a.MintedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.DropID, a.DropID)
	})
	return Collection{Wallet: wallet, Holdings: holdings}, nil
}

// resolveWallet turns a query into the wallet identifier to scan.
func (s *CollectionService) resolveWallet(ctx context.Context, platform Platform, callerID string, q CollectionQuery) (string, error) {
	if q.Wallet != "" {
		_, value, err := ParseWallet(q.Wallet)
		return value, err
	}
	var (
		user User
		err  error
	)
	switch {
	case q.MemberExternalID != "":
		user, err = s.members.FindUser(ctx, platform, q.MemberExternalID)
	case q.MemberName != "":
		user, err = s.members.FindUserByName(ctx, platform, q.MemberName)
	default:
		user, err = s.members.FindUser(ctx, platform, callerID)
		if errors.Is(err, ErrNotFound) {
			return "", ErrNotLinked
		}
	}
	if errors.Is(err, ErrNotFound) {
		return "", ErrUnknownMember
	}
	if err != nil {
		return "", fmt.Errorf("collection: %w", err)
	}
	wallet, err := primaryWallet(ctx, s.members, user.ID)
	if err != nil && !errors.Is(err, ErrNotLinked) {
		return "", fmt.Errorf("collection: %w", err)
	}
	return wallet, err
}
