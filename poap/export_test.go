package poap

import "context"

// CoreError is coreError, for the tests of the refusals no DropIssuer
// method reaches.
var CoreError = coreError

// Probe sends method path through the request core with an access token
// for Options.Audience and decodes nothing. The tests of renewal after a
// 401 run it with the real token manager, poap/auth, which imports poap and
// so only an external test may import.
func (c *Client) Probe(ctx context.Context, method, path string, idempotent bool) error {
	r := request{op: "probe", method: method, path: path, access: keyAndBearer, idempotent: idempotent}
	return c.do(ctx, r, nil)
}
