package auth

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/internal/transport"
	"github.com/poapbot/poapbot/poap/wire"
)

// oauthErrorJSON is the token service's error body, or a gateway's
// {"message"}.
type oauthErrorJSON struct {
	wire.OAuthError
	Message string `json:"message"`
}

// refusals are the OAuth error codes that mean the credentials, or their
// grant for the audience, were refused, whatever the status.
var refusals = map[string]bool{"invalid_client": true, "unauthorized_client": true, "access_denied": true}

// request asks the token service for a token for audience, once: every
// request counts against the budget, so none is retried. sent is when it
// was recorded; the token's life is counted from then, to err on the early
// side.
func (t *Tokens) request(ctx context.Context, audience string, sent time.Time) (core.Secret, time.Time, error) {
	res, err := t.post(ctx, audience)
	if err != nil {
		return "", time.Time{}, err
	}
	if res.Status < 200 || res.Status > 299 {
		return "", time.Time{}, t.serviceError(ctx, audience, res)
	}
	var body wire.TokenResponse
	if err := json.Unmarshal(res.Body, &body); err != nil {
		return "", time.Time{}, fmt.Errorf("poap: %s: %w: malformed response: %w", wire.OpAccessToken, poap.ErrUnavailable, err)
	}
	if body.AccessToken == "" || body.TokenType != "" && !strings.EqualFold(body.TokenType, wire.TokenTypeBearer) {
		return "", time.Time{}, fmt.Errorf("poap: %s: %w: no bearer token in the response", wire.OpAccessToken, poap.ErrUnavailable)
	}
	lifetime := DefaultLifetime
	if body.ExpiresIn > 0 {
		lifetime = time.Duration(body.ExpiresIn * float64(time.Second))
	}
	return core.Secret(body.AccessToken), sent.Add(lifetime), nil
}

// post sends the client-credentials request within the timeout and reports
// it to the Observer.
func (t *Tokens) post(ctx context.Context, audience string) (transport.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	b, err := json.Marshal(wire.TokenRequest{
		ClientID:     t.client.ID,
		ClientSecret: t.secret.Reveal(),
		Audience:     audience,
		GrantType:    wire.GrantClientCredentials,
	})
	if err != nil {
		return transport.Response{}, fmt.Errorf("poap: %s: %w", wire.OpAccessToken, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(b))
	if err != nil {
		return transport.Response{}, fmt.Errorf("poap: %s: %w", wire.OpAccessToken, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", poap.DefaultUserAgent)
	start := time.Now()
	res, err := transport.Send(t.http, req)
	if err != nil {
		status, err := transport.Failure(ctx, wire.OpAccessToken, err, poap.ErrUnavailable)
		transport.Observe(ctx, t.observer, t.log, wire.OpAccessToken, status, time.Since(start))
		return transport.Response{}, err
	}
	transport.Observe(ctx, t.observer, t.log, wire.OpAccessToken, strconv.Itoa(res.Status), time.Since(start))
	return res, nil
}

// serviceError turns the token service's non-2xx answer into a *poap.APIError
// whose Code is the OAuth error and Message its description, with the
// client secret blanked out. A refusal of the credentials also matches
// poap.ErrUnauthorized; a 429, which may be the ban, is logged as an error.
func (t *Tokens) serviceError(ctx context.Context, audience string, res transport.Response) error {
	e := &poap.APIError{
		Operation:  wire.OpAccessToken,
		Status:     res.Status,
		RetryAfter: transport.RetryAfter(res.Header.Get("Retry-After"), time.Now()),
	}
	var body oauthErrorJSON
	if err := json.Unmarshal(res.Body, &body); err == nil {
		e.Code, e.Message = body.Error, cmp.Or(body.Description, body.Message)
	} else {
		e.Message = transport.BodyText(res.Body)
	}
	secret := t.secret.Reveal()
	e.Code = transport.Truncate(strings.ReplaceAll(e.Code, secret, "[redacted]"), transport.MaxMessage)
	e.Message = transport.Truncate(strings.ReplaceAll(e.Message, secret, "[redacted]"), transport.MaxMessage)
	if res.Status == http.StatusTooManyRequests {
		t.log.LogAttrs(ctx, slog.LevelError, "poap token service refused with 429; the client may be banned",
			slog.String("audience", audience), slog.String("error", e.Error()))
	}
	if refusals[e.Code] && res.Status != http.StatusUnauthorized && res.Status != http.StatusForbidden {
		return fmt.Errorf("%w (%w)", e, poap.ErrUnauthorized)
	}
	return e
}
