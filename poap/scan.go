package poap

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/poapbot/poapbot/poap/wire"
)

// Scan lists the POAPs held by address, a 0x address, an ENS name or an
// e-mail: GET /actions/scan/{address}
// (https://documentation.poap.tech/reference/getactionsscan). An address
// holding none gives an empty list and no error. The answer is decoded as it
// arrives, with no bound on its size but at most MaxScanTokens POAPs of at
// most 64 KiB each. Errors: ErrInvalidAddress when the service refuses the
// address (or it is empty), ErrUnauthorized for a refused key,
// ErrRateLimited, ErrUnavailable for failures, timeouts and answers over
// those bounds; answers from the service come as *APIError.
func (c *Client) Scan(ctx context.Context, address string) ([]Token, error) {
	if strings.TrimSpace(address) == "" {
		return nil, fmt.Errorf("poap: %s: %w: empty address", wire.OpScan, ErrInvalidAddress)
	}
	var tokens []Token
	r := request{
		op: wire.OpScan, method: http.MethodGet, path: "/actions/scan/" + pathSegment(address), idempotent: true,
		stream: func(body io.Reader) error {
			tokens = nil
			return decodeArray(body, MaxScanTokens, func(t Token) { tokens = append(tokens, t) })
		},
	}
	if err := c.do(ctx, r, nil); err != nil {
		return nil, err
	}
	return tokens, nil
}

// ScanEvent returns the POAP of drop eventID held by address: GET
// /actions/scan/{address}/{eventId}, faster than Scan for token gating. The
// token carries its event, id and owner, but no chain or dates. Errors:
// ErrNotFound when the address does not hold one, and those of Scan.
func (c *Client) ScanEvent(ctx context.Context, address string, eventID int64) (Token, error) {
	if strings.TrimSpace(address) == "" {
		return Token{}, fmt.Errorf("poap: %s: %w: empty address", wire.OpScanEvent, ErrInvalidAddress)
	}
	var token Token
	r := request{
		op:         wire.OpScanEvent,
		method:     http.MethodGet,
		path:       "/actions/scan/" + pathSegment(address) + "/" + strconv.FormatInt(eventID, 10),
		idempotent: true,
	}
	if err := c.do(ctx, r, &token); err != nil {
		return Token{}, err
	}
	return token, nil
}
