package poap

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/poapbot/poapbot/poap/wire"
)

// MaxHoldersPage is the largest page of holders the service returns.
const MaxHoldersPage = 300

// Holder is one POAP of a drop and the address holding it.
type Holder struct {
	// TokenID is the token's id, a decimal string.
	TokenID string
	// Owner is the holder's address as the service writes it.
	Owner string
	// ENS is the holder's ENS name, or "".
	ENS string
	// OwnerTokens is the number of POAPs the holder owns, of all drops.
	OwnerTokens int
	// TransferCount is how many times this token changed hands.
	TransferCount int64
	// Created is when the token was minted, in UTC.
	Created time.Time
	// Migrated is when the token moved to another network, or nil.
	Migrated *time.Time
}

// holderJSON is a holder as the service writes it: the token's
// transferCount is a string, its owner an object.
type holderJSON struct {
	ID            flexString `json:"id"`
	Created       timestamp  `json:"created"`
	Migrated      timestamp  `json:"migrated"`
	TransferCount flexInt    `json:"transferCount"`
	Owner         struct {
		ID          string  `json:"id"`
		TokensOwned flexInt `json:"tokensOwned"`
		ENS         string  `json:"ens"`
	} `json:"owner"`
}

// UnmarshalJSON reads a holder in the service's format.
func (h *Holder) UnmarshalJSON(b []byte) error {
	var w holderJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*h = Holder{
		TokenID: string(w.ID), Owner: w.Owner.ID, ENS: w.Owner.ENS, OwnerTokens: int(w.Owner.TokensOwned),
		TransferCount: int64(w.TransferCount), Created: w.Created.Time,
	}
	if !w.Migrated.IsZero() {
		migrated := w.Migrated.Time
		h.Migrated = &migrated
	}
	return nil
}

// HolderPage is one page of a drop's holders.
type HolderPage struct {
	Holders []Holder `json:"tokens"`
	// Total is the number of POAPs of the drop.
	Total int `json:"total"`
	Limit int `json:"limit"`
	// Offset is the position of the page's first holder.
	Offset int `json:"offset"`
	// TransferCount is the number of transfers of the drop's POAPs.
	TransferCount int64 `json:"transferCount"`
}

// HoldersPage returns limit holders of drop eventID from offset: GET
// /event/{id}/poaps (the interface's "/event/{id}/items"). A limit of 0 or
// over MaxHoldersPage asks for MaxHoldersPage. The page is decoded as it
// arrives, with no bound on its size but at most MaxHoldersPage holders of
// at most 64 KiB each. Errors: ErrInvalidInput for an id below 1 or a
// negative offset, ErrNotFound, ErrUnauthorized, ErrRateLimited,
// ErrUnavailable (also for a page over those bounds); answers of the service
// come as *APIError.
func (c *Client) HoldersPage(ctx context.Context, eventID int64, offset, limit int) (HolderPage, error) {
	if err := checkID(wire.OpHolders, "id", eventID); err != nil {
		return HolderPage{}, err
	}
	if offset < 0 {
		return HolderPage{}, fieldError(wire.OpHolders, "offset", "%d is negative", offset)
	}
	if limit <= 0 || limit > MaxHoldersPage {
		limit = MaxHoldersPage
	}
	var page HolderPage
	r := request{
		op:         wire.OpHolders,
		method:     http.MethodGet,
		path:       "/event/" + strconv.FormatInt(eventID, 10) + "/poaps",
		query:      url.Values{"limit": {strconv.Itoa(limit)}, "offset": {strconv.Itoa(offset)}},
		idempotent: true,
		stream: func(body io.Reader) error {
			page = HolderPage{}
			return decodeHolderPage(body, &page)
		},
	}
	if err := c.do(ctx, r, nil); err != nil {
		return HolderPage{}, err
	}
	return page, nil
}

// Holders iterates over every holder of drop eventID, reading pages of
// MaxHoldersPage with HoldersPage until a short page or, when the service
// gives it, the total. An error
// ends the iteration: it is yielded once, with a zero Holder. Breaking out of
// the loop stops reading pages.
func (c *Client) Holders(ctx context.Context, eventID int64) iter.Seq2[Holder, error] {
	return func(yield func(Holder, error) bool) {
		for offset := 0; ; {
			page, err := c.HoldersPage(ctx, eventID, offset, MaxHoldersPage)
			if err != nil {
				yield(Holder{}, err)
				return
			}
			for _, h := range page.Holders {
				if !yield(h, nil) {
					return
				}
			}
			offset += len(page.Holders)
			if len(page.Holders) < MaxHoldersPage || page.Total > 0 && offset >= page.Total {
				return
			}
		}
	}
}
