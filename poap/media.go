package poap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/poapbot/poapbot/poap/wire"
)

// MediaStatus is the processing state of an uploaded media file.
type MediaStatus string

// The media states Moments reports (see wire's); the client treats both
// MediaInvalid and MediaFailed as a refusal.
const (
	MediaInProcess MediaStatus = wire.MediaInProcess
	MediaProcessed MediaStatus = wire.MediaProcessed
	MediaInvalid   MediaStatus = wire.MediaInvalid
	MediaFailed    MediaStatus = wire.MediaFailed
)

// UnmarshalText reads a status in any letter case.
func (s *MediaStatus) UnmarshalText(b []byte) error {
	*s = MediaStatus(strings.ToUpper(strings.TrimSpace(string(b))))
	return nil
}

// Media is an uploaded file as Moments describes it (wire.Media). Only Key
// and Status are sure to be set; the rest arrives once the file is
// processed.
type Media struct {
	// Key is the media key a Moment refers to (a UUID).
	Key    string
	Status MediaStatus
	// MimeType is the type the file was uploaded with, e.g. image/png.
	MimeType string
	Gateways []Gateway
	// Hash is the SHA-256 of the content, in hex.
	Hash string
	// Location is the service's own poap://... address of the file.
	Location string
}

// Gateway is an address the processed file can be downloaded from.
type Gateway struct {
	// Type is the MIME type served there; empty when the service gave a
	// bare URL.
	Type string
	URL  string
}

// UnmarshalJSON reads a gateway as wire.MediaGateway, {"type","url"}, or,
// as the older MVP wrote it, as a bare URL string.
func (g *Gateway) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		*g = Gateway{}
		return json.Unmarshal(b, &g.URL)
	}
	var w wire.MediaGateway
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*g = Gateway(w)
	return nil
}

// mediaJSON is a media status answer as the client reads it: wire.Media,
// with the status in any letter case and, as the older MVP wrote them,
// gateways as bare URLs.
type mediaJSON struct {
	wire.Media
	Status   MediaStatus `json:"status"`
	Gateways []Gateway   `json:"gateways"`
}

// media converts the answer.
func (m mediaJSON) media() Media {
	return Media{
		Key: m.Key, Status: m.Status, MimeType: m.MimeType, Gateways: m.Gateways,
		Hash: m.Hash, Location: m.Location,
	}
}

// UploadMedia sends size bytes read from r, of MIME type contentType, to
// Moments and returns the media key to wait for (WaitForMedia) and to attach
// to a Moment. It asks for a signed address (POST /moments/media-upload-url,
// with a token for Options.MomentsAudience) and streams the file there with
// PUT (https://documentation.poap.tech/docs/poap-moments-mvp): the file is
// never held in memory whole.
//
// r must hold exactly size bytes; it is read from its current position.
// When r is also an io.ReaderAt (a file, a bytes.Reader) the upload may be
// sent again after a failure, each attempt reading afresh from that
// position, and r's position does not move; any other reader is read once
// and a failed upload is not retried.
//
// Errors: ErrMediaInvalid for a size under one byte or no content type,
// ErrUnauthorized when no token is configured or it is refused,
// ErrRateLimited, ErrUnavailable for failures and timeouts, ErrMediaChanged
// when r holds fewer or more than size bytes, a plain error when no
// MomentsURL is configured;
// answers from the service come as *APIError.
func (c *Client) UploadMedia(ctx context.Context, r io.Reader, size int64, contentType string) (string, error) {
	if size <= 0 {
		return "", fmt.Errorf("poap: %s: %w: size %d, want at least one byte", wire.OpMediaUpload, ErrMediaInvalid, size)
	}
	if strings.TrimSpace(contentType) == "" {
		return "", fmt.Errorf("poap: %s: %w: no content type", wire.OpMediaUpload, ErrMediaInvalid)
	}
	target, err := c.mediaUploadURL(ctx)
	if err != nil {
		return "", err
	}
	if err := c.putMedia(ctx, target.URL, r, size, contentType); err != nil {
		return "", err
	}
	return target.Key, nil
}

// mediaUploadURL asks Moments for a signed upload address and a media key.
func (c *Client) mediaUploadURL(ctx context.Context) (wire.UploadAddress, error) {
	base, err := c.momentsBase(wire.OpMediaUploadURL)
	if err != nil {
		return wire.UploadAddress{}, err
	}
	r := request{
		op: wire.OpMediaUploadURL, method: http.MethodPost, base: base, path: "/moments/media-upload-url",
		access: bearerOnly, audience: c.momentsAu,
		// A repeated call only leaves an unused key behind.
		idempotent: true,
	}
	var t wire.UploadAddress
	if err := c.do(ctx, r, &t); err != nil {
		return wire.UploadAddress{}, err
	}
	u, err := url.Parse(t.URL)
	if t.Key == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return wire.UploadAddress{}, fmt.Errorf("poap: %s: %w: answer without a usable url and key", wire.OpMediaUploadURL, ErrUnavailable)
	}
	return t, nil
}

