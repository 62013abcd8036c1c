package poap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/wire"
)

// DeliveryInput is a new delivery, the body of POST /deliveries: a page at
// {delivery_url}/<slug> where a fixed list of addresses may mint the given
// drops. The address list cannot change once created.
type DeliveryInput struct {
	// Slug is the delivery page's path segment (required).
	Slug string
	// CardTitle and CardText are shown on the card of the deliveries'
	// main page, PageTitle and PageText on the delivery's page.
	CardTitle string
	CardText  string
	PageTitle string
	PageText  string
	// Drops are the drops collectors can mint, each with its edit code.
	Drops []DeliveryDrop
	// Image is the URL of the card's image, PageTitleImage of the image
	// beside the page's title.
	Image          string
	PageTitleImage string
	// MetadataTitle and MetadataDescription make the share snippet.
	MetadataTitle       string
	MetadataDescription string
	// Addresses may mint; each lists the drops it may mint.
	Addresses []DeliveryAddress
}

// DeliveryDrop is a drop of a delivery and its 6-digit edit code.
type DeliveryDrop struct {
	EventID  int64
	EditCode core.Secret
}

// DeliveryAddress is an address allowed to mint, and the drops it may mint.
type DeliveryAddress struct {
	Address string  `json:"address"`
	Events  []int64 `json:"events"`
}

// Delivery is a delivery as the service returns it; every field may be
// absent.
type Delivery struct {
	ID                  int64
	Slug                string
	CardTitle           string
	CardText            string
	PageTitle           string
	PageText            string
	PageTitleImage      string
	Image               string
	MetadataTitle       string
	MetadataDescription string
	// EventIDs are the delivery's drops.
	EventIDs []int64
	Active   bool
	Private  bool
	// ClaimedAddresses of TotalAddresses have minted.
	ClaimedAddresses int64
	TotalAddresses   int64
}

