package poap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
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
	StatusTimeout = "timeout"
	// StatusError: the request failed before a full response (connection
	// refused, reset, DNS, a body over the size limit...).
	StatusError = "error"
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
	// Timeout bounds each request; zero or less means DefaultTimeout.
	Timeout time.Duration
	// Observer is told about every request; nil means none.
	Observer Observer
	// Logger receives one debug line per request; nil discards.
	Logger *slog.Logger
	// UserAgent identifies the bot; empty means DefaultUserAgent.
	UserAgent string
	// Tokens supplies access tokens for protected operations; nil makes
	// them fail with ErrUnauthorized.
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
}

// TokenSource supplies access tokens per audience.
type TokenSource interface {
	// Token returns a valid access token for audience.
	Token(ctx context.Context, audience string) (core.Secret, error)
	// Renew returns a token other than refused, which the service just
	// answered 401 to, unless another caller renewed it already.
	Renew(ctx context.Context, audience string, refused core.Secret) (core.Secret, error)
}

// Observer is told about every HTTP request the client makes, for metrics.
// operation is a stable name (OpScan, OpScanEvent...), status the HTTP status
// code as text or StatusTimeout or StatusError, elapsed the time from sending
// to the end of the response or the failure.
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
}

var _ core.Issuer = (*Client)(nil)

// NewClient returns a Client for the service at opts.BaseURL, filling the
// defaults described on Options. It fails when BaseURL is missing or is not
// an absolute http or https URL.
func NewClient(opts Options) (*Client, error) {
	base, err := parseBaseURL(opts.BaseURL)
	if err != nil {
		return nil, err
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
	}
	if opts.MomentsURL != "" {
		if c.moments, err = parseBaseURL(opts.MomentsURL); err != nil {
			return nil, fmt.Errorf("moments url: %w", err)
		}
	}
	if opts.CompassURL != "" {
		if c.compass, err = parseBaseURL(opts.CompassURL); err != nil {
			return nil, fmt.Errorf("compass url: %w", err)
		}
	}
	if c.http == nil {
		c.http = &http.Client{CheckRedirect: sameHostRedirect}
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

// parseBaseURL checks the base URL and drops its trailing slash. Its errors
// do not quote the URL, which might carry credentials.
func parseBaseURL(raw string) (*url.URL, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, errors.New("poap: new client: base url is empty")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("poap: new client: base url is not an absolute http or https url")
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("poap: new client: base url must not carry credentials, a query or a fragment")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// sameHostRedirect follows at most 10 redirects, and none to another host or
// scheme: the transport would forward X-API-Key there, since Go strips only
// the standard credential headers on a cross-host redirect.
func sameHostRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if req.URL.Host != via[0].URL.Host || req.URL.Scheme != via[0].URL.Scheme {
		return http.ErrUseLastResponse
	}
	return nil
}
