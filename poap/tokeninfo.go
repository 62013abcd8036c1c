package poap

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/poapbot/poapbot/poap/wire"
)

// TokenInfo is one POAP looked up by its id: the way to find the drop of a
// token id.
type TokenInfo struct {
	// Event is the token's drop (without supply).
	Event Drop
	// TokenID is the token's id, a decimal string.
	TokenID string
	// Owner is the holder's address as the service writes it.
	Owner string
	// Layer is "Layer1" or "Layer2".
	Layer string
	// Chain is the token's network, when the service says ("xdai"...).
	Chain string
	// Created is when the token was minted, in UTC; zero when absent.
	Created time.Time
	// Supply is the drop's minted total and this token's place in it.
	Supply TokenSupply
}

// TokenSupply is a drop's number of POAPs and a token's rank among them.
type TokenSupply struct {
	Total int64 `json:"total"`
	Order int64 `json:"order"`
}

// UnmarshalJSON reads a token in the service's format.
func (t *TokenInfo) UnmarshalJSON(b []byte) error {
	var w struct {
		Event   Drop        `json:"event"`
		TokenID flexString  `json:"tokenId"`
		Owner   string      `json:"owner"`
		Layer   string      `json:"layer"`
		Chain   string      `json:"chain"`
		Created timestamp   `json:"created"`
		Supply  TokenSupply `json:"supply"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*t = TokenInfo{
		Event: w.Event, TokenID: string(w.TokenID), Owner: w.Owner, Layer: w.Layer, Chain: w.Chain,
		Created: w.Created.Time, Supply: w.Supply,
	}
	return nil
}

// TokenInfo returns the POAP with the given token id: GET /token/{tokenId}.
// Errors: ErrInvalidInput for an empty id, ErrNotFound, ErrUnauthorized,
// ErrRateLimited, ErrUnavailable; answers of the service come as *APIError.
func (c *Client) TokenInfo(ctx context.Context, tokenID string) (TokenInfo, error) {
	if err := checkRequired(wire.OpTokenInfo, "tokenId", tokenID); err != nil {
		return TokenInfo{}, err
	}
	var t TokenInfo
	r := request{op: wire.OpTokenInfo, method: http.MethodGet, path: "/token/" + pathSegment(tokenID), idempotent: true}
	if err := c.do(ctx, r, &t); err != nil {
		return TokenInfo{}, err
	}
	return t, nil
}
