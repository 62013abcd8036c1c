package poap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/poapbot/poapbot/core"
)

// MomentIssuer is the client as the core's Moments see it
// (core.MomentIssuer): scans by event, uploads, processing, publication and
// the Moments query, with errors in the core's sentinels.
type MomentIssuer struct {
	c *Client
	// Interval is the pause between media status reads; zero is
	// DefaultMediaPollInterval (tests shorten it).
	Interval time.Duration
}

var _ core.MomentIssuer = MomentIssuer{}

// NewMomentIssuer returns c as a core.MomentIssuer.
func NewMomentIssuer(c *Client) MomentIssuer { return MomentIssuer{c: c} }

// HoldsDrop is ScanEvent: GET /actions/scan/{address}/{eventId}, true when
// the address holds a POAP of the drop. Errors: core.ErrIssuerRejected,
// core.ErrIssuerUnavailable, core.ErrInvalidWallet.
func (m MomentIssuer) HoldsDrop(ctx context.Context, address string, dropID int64) (bool, error) {
	_, err := m.c.ScanEvent(ctx, address, dropID)
	switch {
	case errors.Is(err, ErrNotFound):
		return false, nil
	case err != nil:
		return false, issuerError(err)
	}
	return true, nil
}

// DropName is the drop's name (GET /events/id/{id}); core.ErrUnknownEvent
// for a drop that does not exist.
func (m MomentIssuer) DropName(ctx context.Context, dropID int64) (string, error) {
	d, err := NewDropIssuer(m.c).DropDetails(ctx, dropID)
	if err != nil {
		return "", err
	}
	return d.Name, nil
}

// UploadMedia is Client.UploadMedia: a signed address, then the file
// streamed to it with PUT. Errors: core.ErrMediaChanged when r held more
// or fewer than size bytes, core.ErrIssuerRejected, core.ErrIssuerRefused,
// core.ErrIssuerUnavailable; r's own read error is kept reachable.
func (m MomentIssuer) UploadMedia(ctx context.Context, r io.Reader, size int64, contentType string) (string, error) {
	key, err := m.c.UploadMedia(ctx, r, size, contentType)
	if err != nil {
		return "", momentError(err)
	}
	return key, nil
}

// WaitForMedia is Client.WaitForMedia with the default deadline for the
// file's size; it returns the first gateway address of the processed file.
// Errors: core.ErrMediaInvalid, core.ErrMediaTimeout,
// core.ErrIssuerUnavailable.
func (m MomentIssuer) WaitForMedia(ctx context.Context, key string, size int64) (core.MomentMediaView, error) {
	media, err := m.c.WaitForMedia(ctx, key, WaitOptions{Size: size, Interval: m.Interval})
	if err != nil {
		return core.MomentMediaView{}, momentError(err)
	}
	v := core.MomentMediaView{Type: media.MimeType}
	if len(media.Gateways) > 0 {
		v.URL = media.Gateways[0].URL
		if v.Type == "" {
			v.Type = media.Gateways[0].Type
		}
	}
	return v, nil
}

// CreateMoment is Client.CreateMoment with one drop. Errors:
// core.ErrMediaInvalid (the service's 409), core.ErrIssuerRejected,
// core.ErrIssuerUnavailable.
func (m MomentIssuer) CreateMoment(ctx context.Context, in core.NewMoment) (string, error) {
	mo, err := m.c.CreateMoment(ctx, MomentInput{
		Author: in.Author, DropIDs: []int64{in.DropID}, MediaKeys: in.MediaKeys, Description: in.Description,
	})
	if err != nil {
		return "", momentError(err)
	}
	return mo.ID, nil
}

// Moments is Client.Moments in the core's terms: each Moment with the
// first gateway of each of its files.
func (m MomentIssuer) Moments(ctx context.Context, q core.MomentQuery) ([]core.MomentView, error) {
	rows, err := m.c.Moments(ctx, MomentsQuery{Limit: q.Limit, Offset: q.Offset, DropIDs: q.DropIDs, Author: q.Author})
	if err != nil {
		return nil, momentError(err)
	}
	out := make([]core.MomentView, 0, len(rows))
	for _, r := range rows {
		v := core.MomentView{ID: r.ID, Author: r.Author, Description: r.Description, CreatedOn: r.CreatedOn, DropIDs: r.DropIDs}
		for _, md := range r.Media {
			if len(md.Gateways) == 0 {
				continue
			}
			v.Media = append(v.Media, core.MomentMediaView{Type: md.MimeType, URL: md.Gateways[0].URL})
		}
		out = append(out, v)
	}
	return out, nil
}

// momentError translates the client's Moments errors into the core's,
// keeping the original reachable.
func momentError(err error) error {
	switch {
	case errors.Is(err, ErrMediaInvalid):
		return fmt.Errorf("%w: %w", core.ErrMediaInvalid, err)
	case errors.Is(err, ErrMediaTimeout):
		return fmt.Errorf("%w: %w", core.ErrMediaTimeout, err)
	case errors.Is(err, ErrMediaChanged):
		return fmt.Errorf("%w: %w", core.ErrMediaChanged, err)
	}
	return issuerError(err)
}
