package sandbox

import (
	"errors"
	"net/http"
	"os"
	"time"

	"github.com/poapbot/poapbot/poap/wire"
)

// errClosed is why an upload fails once the Server is closed.
var errClosed = errors.New("sandbox: closed")

// mediaGatewayRoutes registers the public gateway of processed files.
// Production serves them from a gateway outside Moments (IPFS or a CDN); the
// Server keeps the bytes of each upload in a directory of its own and
// serves them on its own host, so that a Moment's pictures show in a
// rehearsal without the internet.
func (s *Server) mediaGatewayRoutes() {
	s.handle(wire.OpMediaGateway, "GET /gateway/media/{key}", open, s.serveMedia)
}

// serveMedia answers GET /gateway/media/{key}: the bytes of a processed file
// with their sniffed type (ranges and conditional requests as
// http.ServeContent answers them), or a plain 404 as a gateway writes it
// for a key that is unknown or not processed yet.
func (s *Server) serveMedia(w http.ResponseWriter, r *http.Request) {
	m, ok := s.moments.servable(r.PathValue("key"), s.now())
	if !ok {
		http.NotFound(w, r)
		return
	}
	f, err := os.Open(m.file)
	if err != nil {
		// Closed, or replaced by a new upload since the lookup.
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", m.SniffedType)
	http.ServeContent(w, r, "", m.uploadedAt, f)
}

// mediaGatewayURL is the address serveMedia answers for key, on the host r
// reached.
func mediaGatewayURL(r *http.Request, key string) string {
	return requestBase(r) + "/gateway/media/" + key
}

// createFile makes an empty file for an upload in the Server's media
// directory, which it creates on first use below Options.MediaDir. The
// caller removes the file when the upload fails. Errors: errClosed after
// Close, or the file system's.
func (st *momentStore) createFile() (*os.File, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return nil, errClosed
	}
	if st.dir == "" {
		dir, err := os.MkdirTemp(st.parent, "poap-sandbox-media-")
		if err != nil {
			return nil, err
		}
		st.dir = dir
	}
	return os.CreateTemp(st.dir, "upload-")
}

// servable returns the record of key if it is a processed file whose bytes
// are kept, or false.
func (st *momentStore) servable(key string, now time.Time) (mediaRecord, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	rec, ok := st.files[key]
	if !ok || !rec.uploaded || rec.file == "" || rec.status(now, st.delay) != wire.MediaProcessed {
		return mediaRecord{}, false
	}
	return *rec, true
}

// close removes the media directory and refuses later uploads. An upload
// still streaming loses its file with the directory, and its key then
// answers 404 at the gateway.
func (st *momentStore) close() error {
	st.mu.Lock()
	dir := st.dir
	st.closed, st.dir = true, ""
	st.mu.Unlock()
	if dir == "" {
		return nil
	}
	return os.RemoveAll(dir)
}

// Close removes the files the Server kept for its media gateway (see
// Options.MediaDir); uploads then fail with 503, and the gateway answers
// 404. The other routes keep working. It returns the file system's error,
// if any, and is safe to call more than once.
func (s *Server) Close() error {
	return s.moments.close()
}
