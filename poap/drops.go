package poap

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/poapbot/poapbot/poap/wire"
)

// Drop is a drop (an event) as the service's drop reads return it: GET
// /events/id/{id}, GET /events/{fancyId}, GET /paginated-events, and the
// answer of POST /events. It carries the fields of Event plus the drop's
// settings; every field may be absent (old drops lack drop_image, only some
// reads carry animation_url).
type Drop struct {
	Event
	// AnimationURL is the drop's animation, when it has one.
	AnimationURL string `json:"animation_url"`
	// FromAdmin says whether a POAP administrator created the drop.
	FromAdmin bool `json:"from_admin"`
	// VirtualEvent says whether the drop is for an online event.
	VirtualEvent bool `json:"virtual_event"`
	// EventTemplateID selects the mint page's template; nil when the
	// service writes null.
	EventTemplateID *int64 `json:"event_template_id"`
	// PrivateEvent hides the drop from the public gallery.
	PrivateEvent bool `json:"private_event"`
	// CreatedDate is when the drop was created, in UTC.
	CreatedDate time.Time `json:"created_date"`
	// Channel, Platform and LocationType describe where the drop was made
	// and held, as the service words them.
	Channel      string `json:"channel"`
	Platform     string `json:"platform"`
	LocationType string `json:"location_type"`
	// Image is the drop's artwork in its stored forms, or nil for drops
	// that predate it.
	Image *DropImage `json:"drop_image"`
}

// UnmarshalJSON reads a drop, accepting the service's date formats and
// "created_date" as RFC 3339 or "YYYY-MM-DD HH:MM:SS".
func (d *Drop) UnmarshalJSON(b []byte) error {
	type plain Drop
	var w struct {
		plain
		CreatedDate timestamp `json:"created_date"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*d = Drop(w.plain)
	d.CreatedDate = w.CreatedDate.Time
	return nil
}

// DropImage is a drop's artwork as the service stores it.
type DropImage struct {
	PublicID string             `json:"public_id"`
	DropID   int64              `json:"drop_id"`
	Gateways []DropImageGateway `json:"gateways"`
}

// The kinds of DropImageGateway.
const (
	// ImageOriginal is the artwork as uploaded.
	ImageOriginal = "ORIGINAL"
	// ImageCrop is the artwork cropped to a circle.
	ImageCrop = "CROP"
)

// DropImageGateway is one stored form of a drop's artwork.
type DropImageGateway struct {
	ImageID  string `json:"image_id"`
	Filename string `json:"filename"`
	MimeType string `json:"mime_type"`
	URL      string `json:"url"`
	// Type is ImageOriginal or ImageCrop.
	Type string `json:"type"`
}

// URL returns the address of the artwork of the given kind (ImageOriginal or
// ImageCrop), or "" when the drop has none of that kind.
func (img *DropImage) URL(kind string) string {
	if img == nil {
		return ""
	}
	for _, g := range img.Gateways {
		if g.Type == kind {
			return g.URL
		}
	}
	return ""
}

// Drop returns the drop with the given id: GET /events/id/{id}. Errors:
// ErrNotFound for an unknown id, ErrInvalidInput for an id below 1,
// ErrUnauthorized, ErrRateLimited, ErrUnavailable; answers of the service
// come as *APIError.
func (c *Client) Drop(ctx context.Context, id int64) (Drop, error) {
	if err := checkID(wire.OpDrop, "id", id); err != nil {
		return Drop{}, err
	}
	var d Drop
	r := request{op: wire.OpDrop, method: http.MethodGet, path: "/events/id/" + strconv.FormatInt(id, 10), idempotent: true}
	if err := c.do(ctx, r, &d); err != nil {
		return Drop{}, err
	}
	return d, nil
}

// DropByFancyID returns the drop with the given fancy id (its URL name, such
// as "berlin-builders-meetup-12-2021"): GET /events/{fancyId}. Errors: those
// of Drop, ErrInvalidInput for an empty fancy id.
func (c *Client) DropByFancyID(ctx context.Context, fancyID string) (Drop, error) {
	if err := checkRequired(wire.OpDropByFancyID, "fancy_id", fancyID); err != nil {
		return Drop{}, err
	}
	var d Drop
	r := request{op: wire.OpDropByFancyID, method: http.MethodGet, path: "/events/" + pathSegment(fancyID), idempotent: true}
	if err := c.do(ctx, r, &d); err != nil {
		return Drop{}, err
	}
	return d, nil
}

// MaxDropsPage is the largest page Drops asks for (the service's maximum).
const MaxDropsPage = 1000

// DropsQuery selects a page of drops. Zero values leave the service's
// defaults: 10 drops from offset 0, newest start date first.
type DropsQuery struct {
	// Limit is the page size, at most MaxDropsPage; 0 means the default.
	Limit int
	// Offset is the number of drops to skip.
	Offset int
	// SortField names the field to sort by ("start_date", "id"...) and
	// SortDir the direction ("asc" or "desc"); the service does not
	// publish the allowed values.
	SortField string
	SortDir   string
}

// DropPage is one page of drops.
type DropPage struct {
	Drops  []Drop `json:"items"`
	Total  int    `json:"total"`
	Limit  int    `json:"limit"`
	Offset int    `json:"offset"`
}

// Drops returns a page of drops: GET /paginated-events (the replacement of
// the deprecated GET /events). Errors: ErrInvalidInput for a negative limit
// or offset or a limit over MaxDropsPage, ErrUnauthorized, ErrRateLimited,
// ErrUnavailable; answers of the service come as *APIError.
func (c *Client) Drops(ctx context.Context, q DropsQuery) (DropPage, error) {
	if q.Limit < 0 || q.Limit > MaxDropsPage {
		return DropPage{}, fieldError(wire.OpDrops, "limit", "%d is not between 0 and %d", q.Limit, MaxDropsPage)
	}
	if q.Offset < 0 {
		return DropPage{}, fieldError(wire.OpDrops, "offset", "%d is negative", q.Offset)
	}
	query := url.Values{}
	if q.Limit > 0 {
		query.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.Offset > 0 {
		query.Set("offset", strconv.Itoa(q.Offset))
	}
	if q.SortField != "" {
		query.Set("sort_field", q.SortField)
	}
	if q.SortDir != "" {
		query.Set("sort_dir", q.SortDir)
	}
	var page DropPage
	r := request{op: wire.OpDrops, method: http.MethodGet, path: "/paginated-events", query: query, idempotent: true}
	if err := c.do(ctx, r, &page); err != nil {
		return DropPage{}, err
	}
	return page, nil
}
