package poap

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/internal/transport"
)

// DefaultTimeout bounds one request when Options.Timeout is zero; the
// official SDK uses the same 10 seconds.
const DefaultTimeout = 10 * time.Second

// DefaultUserAgent is sent when Options.UserAgent is empty.
const DefaultUserAgent = "poapbot (+https://github.com/poapbot/poapbot)"

// Statuses the Observer receives for a request that got no HTTP status code;
// otherwise it receives the code as text ("200", "404").
const (
	// StatusTimeout: the request hit its deadline.
	StatusTimeout = transport.StatusTimeout
	// StatusError: the request failed before a full response (connection
	// refused, reset, DNS, a body over the size limit...).
	StatusError = transport.StatusError
)

// Options configures a Client. Only BaseURL is required.
type Options struct {
	// BaseURL is the service's address, https://api.poap.tech in
	// production or a sandbox's URL. It may carry a path prefix.
	BaseURL string
	// APIKey is sent as X-API-Key on every request and never logged.
	APIKey core.Secret
	// HTTPClient sends the requests; nil means a client that follows
	// redirects only within the same scheme and host, so the key never
	// leaves it. A given client's own redirect policy applies as is.
	HTTPClient *http.Client
	// Timeout bounds each HTTP attempt, so a retry gets a fresh one; the
	// caller's context bounds the whole call. Zero or less means
	// DefaultTimeout.
	Timeout time.Duration
	// Observer is told about every request; nil means none.
	Observer Observer
	// Logger receives one debug line per request; nil discards.
	Logger *slog.Logger
	// UserAgent identifies the bot; empty means DefaultUserAgent.
	UserAgent string
	// Tokens supplies access tokens for protected operations (in
	// production an *auth.Tokens of poap/auth); nil makes them fail with
	// ErrUnauthorized.
	Tokens TokenSource
	// Audience is the token audience of the issuing service's protected
	// operations (https://api.poap.tech in production).
	Audience string
	// MomentsURL is the Moments service's address and MomentsAudience the
	// audience of its tokens (both https://moments.poap.tech in
	// production); CompassURL is the Moments query service's GraphQL
	// address.
	MomentsURL      string
	MomentsAudience string
	CompassURL      string
	// Retry says how idempotent requests are retried; its zero value
	// takes the defaults named on RetryPolicy.
	Retry RetryPolicy
	// RateLimit bounds the requests the client sends, across all its
	// goroutines, in requests a second: zero means DefaultRateLimit, a
	// negative value no limit. Every attempt counts, retries included.
	RateLimit float64
	// RateBurst is how many requests may go at once after a quiet spell;
	// zero or less means DefaultRateBurst.
	RateBurst int
	// Circuit says when calls to a host that keeps failing are held,
	// answered at once with ErrCircuitOpen; its zero value takes the
	// defaults named on CircuitPolicy.
	Circuit CircuitPolicy
}

// DefaultRateLimit and DefaultRateBurst are the client's rate limit when
// Options leave it zero. The service publishes no limit; community clients
// pace themselves at about 10 requests a second at most (100 ms between
// claim-qr reads, 5 parallel Compass requests), so 5 a second with bursts of
// 10 stays well below anything seen and is still far more than a bot's
// users cause.
const (
	DefaultRateLimit = 5
	DefaultRateBurst = 10
)

// TokenSource supplies access tokens per audience: *auth.Tokens of
// poap/auth, which gets them from the token service with the client
// credentials, in production. The client attaches them to its requests and
// returns a TokenSource's errors as they are, so a source reports its
// failures with the client's sentinels: ErrTokenBudget when it sent no
// request to stay within the token service's budget, ErrUnauthorized when
// the credentials were refused, ErrUnavailable or ErrRateLimited when the
// token service failed.
type TokenSource interface {
	// Token returns a valid access token for audience.
	Token(ctx context.Context, audience string) (core.Secret, error)
	// Renew returns a token other than refused, which the service just
	// refused (401, or the gateway's 403 for an expired or revoked
	// token), unless another caller renewed it already.
	Renew(ctx context.Context, audience string, refused core.Secret) (core.Secret, error)
}

// Observer is told about every HTTP request the client makes, for metrics.
// operation is a stable name (wire.OpScan, wire.OpScanEvent...), status the
// HTTP status code as text or StatusTimeout or StatusError, elapsed the time
// from sending to the end of the response or the failure.
type Observer interface {
	ObserveRequest(operation, status string, elapsed time.Duration)
}

