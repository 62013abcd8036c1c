package poap

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/wire"
)

// The checks of CheckIssuer, as /setup check shows them.
const (
	CheckKey           = "issuing service reachable with the API key"
	CheckUnreachable   = "issuing service did not answer"
	CheckCredentials   = "client credentials accepted (access token)"
	CheckNoCredentials = "client credentials configured"
)

// The fixes of CheckIssuer's failed lines. They name settings, never their
// values.
const (
	fixNoKey           = "set POAP_API_KEY to the issuing service's API key"
	fixKey             = "check POAP_API_KEY: the service refused it (a new key can take up to 24 hours to work)"
	fixUnreachable     = "check POAP_API_URL and the bot's network; if the service is down, try again later"
	fixNoCredentials   = "set POAP_CLIENT_ID and POAP_CLIENT_SECRET: minting and moderator actions need them"
	fixCredentials     = "check POAP_CLIENT_ID, POAP_CLIENT_SECRET and POAP_AUDIENCE: the token service refused them"
	fixTokenBudget     = "the hour's access tokens are spent (4 at most, or the service bans the client); check again in an hour"
	fixTokenUnanswered = "the token service did not answer: check POAP_AUTH_URL, or try again later"
	fixTokenLimited    = "the token service is refusing requests (a rate limit, or a ban for too many tokens): check again in an hour"
	fixNoAudience      = "set POAP_AUDIENCE to the audience of the issuing service's access tokens"
)

var _ core.IssuerCheck = (*Client)(nil)

// CheckIssuer says, one line each for /setup check, whether the issuing
// service answers with the configured API key (GET /health-check, which its
// gateway guards with the key), and whether the client credentials give an
// access token, or that none are configured. The token comes from the
// TokenSource as for any protected call: one still valid, in memory or in
// the store, counts without a request, and a new one is asked for only when
// there is none, within the hourly budget, so a check never spends a token
// that would not have been needed. No line holds a key, a secret or a
// token; the failures are logged.
func (c *Client) CheckIssuer(ctx context.Context) []core.SetupLine {
	return []core.SetupLine{c.checkKey(ctx), c.checkCredentials(ctx)}
}

// checkKey is CheckIssuer's line on the API key.
func (c *Client) checkKey(ctx context.Context) core.SetupLine {
	if c.key.IsZero() {
		return core.SetupLine{Check: CheckKey, Fix: fixNoKey}
	}
	err := c.do(ctx, request{op: wire.OpHealthCheck, method: http.MethodGet, path: "/health-check", idempotent: true}, nil)
	if err == nil {
		return core.SetupLine{Check: CheckKey, OK: true}
	}
	c.log.LogAttrs(ctx, slog.LevelWarn, "poap setup check: issuing service", slog.String("error", err.Error()))
	if errors.Is(err, ErrUnauthorized) {
		return core.SetupLine{Check: CheckKey, Fix: fixKey}
	}
	return core.SetupLine{Check: CheckUnreachable, Fix: fixUnreachable}
}

// checkCredentials is CheckIssuer's line on the client credentials.
func (c *Client) checkCredentials(ctx context.Context) core.SetupLine {
	if c.tokens == nil {
		return core.SetupLine{Check: CheckNoCredentials, Fix: fixNoCredentials}
	}
	if c.audience == "" {
		return core.SetupLine{Check: CheckCredentials, Fix: fixNoAudience}
	}
	_, err := c.tokens.Token(ctx, c.audience)
	if err == nil {
		return core.SetupLine{Check: CheckCredentials, OK: true}
	}
	c.log.LogAttrs(ctx, slog.LevelWarn, "poap setup check: access token", slog.String("error", err.Error()))
	line := core.SetupLine{Check: CheckCredentials, Fix: fixTokenUnanswered}
	switch {
	case errors.Is(err, ErrTokenBudget):
		line.Fix = fixTokenBudget
	case errors.Is(err, ErrUnauthorized):
		line.Fix = fixCredentials
	case errors.Is(err, ErrRateLimited):
		line.Fix = fixTokenLimited
	}
	return line
}
