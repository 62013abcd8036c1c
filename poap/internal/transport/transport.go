// Package transport is the HTTP plumbing the poap client and its token
// manager (poap/auth) share: a round trip that reads a bounded body,
// redirects kept on one host, checked base addresses, Retry-After, and how
// a request that got no answer is classified and reported. It knows no
// operation of any POAP service.
package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// MaxBodySize bounds what Send reads of a response body, so a broken or
// hostile server cannot exhaust memory. The answers that grow with the data
// (a scan of a big collector, a page of holders) are read with Stream
// instead, which bounds each element rather than the whole.
const MaxBodySize = 8 << 20

// ErrBodyTooLarge reports a response body over MaxBodySize.
var ErrBodyTooLarge = fmt.Errorf("response body larger than %d bytes", MaxBodySize)

// Response is what is kept of an HTTP response.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Send does the round trip with hc and reads at most MaxBodySize bytes of
// the body. Errors: hc's, a failed read, or ErrBodyTooLarge.
func Send(hc *http.Client, req *http.Request) (Response, error) {
	return Stream(hc, req, nil)
}

// Stream does the round trip with hc. A 2xx body is handed to read as it
// arrives, with no bound on its size (read bounds what it keeps), and the
// Response has no Body; any other answer, or every answer when read is nil,
// is read as Send reads it. Errors: hc's; a failed read of the body, from
// read or not, as Send returns it; ErrBodyTooLarge; and any other error of
// read as a *BodyError, the body's fault rather than the connection's.
func Stream(hc *http.Client, req *http.Request, read func(io.Reader) error) (Response, error) {
	resp, err := hc.Do(req)
	if err != nil {
		return Response{}, err
	}
	defer resp.Body.Close()
	res := Response{Status: resp.StatusCode, Header: resp.Header}
	if read != nil && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		body := &recordingReader{r: resp.Body}
		if err := read(body); err != nil {
			if body.err != nil {
				return Response{}, fmt.Errorf("read response: %w", body.err)
			}
			return res, &BodyError{Err: err}
		}
		return res, nil
	}
	if res.Body, err = io.ReadAll(io.LimitReader(resp.Body, MaxBodySize+1)); err != nil {
		return Response{}, fmt.Errorf("read response: %w", err)
	}
	if len(res.Body) > MaxBodySize {
		return Response{}, ErrBodyTooLarge
	}
	return res, nil
}

// BodyError is a 2xx body that Stream's reader refused: it does not decode,
// or breaks a bound of the reader. Retrying will not help.
type BodyError struct{ Err error }

func (e *BodyError) Error() string { return e.Err.Error() }

func (e *BodyError) Unwrap() error { return e.Err }

// recordingReader remembers the first failure of the connection, so that
// Stream tells it apart from the reader's own errors.
type recordingReader struct {
	r   io.Reader
	err error
}

func (r *recordingReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF && r.err == nil {
		r.err = err
	}
	return n, err
}

// Statuses an Observer receives for a request that got no HTTP status code.
const (
	// StatusTimeout: the request hit its deadline.
	StatusTimeout = "timeout"
	// StatusError: the request failed before a full response.
	StatusError = "error"
)

// Failure classifies err, a failure of op that left no usable response,
// and returns the Observer status with the error to return. A timeout or
// network failure wraps unavailable (poap.ErrUnavailable) and keeps
// context.DeadlineExceeded reachable; a cancellation by the caller wraps
// only context.Canceled, since the service is not to blame.
func Failure(ctx context.Context, op string, err, unavailable error) (string, error) {
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		err = fmt.Errorf("%w: %w", ctxErr, err)
	}
	if errors.Is(err, context.Canceled) {
		return StatusError, fmt.Errorf("poap: %s: %w", op, err)
	}
	status := StatusError
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout() {
		status = StatusTimeout
	}
	return status, fmt.Errorf("poap: %s: %w: %w", op, unavailable, err)
}

// Observer is told about every request (poap.Observer).
type Observer interface {
	ObserveRequest(operation, status string, elapsed time.Duration)
}

// Observe reports one request to observer and log. The log line names
// neither the credentials nor the address, which may be an e-mail.
func Observe(ctx context.Context, observer Observer, log *slog.Logger, op, status string, elapsed time.Duration) {
	observer.ObserveRequest(op, status, elapsed)
	log.LogAttrs(ctx, slog.LevelDebug, "poap request",
		slog.String("operation", op),
		slog.String("status", status),
		slog.Duration("elapsed", elapsed))
}

// ParseBaseURL checks a service's base URL and drops its trailing slash.
// Its errors do not quote the URL, which might carry credentials.
func ParseBaseURL(raw string) (*url.URL, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, errors.New("empty")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("not an absolute http or https url")
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("must not carry credentials, a query or a fragment")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// SameHostRedirect is an http.Client's CheckRedirect: it follows at most 10
// redirects, and none to another host or scheme, since the transport would
// forward X-API-Key (or a request body holding a secret) there: Go strips
// only the standard credential headers on a cross-host redirect.
func SameHostRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if req.URL.Host != via[0].URL.Host || req.URL.Scheme != via[0].URL.Scheme {
		return http.ErrUseLastResponse
	}
	return nil
}
