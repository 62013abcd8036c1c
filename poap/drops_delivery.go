package poap

import (
	"context"
	"errors"
	"fmt"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/wire"
)

var _ core.DeliveryIssuer = DropIssuer{}

// CreateDelivery creates the delivery of one drop (POST /deliveries), never
// retried: every address may mint r.EventID once; the card's image is also
// the one beside the page's title, and the page's title and text make the
// share snippet. It returns the delivery's id. Errors: core.ErrSlugTaken,
// core.ErrWrongEditCode, core.ErrInvalidWallet (an address refused),
// core.ErrInvalidSlug and core.ErrEmptyDelivery (refused before sending), a
// *core.BusyError for a 429 (not processed), and those of coreError; on
// core.ErrIssuerUnavailable (an answer without an id included) the
// delivery may have been created, unless the error matches core.ErrNotSent
// too: DeliveryBySlug settles it.
func (d DropIssuer) CreateDelivery(ctx context.Context, r core.DeliveryRequest) (int64, error) {
	in := DeliveryInput{
		Slug: r.Slug, CardTitle: r.CardTitle, CardText: r.CardText, PageTitle: r.PageTitle, PageText: r.PageText,
		Drops: []DeliveryDrop{{EventID: r.EventID, EditCode: r.EditCode}},
		Image: r.Image, PageTitleImage: r.Image, MetadataTitle: r.PageTitle, MetadataDescription: r.PageText,
		Addresses: make([]DeliveryAddress, len(r.Addresses)),
	}
	for i, a := range r.Addresses {
		in.Addresses[i] = DeliveryAddress{Address: a, Events: []int64{r.EventID}}
	}
	dl, err := d.c.CreateDelivery(ctx, in)
	if err != nil {
		return 0, createError(err)
	}
	if dl.ID <= 0 {
		// The service took the request and answered without saying
		// which delivery it made, if any.
		return 0, fmt.Errorf("poap: %s: the answer has no delivery id: %w", wire.OpCreateDelivery, core.ErrIssuerUnavailable)
	}
	return dl.ID, nil
}

// createError translates the failure of POST /deliveries: a 429 is a
// *core.BusyError, the refusals of deliveries have their core sentinels
// (which, like mintError's, do not match core.ErrNotSent: they would be
// refused again), and the rest is coreError's.
func createError(err error) error {
	var field *FieldError
	isField := errors.As(err, &field)
	var target error
	switch {
	case errors.Is(err, ErrRateLimited):
		return busyError(err)
	case errors.Is(err, ErrSlugTaken):
		target = core.ErrSlugTaken
	case isField && field.Field == "slug":
		target = core.ErrInvalidSlug
	case isField && field.Field == "addresses":
		// The adapter lists every address with the one drop, so the only
		// list the client refuses is an empty one.
		target = core.ErrEmptyDelivery
	default:
		return coreError(err)
	}
	return fmt.Errorf("%w: %w", target, err)
}

// DeliveryBySlug reads the delivery whose page is slug (GET
// /delivery/slug/{slug}). Errors: core.ErrNotFound when no delivery has
// the slug (or it is empty), core.ErrIssuerUnavailable for an answer
// without an id, and those of coreError.
func (d DropIssuer) DeliveryBySlug(ctx context.Context, slug string) (core.DeliveryStatus, error) {
	dl, err := d.c.DeliveryBySlug(ctx, slug)
	switch {
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrInvalidInput):
		return core.DeliveryStatus{}, fmt.Errorf("%w: %w", core.ErrNotFound, err)
	case err != nil:
		return core.DeliveryStatus{}, coreError(err)
	case dl.ID <= 0:
		return core.DeliveryStatus{}, fmt.Errorf("poap: %s: the answer has no delivery id: %w", wire.OpDeliveryBySlug, core.ErrIssuerUnavailable)
	}
	return core.DeliveryStatus{
		ID: dl.ID, Slug: dl.Slug, EventIDs: dl.EventIDs, Active: dl.Active,
		Claimed: dl.ClaimedAddresses, Total: dl.TotalAddresses,
	}, nil
}

// ClaimDelivery mints the delivery's drops to address (POST
// /actions/claim-delivery-v2), never retried, and returns the queue id of
// the mint. Errors: core.ErrWalletHoldsDrop when the address claimed
// already, core.ErrNotListed, core.ErrDropExpired, core.ErrInvalidWallet,
// core.ErrMintRefused for a delivery the service does not know (or an id
// below 1) or another refusal, a *core.BusyError for a 429 (not
// processed), and those of coreError; on core.ErrIssuerUnavailable the
// claim may have been taken, unless the error matches core.ErrNotSent too.
func (d DropIssuer) ClaimDelivery(ctx context.Context, deliveryID int64, address string) (string, error) {
	uid, err := d.c.ClaimDelivery(ctx, deliveryID, address)
	if err != nil {
		return "", mintError(err, deliveryRefusal)
	}
	return uid, nil
}

// deliveryRefusal is the core sentinel of the refusals only a delivery
// claim has, or nil. A missing delivery is a refusal the core has no word
// for: nothing was minted.
func deliveryRefusal(err error) error {
	switch {
	case errors.Is(err, ErrNotListed):
		return core.ErrNotListed
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrInvalidInput):
		return core.ErrMintRefused
	}
	return nil
}
