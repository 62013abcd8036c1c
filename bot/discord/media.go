package discord

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
)

// cdnHosts are the hosts of Discord's CDN, where attachment URLs point
// (URL and ProxyURL of a resolved attachment).
var cdnHosts = []string{"cdn.discordapp.com", "media.discordapp.net"}

// mediaHeaderTimeout bounds the wait for an attachment's response
// headers. The body is not bounded here: 100 MB take their time, and the
// caller's context bounds the command.
const mediaHeaderTimeout = 30 * time.Second

// maxMediaRedirects is how many redirects an attachment may take, each to
// a host the opener accepts.
const maxMediaRedirects = 5

// MediaOpener opens the files members attach to commands by the attachment
// URL Discord gives (bot.Media.Ref): the adapter's core.MediaOpener for the
// Moments service. It fetches only from Discord's CDN (https on
// cdn.discordapp.com and media.discordapp.net) and from the origin of
// Options.APIURL (DISCORD_API_URL, where a test's fake serves
// attachments): a Ref comes from Discord's resolved attachments, but a
// stored one is opened again after a restart, so it is checked every time.
// It is safe for concurrent use.
type MediaOpener struct {
	client        *http.Client
	origin        *url.URL
	headerTimeout time.Duration
}

var _ core.MediaOpener = (*MediaOpener)(nil)

// newMediaOpener returns an opener that accepts origin besides the CDN.
// It uses base's transport when base has one (not its Timeout, which would
// bound the body too), else a copy of net/http's default transport.
func newMediaOpener(origin *url.URL, base *http.Client) *MediaOpener {
	o := &MediaOpener{origin: origin, headerTimeout: mediaHeaderTimeout}
	var rt http.RoundTripper
	if base != nil {
		rt = base.Transport
	}
	if rt == nil {
		rt = http.DefaultTransport
		if t, ok := rt.(*http.Transport); ok {
			rt = t.Clone()
		}
	}
	o.client = &http.Client{Transport: rt, CheckRedirect: o.checkRedirect}
	return o
}

// OpenMedia GETs the attachment at ref and returns its body, unread, and
// the size its Content-Length declares, -1 when there is none: the caller
// reads it as a stream, within ctx, and closes it. The response headers
// must come within 30 s. Errors: a ref that is not an http(s) URL on
// Discord's CDN or the API origin is refused before any request; 404, 403
// and 410 wrap core.ErrMediaGone (a deleted message, an expired link);
// other statuses and transport failures are plain errors (wrapping
// context.DeadlineExceeded when the headers did not come in time). No error
// carries the URL's query, which signs the link (ex, is, hm).
func (o *MediaOpener) OpenMedia(ctx context.Context, ref string) (io.ReadCloser, int64, error) {
	u, err := o.check(ref)
	if err != nil {
		return nil, 0, err
	}
	where := redactURL(u)
	reqCtx, cancel := context.WithCancel(ctx)
	timer := time.AfterFunc(o.headerTimeout, cancel)
	req, err := http.NewRequestWithContext(reqCtx, http.MethodGet, u.String(), nil)
	if err != nil {
		timer.Stop()
		cancel()
		return nil, 0, &mediaError{where: where, msg: "cannot make the request"}
	}
	// The size and the bytes must be the file's own: no transparent gzip.
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := o.client.Do(req)
	if !timer.Stop() { // the headers came too late, if at all: reqCtx is done
		if err == nil {
			_ = resp.Body.Close()
		}
		cancel()
		if ctx.Err() != nil {
			return nil, 0, &mediaError{where: where, msg: ctx.Err().Error(), err: ctx.Err()}
		}
		return nil, 0, &mediaError{where: where, msg: fmt.Sprintf("no answer within %s", o.headerTimeout), err: context.DeadlineExceeded}
	}
	if err != nil {
		cancel()
		return nil, 0, transportError(where, err)
	}
	if resp.StatusCode != http.StatusOK {
		_ = resp.Body.Close()
		cancel()
		e := &mediaError{where: where, msg: resp.Status}
		switch resp.StatusCode {
		case http.StatusNotFound, http.StatusForbidden, http.StatusGone:
			e.err = core.ErrMediaGone
		}
		return nil, 0, e
	}
	return &mediaBody{ReadCloser: resp.Body, cancel: cancel}, resp.ContentLength, nil
}

// check parses ref and accepts it when it points where attachments are.
// Its errors never quote ref whole: a parse error would.
func (o *MediaOpener) check(ref string) (*url.URL, error) {
	u, err := url.Parse(ref)
	if err != nil || u.Host == "" {
		return nil, errors.New("discord: open attachment: the reference is not a URL")
	}
	if !o.allowed(u) {
		return nil, &mediaError{where: redactURL(u), msg: "refused: not on Discord's CDN"}
	}
	return u, nil
}

// allowed reports whether u is on Discord's CDN, over https, or on the API
// origin, without credentials.
func (o *MediaOpener) allowed(u *url.URL) bool {
	if u.User != nil {
		return false
	}
	if o.origin != nil && u.Scheme == o.origin.Scheme && strings.EqualFold(u.Host, o.origin.Host) {
		return true
	}
	if u.Scheme != "https" {
		return false
	}
	for _, h := range cdnHosts {
		if strings.EqualFold(u.Host, h) {
			return true
		}
	}
	return false
}

// checkRedirect follows a redirect only to where the opener would go
// itself.
func (o *MediaOpener) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxMediaRedirects {
		return errors.New("too many redirects")
	}
	if !o.allowed(req.URL) {
		return errors.New("redirected off Discord's CDN: refused")
	}
	return nil
}

// redactURL is u without its query, fragment and credentials: what an
// error may say of an attachment URL.
func redactURL(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}).String()
}

// transportError words a failed request without its URL (a *url.Error
// quotes it whole, query included), keeping the cause for errors.Is.
func transportError(where string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return &mediaError{where: where, msg: ue.Op + ": " + ue.Err.Error(), err: ue.Err}
	}
	return &mediaError{where: where, msg: err.Error(), err: err}
}

// mediaError is a failure to open an attachment; its text names the
// attachment without the query that signs its URL.
type mediaError struct {
	where string
	msg   string
	err   error
}

func (e *mediaError) Error() string { return "discord: open attachment " + e.where + ": " + e.msg }

func (e *mediaError) Unwrap() error { return e.err }

// mediaBody is an attachment's body; closing it also releases its
// request's context.
type mediaBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *mediaBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
