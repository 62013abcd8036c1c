package poap

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/poapbot/poapbot/core"
)

// GateIssuer is the client in the terms of core.GateIssuer: what gating
// reads from the service (the POAPs a wallet holds, a drop's holders a page
// at a time, a drop's name), with the client's errors translated into the
// core's sentinels (the poap sentinel stays reachable). It is a type of its
// own, like DropIssuer, because DropDetails is the drop issuer's, not a
// method of the client.
type GateIssuer struct {
	c *Client
}

var _ core.GateIssuer = GateIssuer{}

// A page of the core's must fit in one of the service's, or DropHolders
// would read short pages: this fails to compile otherwise.
const _ = uint(MaxHoldersPage - core.HoldersPageSize)

// zeroAddress owns burned POAPs; nobody holds them.
const zeroAddress = "0x0000000000000000000000000000000000000000"

// NewGateIssuer returns c as a core.GateIssuer.
func NewGateIssuer(c *Client) GateIssuer { return GateIssuer{c: c} }

// Holdings is Client.Holdings: the POAPs wallet holds (GET
// /actions/scan/{address}), with its errors.
func (g GateIssuer) Holdings(ctx context.Context, wallet string) ([]core.Holding, error) {
	return g.c.Holdings(ctx, wallet)
}

// DropDetails is DropIssuer.DropDetails: the drop's name, artwork and
// expiry (GET /events/id/{id}), with its errors (core.ErrUnknownEvent for a
// drop that does not exist).
func (g GateIssuer) DropDetails(ctx context.Context, eventID int64) (core.DropDetails, error) {
	return NewDropIssuer(g.c).DropDetails(ctx, eventID)
}

// DropHolders reads the page of drop dropID's holders that starts at offset
// with one GET /event/{id}/poaps?limit=300&offset=..., retried as every
// idempotent read is. Addresses are lower case, one per POAP, in the
// service's order; a POAP migrated to another network still counts for its
// owner, while one owned by the zero address (burned) or by no address is
// left out, so a page may carry fewer addresses than it has POAPs: callers
// move on by core.HoldersPageSize, up to Total. Total is the service's count
// of the drop's POAPs, never less than the POAPs read so far. Errors:
// core.ErrUnknownEvent for a drop the service does not know (or an id below
// 1), core.ErrIssuerRejected for a refused key, core.ErrIssuerUnavailable
// for every other failure (a negative offset is that and ErrInvalidInput),
// context.Canceled alone for a cancelled ctx.
func (g GateIssuer) DropHolders(ctx context.Context, dropID int64, offset int) (core.HolderPage, error) {
	page, err := g.c.HoldersPage(ctx, dropID, offset, core.HoldersPageSize)
	if err != nil {
		return core.HolderPage{}, holdersError(err)
	}
	// A total below what the pages showed would end a sweep early, so
	// the count of the POAPs seen is the least it can be.
	out := core.HolderPage{
		Addresses: make([]string, 0, len(page.Holders)),
		Total:     max(page.Total, offset+len(page.Holders)),
	}
	for _, h := range page.Holders {
		owner := strings.ToLower(strings.TrimSpace(h.Owner))
		if owner == "" || owner == zeroAddress {
			continue
		}
		out.Addresses = append(out.Addresses, owner)
	}
	return out, nil
}

// holdersError translates an error of HoldersPage: an unknown drop (404, or
// an id the client refused) is core.ErrUnknownEvent, the rest as
// issuerError says.
func holdersError(err error) error {
	var field *FieldError
	if errors.Is(err, ErrNotFound) || errors.As(err, &field) && field.Field == "id" {
		return fmt.Errorf("%w: %w", core.ErrUnknownEvent, err)
	}
	return issuerError(err)
}
