package poap

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/internal/transport"
)

// access says which credentials a request carries.
type access int

const (
	// keyOnly: X-API-Key alone (the service's open endpoints).
	keyOnly access = iota
	// keyAndBearer: X-API-Key and an access token for the issuing
	// service's audience (the protected endpoints).
	keyAndBearer
	// bearerOnly: an access token for the Moments audience, no key.
	bearerOnly
	// anonymous: nothing (signed upload addresses, media status reads).
	anonymous
)

// request describes one call to the service; every operation builds one and
// hands it to do.
type request struct {
	op     string     // stable operation name for errors, logs and the Observer
	method string     // HTTP method
	path   string     // escaped path below the base URL, starting with "/"
	query  url.Values // optional query parameters
	// base is the service the path is below; nil means the issuing
	// service (Options.BaseURL).
	base *url.URL
	// rawURL, when set, is the whole address (a signed upload URL); base
	// and path are ignored.
	rawURL string
	access access
	// audience is the token audience of keyAndBearer and bearerOnly;
	// empty means Options.Audience or Options.MomentsAudience.
	audience string
	// body returns a fresh reader for each attempt; nil sends no body.
	body func() (io.Reader, error)
	// accept is the Accept header; empty means application/json.
	accept string
	// contentType and contentLength describe body; a length of 0 with a
	// body means unknown.
	contentType   string
	contentLength int64
	// idempotent requests may be retried after a failure that may or may
	// not have reached the service; others never are.
	idempotent bool
	// timeout bounds one attempt; zero means Options.Timeout. Uploads set
	// a longer one that grows with their size.
	timeout time.Duration
	// emptyOK accepts a 2xx answer without a body (writes that answer 204
	// or an empty 200).
	emptyOK bool
	// stream, when set, reads a 2xx body as it arrives, instead of do
	// decoding it into out once read whole under transport.MaxBodySize; it
	// is for the answers that grow with the data, and bounds what it
	// keeps itself. It runs again on each attempt, so it starts afresh.
	stream func(io.Reader) error
	// secrets are the secrets the request carries in its body or query
	// (edit codes): blanked out of the service's answer to it, in case
	// the service quotes them back.
	secrets []string
}

// jsonBody returns a request body that encodes v as JSON.
func jsonBody(v any) (func() (io.Reader, error), error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return func() (io.Reader, error) { return bytes.NewReader(b), nil }, nil
}

// outcome is what one attempt of a request came to.
type outcome struct {
	res transport.Response
	// err is nil for a 2xx answer; else an *APIError, or the failure that
	// left no answer.
	err error
	// transient says the failure may pass on another attempt: a network
	// error or timeout of this attempt, or a status such as 503.
	transient bool
	// unsent says the attempt failed before anything was sent.
	unsent bool
}

// do sends r with the client's headers and credentials and decodes a 2xx
// JSON body into out (unless out is nil, or r streams it). Each attempt
// waits for the rate limiter, gets its own timeout within ctx and is
// reported to the Observer.
// An idempotent request is retried after a transient failure (see
// RetryPolicy); any request with an access token that the service refuses
// (401, or the gateway's 403 for an expired or revoked token: see
// refusesToken) is sent once more with a renewed token. A non-2xx answer
// becomes an *APIError; a failure without an answer, a body too large or
// one that does not decode wraps ErrUnavailable; a refused token request
// returns the TokenSource's error (ErrTokenBudget, ErrUnauthorized...). A
// failure before any attempt reached the service also wraps ErrNotSent.
func (c *Client) do(ctx context.Context, r request, out any) error {
	token, err := c.bearer(ctx, r)
	if err != nil {
		return fmt.Errorf("poap: %s: %w: %w", r.op, err, ErrNotSent)
	}
	// reached says an attempt got to the service, which may have acted on
	// it; an attempt refused for its token did not.
	renewed, reached := false, false
	for attempt := 1; ; attempt++ {
		o := c.attempt(ctx, r, token)
		if o.err == nil && r.stream != nil {
			return nil
		}
		if o.err == nil {
			return decode(r, o.res.Body, out)
		}
		if o.unsent && !reached {
			return fmt.Errorf("%w: %w", o.err, ErrNotSent)
		}
		if !renewed && c.refusedBearer(r, o) {
			// The gateway refused before the service acted, so even a
			// mint may be sent again, once.
			renewed = true
			if token, err = c.renew(ctx, r, token); err != nil {
				if !reached {
					err = fmt.Errorf("%w: %w", err, ErrNotSent)
				}
				return err
			}
			continue
		}
		reached = true
		wait, retry := c.retryWait(ctx, r, attempt, o)
		if !retry {
			return o.err
		}
		if err := c.pause(ctx, r, attempt, wait, o.err); err != nil {
			return err
		}
	}
}

// attempt sends r once: it waits for the rate limiter, then sends within the
// per-request timeout and reports the result to the Observer.
func (c *Client) attempt(ctx context.Context, r request, token core.Secret) outcome {
	circuit := c.circuits.of(c.host(r))
	ok, probe := circuit.allow(c.now())
	if !ok {
		return outcome{err: fmt.Errorf("poap: %s: %w", r.op, ErrCircuitOpen), unsent: true}
	}
	// Deferred, so that a panic in send cannot leave a probe out forever.
	o := outcome{err: errSendPanicked, unsent: true}
	defer func() { circuit.record(o, probe, c.now()) }()
	o = c.send(ctx, r, token)
	return o
}

// errSendPanicked is the outcome a panic in send leaves for the circuit.
var errSendPanicked = errors.New("poap: the request panicked")

