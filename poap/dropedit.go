package poap

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/wire"
)

// DropEdit is the new content of an existing drop, the form of PUT
// /events/{fancyId}. That operation replaces the whole drop: every field
// is sent, so unchanged ones must carry their current value, and the
// OpenAPI definition requires the artwork too, although it cannot change.
// Only the name, description, city, country, dates and URL can change; the
// artwork, the drop's ids and its on-chain values cannot.
type DropEdit struct {
	Name        string
	Description string
	City        string
	Country     string
	EventURL    string
	StartDate   Date
	EndDate     Date
	ExpiryDate  Date
	// EditCode is the drop's 6-digit secret_code.
	EditCode core.Secret
	// VirtualEvent, PrivateEvent and EventTemplateID are sent as they are.
	// nil makes EditDrop read the drop first and send its own: a field
	// left out of the form takes the service's default (public, not
	// virtual), and an edit must never turn a private test drop public. A
	// template the drop does not state (null) is not sent.
	VirtualEvent    *bool
	PrivateEvent    *bool
	EventTemplateID *int64
	// Image is the artwork to send, ImageName and ImageType as on
	// DropInput. nil makes EditDrop send the drop's current artwork, read
	// without credentials from its address (drop_image ORIGINAL, else
	// image_url).
	Image     io.Reader
	ImageName string
	ImageType string
}

// EditDrop replaces the content of the drop fancyID: PUT /events/{fancyId},
// as multipart/form-data. What in leaves nil (the flags, the template, the
// artwork) is first read from the drop (GET /events/{fancyId}, then its
// artwork address), so it is sent back as it is. The service allows edits
// only within 30 days of the drop's start. Errors: a *FieldError
// (ErrInvalidInput) before sending, also for a drop without an artwork
// address when in.Image is nil; from the service ErrInvalidEditCode,
// ErrNotFound, ErrUnauthorized, ErrRateLimited, ErrUnavailable and other
// answers as *APIError, whose Operation names the read that failed
// (wire.OpDropByFancyID, wire.OpDropArtwork) or wire.OpEditDrop.
func (c *Client) EditDrop(ctx context.Context, fancyID string, in DropEdit) error {
	const op = wire.OpEditDrop
	if err := firstError(checkRequired(op, "fancy_id", fancyID), in.validate(op)); err != nil {
		return err
	}
	var image *formFile
	if in.Image != nil {
		data, imageType, err := readImage(op, in.Image, in.ImageName, in.ImageType)
		if err != nil {
			return err
		}
		image = &formFile{name: path.Base(in.ImageName), typ: imageType, data: data}
	}
	if in.VirtualEvent == nil || in.PrivateEvent == nil || in.EventTemplateID == nil || image == nil {
		d, err := c.DropByFancyID(ctx, fancyID)
		if err != nil {
			return err
		}
		in.VirtualEvent = cmp.Or(in.VirtualEvent, &d.VirtualEvent)
		in.PrivateEvent = cmp.Or(in.PrivateEvent, &d.PrivateEvent)
		in.EventTemplateID = cmp.Or(in.EventTemplateID, d.EventTemplateID)
		if image == nil {
			if image, err = c.artwork(ctx, d); err != nil {
				return err
			}
		}
	}
	fields := append(in.fields(),
		[2]string{"virtual_event", strconv.FormatBool(*in.VirtualEvent)},
		[2]string{"private_event", strconv.FormatBool(*in.PrivateEvent)})
	if in.EventTemplateID != nil {
		fields = append(fields, [2]string{"event_template_id", strconv.FormatInt(*in.EventTemplateID, 10)})
	}
	body, contentType, err := multipartBody(fields, image)
	if err != nil {
		return fieldError(op, "body", "%v", err)
	}
	r := request{op: op, method: http.MethodPut, path: "/events/" + pathSegment(fancyID),
		body: body.reader, contentLength: body.size, contentType: contentType, emptyOK: true,
		secrets: []string{in.EditCode.Reveal()}}
	return c.do(ctx, r, nil)
}

// artwork reads the current artwork of d from its address, without
// credentials: the image host is not the issuing service. It is sent back
// as the service stored it (its type sniffed, its file name the address's),
// at most wire.MaxDropImage bytes. A redirect to another host is not
// followed (see Options.HTTPClient). Errors: a *FieldError when d has no
// http or https artwork address; ErrUnavailable for an artwork over the
// limit; and those of a request, as *APIError of wire.OpDropArtwork.
func (c *Client) artwork(ctx context.Context, d Drop) (*formFile, error) {
	raw := cmp.Or(d.Image.URL(ImageOriginal), d.ImageURL)
	u, err := url.Parse(raw)
	if raw == "" || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fieldError(wire.OpEditDrop, "image", "the drop has no artwork address to send its artwork back from; give DropEdit.Image")
	}
	var data []byte
	r := request{
		op: wire.OpDropArtwork, method: http.MethodGet, rawURL: u.String(), access: anonymous, idempotent: true,
		accept: "image/*",
		stream: func(body io.Reader) error {
			var readErr error
			if data, readErr = io.ReadAll(io.LimitReader(body, wire.MaxDropImage+1)); readErr != nil {
				return readErr
			}
			if len(data) > wire.MaxDropImage {
				return fmt.Errorf("the artwork is over %d bytes", wire.MaxDropImage)
			}
			return nil
		},
	}
	if err := c.do(ctx, r, nil); err != nil {
		return nil, err
	}
	return &formFile{name: path.Base(u.Path), typ: http.DetectContentType(data), data: data}, nil
}
