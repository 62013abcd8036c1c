package core

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
)

// NetworkIssuer reads and sets the network a drop mints on at the issuing
// service (its minting configuration). poap.DropIssuer is one.
type NetworkIssuer interface {
	// Network reads the chain id the drop mints on (DefaultChain when its
	// configuration names none). ErrWrongEditCode.
	Network(ctx context.Context, eventID int64, code Secret) (int64, error)
	// SetNetwork makes the drop mint on chain and returns the chain id the
	// service then names. ErrUnknownChain, ErrWrongEditCode.
	SetNetwork(ctx context.Context, eventID int64, code Secret, chain int64) (int64, error)
}

// NetworkStore records the network a drop mints on (Drop.Chain).
// storage.DB is one.
type NetworkStore interface {
	// SetDropChain records the network the drop mints on. ErrNotFound
	// when there is no such drop.
	SetDropChain(ctx context.Context, dropID, chain int64) error
}

// NetworkService reads and sets the network a drop mints on (/drop
// network), and reads it for a drop just added.
type NetworkService struct {
	dropBase
	issuer NetworkIssuer
	store  NetworkStore
}

// NetworkServiceDeps are the dependencies of a NetworkService, all
// required but Clock and Logger.
type NetworkServiceDeps struct {
	// Members, Drops and Audit are stored state (storage.DB).
	Members MemberStore
	Drops   DropStore
	Audit   AuditLog
	// Issuer is the issuing service's side of networks
	// (poap.DropIssuer), Store where the drop's is recorded (storage.DB).
	Issuer NetworkIssuer
	Store  NetworkStore
	// Clock defaults to the system clock, Logger to one that discards.
	Clock  Clock
	Logger *slog.Logger
}

// NewNetworkService returns the network service. It returns an error
// wrapping ErrMissingDependency when a required dependency is nil.
func NewNetworkService(d NetworkServiceDeps) (*NetworkService, error) {
	const name = "network service"
	if err := missing(name, "Issuer", d.Issuer, "Store", d.Store); err != nil {
		return nil, err
	}
	b, err := newDropBase(name, d.Members, d.Drops, d.Audit, newBase(d.Clock, d.Logger, nil))
	if err != nil {
		return nil, err
	}
	return &NetworkService{dropBase: b, issuer: d.Issuer, store: d.Store}, nil
}

// NetworkResult is what /drop network read or set.
type NetworkResult struct {
	// Drop is the drop, its Chain the network the issuing service named.
	Drop Drop
	// Requested is the chain id the moderator set; zero when the network
	// was only read. The service names Drop.Chain, which could differ.
	Requested int64
}

// Network shows or sets the network the place's drop eventID mints on.
// With chain empty it reads the network from the issuing service; with a
// network named (see ParseChain) it makes the drop mint there, for mints
// from then on: links already minted stay where they are. Either way the
// network the service names is recorded as the drop's Chain (a failure to
// record it is logged: the next call records it again) and a change is
// audited. The drop's stored edit code is the credential. Errors, inside a
// *DropError: ErrNoSuchDrop, ErrDropRemoved, ErrUnknownChain,
// ErrWrongEditCode (nothing is changed nor stored), and the issuer's
// ErrIssuerUnavailable or ErrIssuerRejected.
func (s *NetworkService) Network(ctx context.Context, moderator Member, p Place, eventID int64, chain string) (NetworkResult, error) {
	d, err := s.placeDrop(ctx, p, eventID, false)
	if err != nil {
		return NetworkResult{}, err
	}
	if strings.TrimSpace(chain) == "" {
		got, err := s.issuer.Network(ctx, d.EventID, d.EditCode)
		if err != nil {
			return NetworkResult{}, dropError(d, err)
		}
		return NetworkResult{Drop: s.recordChain(ctx, d, got)}, nil
	}
	want, err := ParseChain(chain)
	if err != nil {
		return NetworkResult{}, dropError(d, err)
	}
	got, err := s.issuer.SetNetwork(ctx, d.EventID, d.EditCode, want)
	if err != nil {
		return NetworkResult{}, dropError(d, err)
	}
	d = s.recordChain(ctx, d, got)
	s.auditBy(ctx, d.PlaceID, moderator, AuditNetworkSet, fmt.Sprintf("event %d, chain %d", d.EventID, got))
	return NetworkResult{Drop: d, Requested: want}, nil
}

// recordChain stores chain as the drop's network and returns the drop with
// it. A failure is logged, not returned: the service has the network
// already, and the stored one is a copy that the next read renews.
func (s *NetworkService) recordChain(ctx context.Context, d Drop, chain int64) Drop {
	if err := s.store.SetDropChain(ctx, d.ID, chain); err != nil {
		s.log.Warn("drop network not recorded", "event", d.EventID, "chain", chain, "err", err)
	}
	d.Chain = chain
	return d
}

// read reads and records the network of a drop just added. A failure is
// logged: the drop is added all the same, and /drop network reads it
// later.
func (s *NetworkService) read(ctx context.Context, d Drop) Drop {
	chain, err := s.issuer.Network(ctx, d.EventID, d.EditCode)
	if err != nil {
		s.log.Warn("drop network not read", "event", d.EventID, "err", err)
		return d
	}
	return s.recordChain(ctx, d, chain)
}
