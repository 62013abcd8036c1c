package poap

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/wire"
)

var _ core.NetworkIssuer = DropIssuer{}

// Network reads the chain id drop eventID mints on, from its minting
// configuration (MintingConfig): core.DefaultChain when the configuration
// names none, the first when it names several. Errors:
// core.ErrWrongEditCode, core.ErrUnknownEvent, and those of coreError.
func (d DropIssuer) Network(ctx context.Context, eventID int64, code core.Secret) (int64, error) {
	cfg, err := d.c.MintingConfig(ctx, eventID, code)
	if err != nil {
		return 0, coreError(err)
	}
	return configChain(cfg), nil
}

// SetNetwork makes drop eventID mint on chain (SetMintingNetwork) and
// returns the chain id the service then names. Errors: core.ErrUnknownChain
// for a chain the client or the service refuses, core.ErrWrongEditCode,
// core.ErrUnknownEvent, and those of coreError.
func (d DropIssuer) SetNetwork(ctx context.Context, eventID int64, code core.Secret, chain int64) (int64, error) {
	cfg, err := d.c.SetMintingNetwork(ctx, eventID, code, chain)
	if err != nil {
		return 0, networkError(err)
	}
	return configChain(cfg), nil
}

// configChain is the chain a minting configuration names.
func configChain(cfg MintingConfig) int64 {
	if len(cfg.Chains) == 0 {
		return core.DefaultChain
	}
	return cfg.Chains[0]
}

// networkError translates an error of SetMintingNetwork: a refused chain is
// core.ErrUnknownChain, the rest as coreError does. The client refuses a
// chain outside wire.Chains before sending; the service answers 400 to one
// it does not support. Its body has two fields, so a 400 that is not about
// the edit code (nor a missing drop) is about the chain.
func networkError(err error) error {
	var fieldErr *FieldError
	var apiErr *APIError
	switch {
	case errors.As(err, &fieldErr) && fieldErr.Field == "supported_mint_blockchains":
		return fmt.Errorf("%w: %w: %w", core.ErrNotSent, core.ErrUnknownChain, err)
	case errors.As(err, &apiErr) && apiErr.Operation == wire.OpSetMintingNetwork && apiErr.Status == http.StatusBadRequest &&
		!errors.Is(err, ErrInvalidEditCode) && !errors.Is(err, ErrNotFound):
		return fmt.Errorf("%w: %w", core.ErrUnknownChain, err)
	}
	return coreError(err)
}
