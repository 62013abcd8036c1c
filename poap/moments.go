package poap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/wire"
)

// MomentInput is what a Moment is created from.
type MomentInput struct {
	// Author is the creator's 0x address.
	Author string
	// DropIDs are the drops the Moment is posted to; at least one.
	DropIDs []int64
	// MediaKeys are processed uploads (see UploadMedia and WaitForMedia)
	// not attached to another Moment yet.
	MediaKeys []string
	// Description is at most wire.MaxMomentDescription characters;
	// optional.
	Description string
	// UserTags are the collectors the Moment mentions; optional.
	UserTags []UserTag
}

// UserTag mentions a collector in a Moment, by address or ENS name.
type UserTag = wire.UserTag

// Moment is a published Moment as Moments returns it on creation.
type Moment struct {
	// ID is the Moment's UUID.
	ID string
	// Author is the creator's address.
	Author    string
	CreatedOn time.Time
	DropIDs   []int64
	// Description is empty when none was given.
	Description string
	// CID is the content identifier of the Moment, when the service gives
	// one.
	CID string
}

// MediaFile is a file PostMoment uploads: Size bytes read from Reader, of
// MIME type ContentType (see UploadMedia for the rules on Reader).
type MediaFile struct {
	Reader      io.Reader
	Size        int64
	ContentType string
}

// momentJSON is a created Moment as the client reads it: wire.Moment, or
// the older MVP's answer with a single dropId.
type momentJSON struct {
	wire.Moment
	DropID int64 `json:"dropId"`
}

// CreateMoment publishes a Moment: POST /moments on Moments with a token for
// Options.MomentsAudience (https://documentation.poap.tech/docs/poap-moments-mvp).
// The input is checked first and nothing is sent when it breaks a rule. It
// is not retried, since a second POST would publish a second Moment.
// Errors: ErrInvalidAddress when Author is not a 0x address,
// ErrInvalidInput (a *FieldError) for a description over 600 characters, no drop or an
// empty user tag, ErrMediaInvalid when the service refuses a media key (not
// found, not processed, invalid, or attached already: its 409, whose reason
// the message carries), ErrUnauthorized when no token is configured or it is
// refused, ErrNotFound, ErrRateLimited, ErrUnavailable for failures and
// timeouts; answers from the service come as *APIError.
func (c *Client) CreateMoment(ctx context.Context, in MomentInput) (Moment, error) {
	author, err := in.check()
	if err != nil {
		return Moment{}, err
	}
	base, err := c.momentsBase(wire.OpCreateMoment)
	if err != nil {
		return Moment{}, err
	}
	body, err := jsonBody(wire.MomentInput{
		// An empty list, not null, when the Moment has no media.
		Author: author, MediaKeys: append([]string{}, in.MediaKeys...), DropIDs: in.DropIDs,
		Description: in.Description, UserTags: in.UserTags,
	})
	if err != nil {
		return Moment{}, fmt.Errorf("poap: %s: %w", wire.OpCreateMoment, err)
	}
	r := request{
		op: wire.OpCreateMoment, method: http.MethodPost, base: base, path: "/moments",
		access: bearerOnly, audience: c.momentsAu, body: body, contentType: "application/json",
	}
	var out momentJSON
	if err := c.do(ctx, r, &out); err != nil {
		var apiErr *APIError
		if errors.As(err, &apiErr) && apiErr.Status == http.StatusConflict {
			return Moment{}, fmt.Errorf("%w: %w", err, ErrMediaInvalid)
		}
		return Moment{}, err
	}
	return out.moment()
}

// PostMoment uploads files (UploadMedia), waits until all of them are
// processed (WaitForMedia, with the default interval and a deadline by each
// file's size) and creates the Moment with them after in.MediaKeys
// (CreateMoment). The input is checked before anything is uploaded. Errors:
// those of the three steps.
func (c *Client) PostMoment(ctx context.Context, in MomentInput, files ...MediaFile) (Moment, error) {
	if _, err := in.check(); err != nil {
		return Moment{}, err
	}
	keys := slices.Clone(in.MediaKeys)
	for _, f := range files {
		key, err := c.UploadMedia(ctx, f.Reader, f.Size, f.ContentType)
		if err != nil {
			return Moment{}, err
		}
		keys = append(keys, key)
	}
	// The files were all uploaded before the first wait, so the service
	// processes one while the next is sent.
	for i, f := range files {
		if _, err := c.WaitForMedia(ctx, keys[len(in.MediaKeys)+i], WaitOptions{Size: f.Size}); err != nil {
			return Moment{}, err
		}
	}
	in.MediaKeys = keys
	return c.CreateMoment(ctx, in)
}

// check applies the rules the client knows of and returns the author's
// address in lower case.
func (in MomentInput) check() (string, error) {
	const op = wire.OpCreateMoment
	author, err := core.ParseAddress(in.Author)
	if err != nil {
		return "", fieldError(op, "author", "the author must be a 0x address")
	}
	if n := utf8.RuneCountInString(in.Description); n > wire.MaxMomentDescription {
		return "", fieldError(op, "description", "the description has %d characters, at most %d are allowed", n, wire.MaxMomentDescription)
	}
	if len(in.DropIDs) == 0 {
		return "", fieldError(op, "dropIds", "a Moment is posted to at least one drop")
	}
	for i, tag := range in.UserTags {
		if tag.Address == "" && tag.ENS == "" {
			return "", fieldError(op, "userTags", "user tag %d has neither an address nor an ENS name", i)
		}
	}
	return author, nil
}

// moment converts the service's answer. An unreadable createdOn means the
// service is failing, as an answer that does not decode does.
func (m momentJSON) moment() (Moment, error) {
	created, err := parseTimestamp(m.CreatedOn)
	if err != nil {
		return Moment{}, fmt.Errorf("poap: %s: %w: malformed response: %w", wire.OpCreateMoment, ErrUnavailable, err)
	}
	drops := m.DropIDs
	if len(drops) == 0 && m.DropID != 0 {
		drops = []int64{m.DropID}
	}
	return Moment{
		ID: m.ID, Author: m.Author, CreatedOn: created, DropIDs: drops,
		Description: m.Description, CID: m.CID,
	}, nil
}
