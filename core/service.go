package core

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
)

// Service is the domain layer the adapters call through the bot package.
type Service struct {
	store  Store
	links  WalletStore
	issuer Issuer
	clock  Clock
	log    *slog.Logger
	name   string
	events Events

	drops      DropStore
	dropIssuer DropIssuer
	mintURL    string
}

// DefaultMintURL is the base of mint links unless WithMintURL sets another:
// a link is <base>/mint/<qr_hash>.
const DefaultMintURL = "https://poap.xyz"

// DefaultName is the bot name challenge messages carry unless WithName
// sets another.
const DefaultName = "POAP bot"

// NewService returns a Service over the given store and issuing service.
// A nil clock means the system clock; a nil logger discards. Wallet linking
// works when the store also implements WalletStore (storage.DB does); without
// it, the linking methods return an error. Likewise drops and claims work
// when the store implements DropStore and the issuer DropIssuer (or one is
// set with WithDropIssuer).
func NewService(store Store, issuer Issuer, clock Clock, log *slog.Logger) *Service {
	if clock == nil {
		clock = SystemClock{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	links, _ := store.(WalletStore)
	drops, _ := store.(DropStore)
	dropIssuer, _ := issuer.(DropIssuer)
	return &Service{store: store, links: links, issuer: issuer, clock: clock, log: log,
		name: DefaultName, events: NopEvents{}, drops: drops, dropIssuer: dropIssuer, mintURL: DefaultMintURL}
}

// WithDropIssuer sets the issuing service that drops and claims use (nil
// keeps the one NewService found), and returns s. Call it before the
// service is used.
func (s *Service) WithDropIssuer(d DropIssuer) *Service {
	if d != nil {
		s.dropIssuer = d
	}
	return s
}

// WithMintURL sets the base of mint links, POAP_MINT_URL (empty keeps
// DefaultMintURL), and returns s. Call it before the service is used.
func (s *Service) WithMintURL(base string) *Service {
	if base = strings.TrimRight(strings.TrimSpace(base), "/"); base != "" {
		s.mintURL = base
	}
	return s
}

// MintURL is the address of the mint link qrHash: <base>/mint/<qr_hash>.
func (s *Service) MintURL(qrHash string) string {
	return s.mintURL + "/mint/" + qrHash
}

// WithName sets the bot name that challenge messages carry (empty keeps
// DefaultName), and returns s. Call it before the service is used.
func (s *Service) WithName(name string) *Service {
	if name != "" {
		s.name = name
	}
	return s
}

// WithEvents sets who is told about verified and unlinked wallets (nil
// keeps NopEvents), and returns s; when e also implements DropEvents, it is
// told about low stock too. Call it before the service is used.
func (s *Service) WithEvents(e Events) *Service {
	if e != nil {
		s.events = e
	}
	return s
}

// wrap prefixes err with the operation, keeping it matchable.
func wrap(op string, err error) error {
	return fmt.Errorf("%s: %w", op, err)
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
// is not known, and the issuer's ErrIssuerUnavailable or ErrIssuerRejected.
func (s *Service) Collection(ctx context.Context, platform Platform, callerExternalID string, q CollectionQuery) (Collection, error) {
	wallet, err := s.resolveWallet(ctx, platform, callerExternalID, q)
	if err != nil {
		return Collection{}, err
	}
	holdings, err := s.issuer.Holdings(ctx, wallet)
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
func (s *Service) resolveWallet(ctx context.Context, platform Platform, callerID string, q CollectionQuery) (string, error) {
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
		user, err = s.store.FindUser(ctx, platform, q.MemberExternalID)
	case q.MemberName != "":
		user, err = s.store.FindUserByName(ctx, platform, q.MemberName)
	default:
		user, err = s.store.FindUser(ctx, platform, callerID)
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
	wallet, err := s.primaryWallet(ctx, user.ID)
	if err != nil && !errors.Is(err, ErrNotLinked) {
		return "", fmt.Errorf("collection: %w", err)
	}
	return wallet, err
}

// primaryWallet returns the value of the user's primary wallet, or
// ErrNotLinked, or the store's error.
func (s *Service) primaryWallet(ctx context.Context, userID int64) (string, error) {
	wallets, err := s.store.Wallets(ctx, userID)
	if err != nil {
		return "", err
	}
	for _, w := range wallets {
		if w.Primary {
			return w.Value, nil
		}
	}
	if len(wallets) > 0 {
		return wallets[0].Value, nil
	}
	return "", ErrNotLinked
}
