package sandbox

import (
	"net/http"
	"path"
	"strconv"

	"github.com/poapbot/poapbot/poap/wire"
)

// productionAssets is the image host of production's drop artwork, where the
// drops made without a request (CreateDrop, the demo data) point; the
// Server does not serve them.
const productionAssets = "https://assets.poap.xyz"

// artwork is a drop's artwork as uploaded with POST /events.
type artwork struct {
	data     []byte
	mimeType string
}

// artworkRoutes registers the image host's one read. Production serves
// artwork from its own host (assets.poap.xyz); the Server keeps the
// artwork of the drops POST /events makes and serves it on its own host,
// like the signed upload addresses of Moments, so that a client can fetch it
// back (EditDrop sends it with every edit) without the internet.
func (s *Server) artworkRoutes() {
	s.handle(wire.OpDropArtwork, "GET /assets/{file}", open, s.serveArtwork)
}

// serveArtwork answers GET /assets/{file}: the file as uploaded, with its
// type, or a plain 404 as an image host writes it.
func (s *Server) serveArtwork(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	a, ok := s.artworks[r.PathValue("file")]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", a.mimeType)
	w.Header().Set("Content-Length", strconv.Itoa(len(a.data)))
	w.Write(a.data)
}

// keepArtwork stores the artwork of d, uploaded as data, under the file
// names of its ORIGINAL and CROP renditions (the crop is not cropped). The
// caller holds s.mu.
func (st *state) keepArtwork(d Drop, data []byte) {
	a := artwork{data: data, mimeType: http.DetectContentType(data)}
	st.artworks[path.Base(d.ImageURL)] = a
	st.artworks[cropFile(d)] = a
}
