package poap

import (
	"context"
	"errors"
	"fmt"

	"github.com/poapbot/poapbot/core"
)

// Holdings lists the POAPs held by wallet (a 0x address, an ENS name or an
// e-mail) in the core's terms; it is Scan behind the core.Scanner interface:
// GET /actions/scan/{address}. Errors wrap both the poap and the core
// sentinel: core.ErrInvalidWallet for an address the service refuses,
// core.ErrIssuerRejected for a refused key, core.ErrIssuerUnavailable for
// every other failure (rate limiting, 5xx, timeouts, network, bad bodies). A
// cancelled ctx gives an error wrapping context.Canceled only.
func (c *Client) Holdings(ctx context.Context, wallet string) ([]core.Holding, error) {
	tokens, err := c.Scan(ctx, wallet)
	if err != nil {
		return nil, issuerError(err)
	}
	holdings := make([]core.Holding, 0, len(tokens))
	for _, t := range tokens {
		holdings = append(holdings, holding(t))
	}
	return holdings, nil
}

// holding maps a token to the core's Holding.
func holding(t Token) core.Holding {
	return core.Holding{
		TokenID:  t.TokenID,
		DropID:   t.Event.ID,
		DropName: t.Event.Name,
		FancyID:  t.Event.FancyID,
		Chain:    t.Chain,
		Owner:    t.Owner,
		MintedAt: t.Created,
		ImageURL: t.Event.ImageURL,
	}
}

// issuerError translates a client error into the core's sentinels, keeping
// the original reachable: a refused address is core.ErrInvalidWallet, a
// refused key core.ErrIssuerRejected, the rest as otherError says.
func issuerError(err error) error {
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, ErrInvalidAddress):
		return fmt.Errorf("%w: %w", core.ErrInvalidWallet, err)
	case errors.Is(err, ErrUnauthorized):
		return fmt.Errorf("%w: %w", core.ErrIssuerRejected, err)
	}
	return otherError(err)
}