// minUploadRate is the slowest link an upload is given time for: 256 KiB/s.
const minUploadRate = 256 << 10

// uploadTimeout bounds one upload attempt: the request timeout plus the time
// the file takes at minUploadRate, so large files are not cut off at the
// 10 s meant for API calls.
func uploadTimeout(base time.Duration, size int64) time.Duration {
	return base + time.Duration(size/minUploadRate)*time.Second
}

// putMedia streams the file to the signed address target. The request
// carries no credentials: the signature in the address is the permission.
func (c *Client) putMedia(ctx context.Context, target string, r io.Reader, size int64, contentType string) error {
	check := &sizeCheck{size: size}
	body, replayable := uploadBody(r, size, check)
	req := request{
		op: wire.OpMediaUpload, method: http.MethodPut, rawURL: target, access: anonymous,
		body: body, contentType: contentType, contentLength: size,
		// A PUT to a signed address is idempotent, but only a body that
		// can be read again may be sent again.
		idempotent: replayable,
		timeout:    uploadTimeout(c.timeout, size),
	}
	err := c.do(ctx, req, nil)
	switch check.state.Load() {
	case sizeShort:
		return fmt.Errorf("poap: %s: %w: the reader ended before %d bytes", wire.OpMediaUpload, ErrMediaChanged, size)
	case sizeLong:
		return fmt.Errorf("poap: %s: %w: the reader holds more than %d bytes", wire.OpMediaUpload, ErrMediaChanged, size)
	}
	return err
}

// momentsBase is the Moments service's address, or an error naming op when
// the client was built without one.
func (c *Client) momentsBase(op string) (*url.URL, error) {
	if c.moments == nil {
		return nil, fmt.Errorf("poap: %s: no Moments address configured (Options.MomentsURL)", op)
	}
	return c.moments, nil
}

// uploadBody returns the body function of an upload and whether it can be
// called more than once: an io.ReaderAt is read afresh from its current
// position each time, unless the size proved wrong; any other reader only
// once.
func uploadBody(r io.Reader, size int64, check *sizeCheck) (func() (io.Reader, error), bool) {
	if ra, ok := r.(io.ReaderAt); ok {
		var start int64
		if s, ok := r.(io.Seeker); ok {
			if pos, err := s.Seek(0, io.SeekCurrent); err == nil {
				start = pos
			}
		}
		return func() (io.Reader, error) {
			if check.state.Load() != sizeOK {
				// The size is wrong; another attempt cannot help.
				return nil, errors.New("the file's size does not match")
			}
			// One byte past size, so that a longer file is noticed.
			return check.wrap(io.NewSectionReader(ra, start, size+1)), nil
		}, true
	}
	var used atomic.Bool
	return func() (io.Reader, error) {
		if used.Swap(true) {
			return nil, errors.New("the file's reader cannot be read a second time")
		}
		return check.wrap(r), nil
	}, false
}

// States of a sizeCheck.
const (
	sizeOK int32 = iota
	sizeShort
	sizeLong
)

// sizeCheck records whether an upload's reader held other than size bytes.
// The transport reads the body on its own goroutine, hence the atomic.
type sizeCheck struct {
	size  int64
	state atomic.Int32
}

// wrap returns a reader that yields r's first size bytes and fails, noting
// why in c, when r ends early or holds more.
func (c *sizeCheck) wrap(r io.Reader) io.Reader {
	return &exactReader{r: r, left: c.size, check: c}
}

// errReaderTooLong stops an upload whose reader holds more than its size.
var errReaderTooLong = errors.New("reader holds more bytes than the declared size")

// exactReader is the reader sizeCheck.wrap returns.
type exactReader struct {
	r     io.Reader
	left  int64
	check *sizeCheck
}

// Read implements io.Reader. The transport reads past Content-Length once
// to check the body ends there; that read probes r for one more byte.
func (e *exactReader) Read(p []byte) (int, error) {
	if e.left <= 0 {
		var one [1]byte
		if n, _ := e.r.Read(one[:]); n > 0 {
			e.check.state.Store(sizeLong)
			return 0, errReaderTooLong
		}
		return 0, io.EOF
	}
	if int64(len(p)) > e.left {
		p = p[:e.left]
	}
	n, err := e.r.Read(p)
	e.left -= int64(n)
	if err == io.EOF && e.left > 0 {
		e.check.state.Store(sizeShort)
		return n, io.ErrUnexpectedEOF
	}
	return n, err
}

// redactURL drops the query, which holds the signature of a signed upload
// address, from the address a transport error quotes, before the error's
// message is made (Client.send), so that no message quotes it.
func redactURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			u.RawQuery = ""
			ue.URL = u.String()
		}
	}
	return err
}