// send is attempt without the circuit.
func (c *Client) send(ctx context.Context, r request, token core.Secret) outcome {
	if err := c.limit(ctx); err != nil {
		_, err = transport.Failure(ctx, r.op, err, ErrUnavailable)
		return outcome{err: err, unsent: true}
	}
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(r.timeout, c.timeout))
	defer cancel()
	req, err := c.newRequest(ctx, r, token)
	if err != nil {
		return outcome{err: fmt.Errorf("poap: %s: %w", r.op, err), unsent: true}
	}
	start := time.Now()
	res, err := transport.Stream(c.http, req, r.stream)
	var bodyErr *transport.BodyError
	if errors.As(err, &bodyErr) {
		c.observe(ctx, r.op, strconv.Itoa(res.Status), time.Since(start))
		return outcome{err: fmt.Errorf("poap: %s: %w: malformed response: %w", r.op, ErrUnavailable, bodyErr.Err)}
	}
	if err != nil {
		// Before the message is made: a signed upload address carries its
		// signature in the query, and net/http quotes the whole URL.
		status, err := transport.Failure(ctx, r.op, redactURL(err), ErrUnavailable)
		c.observe(ctx, r.op, status, time.Since(start))
		transient := !errors.Is(err, transport.ErrBodyTooLarge) && !errors.Is(err, context.Canceled)
		return outcome{err: err, transient: transient}
	}
	c.observe(ctx, r.op, strconv.Itoa(res.Status), time.Since(start))
	if res.Status < 200 || res.Status > 299 {
		return outcome{res: res, err: c.apiError(r.op, res, r.secrets), transient: retryable(res.Status)}
	}
	return outcome{res: res}
}

// refusedBearer reports whether o is the service refusing r's access token
// (see refusesToken).
func (c *Client) refusedBearer(r request, o outcome) bool {
	if c.tokens == nil || (r.access != keyAndBearer && r.access != bearerOnly) {
		return false
	}
	var apiErr *APIError
	return errors.As(o.err, &apiErr) && apiErr.refusesToken()
}

// refusesToken reports whether e is the service refusing the access token
// itself, which another token may cure: a 401, or a 403 the gateway wrote
// (no backend "error" in the body) that is its authorizer's deny ("User is
// not authorized to access this resource with an explicit deny", how the
// issuing service's gateway answers an expired or revoked token) or that
// says the token expired, was revoked or is invalid. Any other 403 is not:
// a refused API key ({"message":"Forbidden"}) or an operation the backend
// forbids ({"statusCode":403,"error":"Forbidden",...}) would refuse the
// next token too, and renewing would only spend the hourly budget.
func (e *APIError) refusesToken() bool {
	switch {
	case e.Status == http.StatusUnauthorized:
		return true
	case e.Status != http.StatusForbidden || e.Code != "":
		return false
	}
	msg := strings.ToLower(e.Message)
	if strings.Contains(msg, "not authorized to access this resource") {
		return true
	}
	return strings.Contains(msg, "token") &&
		(strings.Contains(msg, "expired") || strings.Contains(msg, "revoked") || strings.Contains(msg, "invalid"))
}

// newRequest builds the HTTP request for r with a fresh body, the headers
// every call carries and the credentials its access asks for: the key, and
// token unless it is empty.
func (c *Client) newRequest(ctx context.Context, r request, token core.Secret) (*http.Request, error) {
	var body io.Reader
	if r.body != nil {
		var err error
		if body, err = r.body(); err != nil {
			return nil, err
		}
	}
	req, err := http.NewRequestWithContext(ctx, r.method, c.target(r), body)
	if err != nil {
		return nil, err
	}
	if r.contentLength > 0 {
		req.ContentLength = r.contentLength
	}
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	req.Header.Set("Accept", cmp.Or(r.accept, "application/json"))
	req.Header.Set("User-Agent", c.userAgent)
	if (r.access == keyOnly || r.access == keyAndBearer) && !c.key.IsZero() {
		req.Header.Set("X-API-Key", c.key.Reveal())
	}
	if !token.IsZero() {
		req.Header.Set("Authorization", "Bearer "+token.Reveal())
	}
	return req, nil
}

// host is the host r is sent to, which its circuit is for.
func (c *Client) host(r request) string {
	if u, err := url.Parse(c.target(r)); err == nil {
		return u.Host
	}
	return ""
}

// target is the URL r is sent to.
func (c *Client) target(r request) string {
	if r.rawURL != "" {
		return r.rawURL
	}
	base := r.base
	if base == nil {
		base = c.base
	}
	target := base.String() + r.path
	if len(r.query) > 0 {
		target += "?" + r.query.Encode()
	}
	return target
}

// decode reads a JSON body into r's out. An empty body leaves out as it is
// when r allows it; otherwise it, or a body that does not decode, means the
// service is failing, so the error wraps ErrUnavailable.
func decode(r request, body []byte, out any) error {
	if out == nil || r.emptyOK && len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	op := r.op
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("poap: %s: %w: malformed response: %w", op, ErrUnavailable, err)
	}
	return nil
}

// observe reports one request to the Observer and the debug log.
func (c *Client) observe(ctx context.Context, op, status string, elapsed time.Duration) {
	transport.Observe(ctx, c.observer, c.log, op, status, elapsed)
}

// pathSegment escapes s as one path segment. It escapes more than
// url.PathEscape, which leaves "+" and "@" as they are: an e-mail such as
// a+b@example.org must not reach a proxy or server that reads "+" as a space.
func pathSegment(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}