// ObserverFunc adapts a function to the Observer interface.
type ObserverFunc func(operation, status string, elapsed time.Duration)

// ObserveRequest calls f.
func (f ObserverFunc) ObserveRequest(operation, status string, elapsed time.Duration) {
	f(operation, status, elapsed)
}

// Client talks to the POAP issuing service. It is safe for concurrent use.
type Client struct {
	base      *url.URL
	key       core.Secret
	http      *http.Client
	timeout   time.Duration
	observer  Observer
	log       *slog.Logger
	userAgent string
	tokens    TokenSource
	audience  string
	moments   *url.URL
	momentsAu string
	compass   *url.URL
	retry     RetryPolicy
	limiter   *limiter  // nil when unlimited
	circuits  *circuits // nil when off
	now       func() time.Time
	sleep     func(ctx context.Context, d time.Duration) error
}

var _ core.Scanner = (*Client)(nil)

// NewClient returns a Client for the service at opts.BaseURL, filling the
// defaults described on Options. It fails when BaseURL is missing or is not
// an absolute http or https URL.
func NewClient(opts Options) (*Client, error) {
	base, err := transport.ParseBaseURL(opts.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("poap: new client: base url: %w", err)
	}
	c := &Client{
		base:      base,
		key:       opts.APIKey,
		http:      opts.HTTPClient,
		timeout:   opts.Timeout,
		observer:  opts.Observer,
		log:       opts.Logger,
		userAgent: opts.UserAgent,
		tokens:    opts.Tokens,
		audience:  opts.Audience,
		momentsAu: opts.MomentsAudience,
		retry:     opts.Retry.withDefaults(),
		limiter:   newLimiter(opts.RateLimit, opts.RateBurst),
		now:       time.Now,
		sleep:     sleep,
	}
	if opts.MomentsURL != "" {
		if c.moments, err = transport.ParseBaseURL(opts.MomentsURL); err != nil {
			return nil, fmt.Errorf("poap: new client: moments url: %w", err)
		}
	}
	if opts.CompassURL != "" {
		if c.compass, err = transport.ParseBaseURL(opts.CompassURL); err != nil {
			return nil, fmt.Errorf("poap: new client: compass url: %w", err)
		}
	}
	if c.http == nil {
		c.http = &http.Client{CheckRedirect: transport.SameHostRedirect}
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.observer == nil {
		c.observer = ObserverFunc(func(string, string, time.Duration) {})
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.circuits = newCircuits(opts.Circuit, c.log)
	if c.userAgent == "" {
		c.userAgent = DefaultUserAgent
	}
	return c, nil
}

// errNoTokens is returned by protected operations of a client built
// without a TokenSource.
var errNoTokens = fmt.Errorf("%w: no client credentials configured (POAP_CLIENT_ID, POAP_CLIENT_SECRET)", ErrUnauthorized)

// token returns an access token for audience from the TokenSource.
func (c *Client) token(ctx context.Context, audience string) (core.Secret, error) {
	if c.tokens == nil {
		return "", errNoTokens
	}
	return c.tokens.Token(ctx, audience)
}

// bearer returns the access token r carries, or "" for a request without
// one.
func (c *Client) bearer(ctx context.Context, r request) (core.Secret, error) {
	if r.access != keyAndBearer && r.access != bearerOnly {
		return "", nil
	}
	return c.token(ctx, c.tokenAudience(r))
}

// tokenAudience is the audience of r's access token: its own, or else its
// service's.
func (c *Client) tokenAudience(r request) string {
	if r.access == bearerOnly {
		return cmp.Or(r.audience, c.momentsAu)
	}
	return cmp.Or(r.audience, c.audience)
}

// renew asks the TokenSource for a token other than refused, which the
// service just refused.
func (c *Client) renew(ctx context.Context, r request, refused core.Secret) (core.Secret, error) {
	audience := c.tokenAudience(r)
	c.log.LogAttrs(ctx, slog.LevelInfo, "poap access token refused, renewing",
		slog.String("operation", r.op), slog.String("audience", audience))
	token, err := c.tokens.Renew(ctx, audience, refused)
	if err != nil {
		return "", fmt.Errorf("poap: %s: renew access token: %w", r.op, err)
	}
	return token, nil
}