// UnmarshalJSON reads a delivery leniently: event_ids as the schema's
// comma-separated string or as an array.
func (d *Delivery) UnmarshalJSON(b []byte) error {
	var w struct {
		ID                  flexInt  `json:"id"`
		Slug                string   `json:"slug"`
		CardTitle           string   `json:"card_title"`
		CardText            string   `json:"card_text"`
		PageTitle           string   `json:"page_title"`
		PageText            string   `json:"page_text"`
		PageTitleImage      string   `json:"page_title_image"`
		Image               string   `json:"image"`
		MetadataTitle       string   `json:"metadata_title"`
		MetadataDescription string   `json:"metadata_description"`
		EventIDs            idList   `json:"event_ids"`
		Active              flexBool `json:"active"`
		Private             flexBool `json:"private"`
		ClaimedAddresses    flexInt  `json:"claimed_addresses"`
		TotalAddresses      flexInt  `json:"total_addresses"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*d = Delivery{
		ID: int64(w.ID), Slug: w.Slug, CardTitle: w.CardTitle, CardText: w.CardText, PageTitle: w.PageTitle,
		PageText: w.PageText, PageTitleImage: w.PageTitleImage, Image: w.Image, MetadataTitle: w.MetadataTitle,
		MetadataDescription: w.MetadataDescription, EventIDs: w.EventIDs, Active: bool(w.Active),
		Private: bool(w.Private), ClaimedAddresses: int64(w.ClaimedAddresses), TotalAddresses: int64(w.TotalAddresses),
	}
	return nil
}

// idList reads ids written as "1,2,3", as one number, or as an array of
// numbers or strings; parts that are not ids are skipped, so an odd value in
// the answer to a write does not hide that the write succeeded.
type idList []int64

// UnmarshalJSON implements json.Unmarshaler.
func (l *idList) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	var parts []flexString
	if len(b) > 0 && b[0] == '[' {
		if err := json.Unmarshal(b, &parts); err != nil {
			return err
		}
	} else {
		var s flexString
		if err := s.UnmarshalJSON(b); err != nil {
			return err
		}
		for _, p := range strings.Split(string(s), ",") {
			parts = append(parts, flexString(p))
		}
	}
	*l = nil
	for _, p := range parts {
		if p := strings.TrimSpace(string(p)); p != "" {
			if id, err := strconv.ParseInt(p, 10, 64); err == nil {
				*l = append(*l, id)
			}
		}
	}
	return nil
}

// CreateDelivery creates a delivery: POST /deliveries, an open write; it is
// not retried. The drop ids and their edit codes are sent as the
// comma-separated strings event_ids and secret_codes, in matching order.
// Errors: a *FieldError (ErrInvalidInput, ErrInvalidEditCode,
// ErrInvalidAddress) before sending; from the service ErrInvalidEditCode,
// ErrSlugTaken, ErrRateLimited, ErrUnauthorized, ErrUnavailable and other
// answers as *APIError.
func (c *Client) CreateDelivery(ctx context.Context, in DeliveryInput) (Delivery, error) {
	if err := in.validate(); err != nil {
		return Delivery{}, err
	}
	ids := make([]string, len(in.Drops))
	codes := make([]string, len(in.Drops))
	for i, d := range in.Drops {
		ids[i], codes[i] = strconv.FormatInt(d.EventID, 10), d.EditCode.Reveal()
	}
	body, err := jsonBody(deliveryJSON{
		Slug: strings.TrimSpace(in.Slug), CardTitle: in.CardTitle, CardText: in.CardText,
		PageTitle: in.PageTitle, PageText: in.PageText, EventIDs: strings.Join(ids, ","),
		SecretCodes: strings.Join(codes, ","), Image: in.Image, PageTitleImage: in.PageTitleImage,
		MetadataTitle: in.MetadataTitle, MetadataDescription: in.MetadataDescription, Addresses: in.Addresses,
	})
	if err != nil {
		return Delivery{}, err
	}
	var d Delivery
	r := request{op: wire.OpCreateDelivery, method: http.MethodPost, path: "/deliveries", body: body, contentType: "application/json",
		secrets: codes}
	if err := c.do(ctx, r, &d); err != nil {
		return Delivery{}, c.slugRefusal(ctx, err, in.Slug)
	}
	return d, nil
}

// slugRefusal returns err, the failure of POST /deliveries for slug, as
// ErrSlugTaken when it is that refusal in words the client does not know:
// a 400 or 409 that matches no other sentinel, while a delivery has the
// slug. The slug is read only then; if the read fails, err is returned as
// it is.
func (c *Client) slugRefusal(ctx context.Context, err error, slug string) error {
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.badRequest() != nil || apiErr.slugTaken() ||
		apiErr.Status != http.StatusBadRequest && apiErr.Status != http.StatusConflict {
		return err
	}
	if _, readErr := c.DeliveryBySlug(ctx, slug); readErr != nil {
		return err
	}
	return fmt.Errorf("%w: %w", err, ErrSlugTaken)
}

// DeliveryBySlug reads the delivery whose page is {delivery_url}/<slug>:
// GET /delivery/slug/{slug}, an open read. Errors: ErrNotFound when no
// delivery has the slug, ErrInvalidInput for an empty slug,
// ErrUnauthorized, ErrRateLimited, ErrUnavailable; answers of the service
// come as *APIError.
func (c *Client) DeliveryBySlug(ctx context.Context, slug string) (Delivery, error) {
	if err := checkRequired(wire.OpDeliveryBySlug, "slug", slug); err != nil {
		return Delivery{}, err
	}
	var d Delivery
	r := request{
		op: wire.OpDeliveryBySlug, method: http.MethodGet, path: "/delivery/slug/" + pathSegment(strings.TrimSpace(slug)),
		idempotent: true,
	}
	if err := c.do(ctx, r, &d); err != nil {
		return Delivery{}, err
	}
	return d, nil
}

// deliveryJSON is the body of POST /deliveries.
type deliveryJSON struct {
	Slug                string            `json:"slug"`
	CardTitle           string            `json:"card_title"`
	CardText            string            `json:"card_text"`
	PageTitle           string            `json:"page_title"`
	PageText            string            `json:"page_text"`
	EventIDs            string            `json:"event_ids"`
	SecretCodes         string            `json:"secret_codes"`
	Image               string            `json:"image"`
	PageTitleImage      string            `json:"page_title_image"`
	MetadataTitle       string            `json:"metadata_title"`
	MetadataDescription string            `json:"metadata_description"`
	Addresses           []DeliveryAddress `json:"addresses"`
}

// validate checks a delivery before anything is sent: a slug, at least one
// drop with a valid code, at least one address, each allowed only drops of
// the delivery.
func (in DeliveryInput) validate() error {
	const op = wire.OpCreateDelivery
	if err := checkRequired(op, "slug", in.Slug); err != nil {
		return err
	}
	if len(in.Drops) == 0 {
		return fieldError(op, "event_ids", "at least one drop is required")
	}
	drops := map[int64]bool{}
	for _, d := range in.Drops {
		if err := firstError(checkID(op, "event_ids", d.EventID), checkEditCode(op, "secret_codes", d.EditCode)); err != nil {
			return err
		}
		drops[d.EventID] = true
	}
	if len(in.Addresses) == 0 {
		return fieldError(op, "addresses", "at least one address is required")
	}
	for i, a := range in.Addresses {
		if strings.TrimSpace(a.Address) == "" {
			return fieldError(op, "address", "addresses[%d] is empty", i)
		}
		if len(a.Events) == 0 {
			return fieldError(op, "addresses", "addresses[%d] lists no drop", i)
		}
		for _, e := range a.Events {
			if !drops[e] {
				return fieldError(op, "addresses", "addresses[%d] lists drop %d, which is not in event_ids", i, e)
			}
		}
	}
	return nil
}

// ClaimDelivery mints the delivery's drops for address (a 0x address or ENS
// name on the delivery's list): POST /actions/claim-delivery-v2 with the
// delivery's id, an open write; it is not retried. It returns the queue id
// of the mint. Errors: ErrAlreadyMinted when the address claimed already
// ("Delivery already claimed"), ErrInvalidAddress (also for an empty
// address, before sending), ErrInvalidInput for an id below 1, ErrNotFound,
// ErrRateLimited, ErrUnauthorized, ErrUnavailable; answers of the service
// come as *APIError.
func (c *Client) ClaimDelivery(ctx context.Context, deliveryID int64, address string) (string, error) {
	const op = wire.OpClaimDelivery
	if err := firstError(checkID(op, "id", deliveryID), checkRequired(op, "address", address)); err != nil {
		return "", err
	}
	body, err := jsonBody(struct {
		ID      int64  `json:"id"`
		Address string `json:"address"`
	}{deliveryID, strings.TrimSpace(address)})
	if err != nil {
		return "", err
	}
	var out struct {
		QueueUID flexString `json:"queue_uid"`
		QueueID  flexString `json:"queue_id"`
	}
	r := request{op: op, method: http.MethodPost, path: "/actions/claim-delivery-v2", body: body, contentType: "application/json"}
	if err := c.do(ctx, r, &out); err != nil {
		return "", err
	}
	if out.QueueUID != "" {
		return string(out.QueueUID), nil
	}
	return string(out.QueueID), nil
}
