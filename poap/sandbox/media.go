package sandbox

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/poapbot/poapbot/poap/wire"
)

// Media is an uploaded file as the Server describes it: what it learnt while
// the bytes streamed through to disk.
type Media struct {
	Key string
	// DeclaredType is the upload's Content-Type.
	DeclaredType string
	// SniffedType is what http.DetectContentType makes of the first 512
	// bytes.
	SniffedType string
	Size        int64
	// Hash is the SHA-256 of the content, in hex.
	Hash string
	// Status is the state a status read reports now.
	Status string
	// MomentID is the Moment the file is attached to, or "".
	MomentID string
}

// mediaRecord is an issued media key and, once uploaded, its file.
type mediaRecord struct {
	Media
	uploaded   bool
	uploadedAt time.Time
	// final is the state once processing is over.
	final string
	// file holds the bytes of a file whose final state is PROCESSED, for
	// the media gateway; "" for the others.
	file string
}

// mediaUploadURL answers POST /moments/media-upload-url with a new key and a
// signed upload address on the Server's own host.
func (s *Server) mediaUploadURL(w http.ResponseWriter, r *http.Request) {
	key := momentUUID()
	sig := s.moments.issue(key)
	writeJSON(w, http.StatusOK, wire.UploadAddress{
		URL: requestBase(r) + "/uploads/" + key + "?signature=" + sig,
		Key: key,
	})
}

// uploadMedia answers PUT /uploads/{key}, the signed address. Like S3 it
// needs a Content-Length; it hashes and sniffs the body as it streams to a
// file on disk, so a file of any size costs a few kilobytes of memory. A
// failed upload leaves no file; after Close, uploads answer 503.
func (s *Server) uploadMedia(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("key")
	declared := baseMediaType(r.Header.Get("Content-Type"))
	switch {
	case !s.moments.signed(key, r.URL.Query().Get("signature")):
		writeError(w, http.StatusForbidden, "The request signature does not match")
		return
	case r.ContentLength < 0:
		writeError(w, http.StatusLengthRequired, "Content-Length is required")
		return
	case declared == "":
		writeError(w, http.StatusBadRequest, "Content-Type is required")
		return
	}
	f, err := s.moments.createFile()
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "Upload storage unavailable")
		return
	}
	m, err := digestUpload(r.Body, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		writeError(w, http.StatusBadRequest, "Upload incomplete")
		return
	}
	m.Key, m.DeclaredType = key, declared
	if msg := s.moments.upload(m, f.Name(), s.now()); msg != "" {
		writeError(w, http.StatusConflict, msg)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// mediaStatus answers GET /media/{key}: 404 until the upload is registered,
// then IN_PROCESS, then its final state (see Options.MediaDelay).
func (s *Server) mediaStatus(w http.ResponseWriter, r *http.Request) {
	m, ok := s.moments.media(r.PathValue("key"), s.now())
	if !ok {
		writeError(w, http.StatusNotFound, "Media not found")
		return
	}
	body := wire.Media{Key: m.Key, Status: m.Status, MimeType: m.DeclaredType}
	if m.Status == wire.MediaProcessed {
		body.Hash = m.Hash
		body.Location = "poap://media/" + m.Key
		body.Gateways = []wire.MediaGateway{{Type: m.DeclaredType, URL: mediaGatewayURL(r, m.Key)}}
	}
	writeJSON(w, http.StatusOK, body)
}

// digestUpload copies body to dst and returns its size, SHA-256 and sniffed
// type, holding only its first 512 bytes and a copy buffer.
func digestUpload(body io.Reader, dst io.Writer) (Media, error) {
	h := sha256.New()
	out := io.MultiWriter(h, dst)
	head := make([]byte, 512)
	n, err := io.ReadFull(body, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return Media{}, err
	}
	if _, err := out.Write(head[:n]); err != nil {
		return Media{}, err
	}
	rest, err := io.Copy(out, body)
	if err != nil {
		return Media{}, err
	}
	return Media{
		Size:        int64(n) + rest,
		Hash:        hex.EncodeToString(h.Sum(nil)),
		SniffedType: baseMediaType(http.DetectContentType(head[:n])),
	}, nil
}

// judgeMedia is the state processing ends in: FAILED for an empty file, INVALID
// unless the declared type is an image or video type that matches the
// content, PROCESSED otherwise.
func judgeMedia(m Media) string {
	switch {
	case m.Size == 0:
		return wire.MediaFailed
	case m.DeclaredType != m.SniffedType:
		return wire.MediaInvalid
	case !strings.HasPrefix(m.DeclaredType, "image/") && !strings.HasPrefix(m.DeclaredType, "video/"):
		return wire.MediaInvalid
	}
	return wire.MediaProcessed
}

// baseMediaType is the lower-case type and subtype of a Content-Type, without
// parameters, or "" when it does not parse.
func baseMediaType(contentType string) string {
	t, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	return t
}

// signUpload is the signature of an upload address for key.
func signUpload(secret []byte, key string) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(key))
	return hex.EncodeToString(mac.Sum(nil))
}

// requestBase is the Server's address as the client reached it, so that the
// upload addresses it hands out work behind httptest or any listener.
func requestBase(r *http.Request) string {
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

// momentUUID returns a random version 4 UUID.
func momentUUID() string {
	b := make([]byte, 16)
	rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
