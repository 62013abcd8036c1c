package poap

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/poapbot/poapbot/poap/wire"
)

// DefaultMediaPollInterval is the pause between two media status reads that
// the Moments documentation asks for.
const DefaultMediaPollInterval = 2 * time.Second

// The default wait for media processing: the official SDK's 60 seconds,
// plus twice the announced processing rate of about 10 seconds per 100 MB,
// so that a slow day does not fail a large upload.
const (
	mediaWaitBase    = 60 * time.Second
	mediaWaitPerUnit = 20 * time.Second
	mediaWaitUnit    = 100 << 20
)

// MediaWaitTimeout is the default deadline of WaitForMedia for a file of
// size bytes: 60 s plus 20 s per 100 MB.
func MediaWaitTimeout(size int64) time.Duration {
	extra := float64(max(size, 0)) / mediaWaitUnit * float64(mediaWaitPerUnit)
	return mediaWaitBase + time.Duration(extra)
}

// WaitOptions tunes WaitForMedia; the zero value waits as the service
// documentation asks.
type WaitOptions struct {
	// Size is the file's size in bytes; it lengthens the default Timeout.
	Size int64
	// Interval is the pause between two status reads; zero or less means
	// DefaultMediaPollInterval.
	Interval time.Duration
	// Timeout bounds the whole wait; zero or less means
	// MediaWaitTimeout(Size).
	Timeout time.Duration
}

// Media reads the processing state of the uploaded file key: GET
// /media/{key} on Moments, without credentials. A 404 means the service has
// not registered the upload yet and gives MediaInProcess, as in the official
// SDK. Errors: ErrRateLimited, ErrUnavailable for failures and timeouts, a
// plain error for an empty key or when no MomentsURL is configured; other
// answers come as *APIError.
func (c *Client) Media(ctx context.Context, key string) (Media, error) {
	if strings.TrimSpace(key) == "" {
		return Media{}, fmt.Errorf("poap: %s: empty media key", wire.OpMediaStatus)
	}
	base, err := c.momentsBase(wire.OpMediaStatus)
	if err != nil {
		return Media{}, err
	}
	r := request{
		op: wire.OpMediaStatus, method: http.MethodGet, base: base, path: "/media/" + pathSegment(key),
		access: anonymous, idempotent: true,
	}
	var w mediaJSON
	err = c.do(ctx, r, &w)
	if errors.Is(err, ErrNotFound) {
		return Media{Key: key, Status: MediaInProcess}, nil
	}
	if err != nil {
		return Media{}, err
	}
	m := w.media()
	if m.Key == "" {
		m.Key = key
	}
	return m, nil
}

// WaitForMedia reads the state of the uploaded file key (see Media) until it
// is processed, first at once and then every opts.Interval, for at most
// opts.Timeout. It returns the processed media. Errors: ErrMediaInvalid when
// the service reports the file INVALID (its content does not match its
// type) or FAILED, with the media; ErrUnavailable with ErrMediaTimeout
// when it is still processing at the deadline; the caller's context error when ctx ends; and
// those of Media.
func (c *Client) WaitForMedia(ctx context.Context, key string, opts WaitOptions) (Media, error) {
	interval := opts.Interval
	if interval <= 0 {
		interval = DefaultMediaPollInterval
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = MediaWaitTimeout(opts.Size)
	}
	waitCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		m, err := c.Media(waitCtx, key)
		if done, err := mediaOutcome(m, err); done {
			return c.waitResult(ctx, waitCtx, m, err, timeout)
		}
		select {
		case <-waitCtx.Done():
			return c.waitResult(ctx, waitCtx, Media{}, waitCtx.Err(), timeout)
		case <-time.After(interval):
		}
	}
}

// mediaOutcome says whether one status read ends the wait, and with which
// error: a processed file ends it with none, a refused one with
// ErrMediaInvalid, a failed read with its error.
func mediaOutcome(m Media, err error) (bool, error) {
	switch {
	case err != nil:
		return true, err
	case m.Status == MediaProcessed:
		return true, nil
	case m.Status == MediaInvalid || m.Status == MediaFailed:
		return true, fmt.Errorf("poap: %s: %w: media %s is %s", wire.OpMediaStatus, ErrMediaInvalid, m.Key, m.Status)
	}
	return false, nil
}

// waitResult turns the end of a wait into WaitForMedia's answer: when the
// wait's own deadline, not the caller, ended it, the error says the media is
// still processing.
func (c *Client) waitResult(ctx, waitCtx context.Context, m Media, err error, timeout time.Duration) (Media, error) {
	if err == nil {
		return m, nil
	}
	if ctx.Err() != nil {
		return Media{}, fmt.Errorf("poap: %s: %w", wire.OpMediaStatus, ctx.Err())
	}
	if waitCtx.Err() != nil {
		return Media{}, fmt.Errorf("poap: %s: %w: %w after %s", wire.OpMediaStatus, ErrUnavailable, ErrMediaTimeout, timeout)
	}
	return m, err
}
