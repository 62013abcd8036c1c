package sandbox

import (
	"net/http"
	"strings"
)

// validBearer reports whether r carries an access token for audience.
// Placeholder until the token service lands: any non-empty bearer passes.
func (s *Server) validBearer(r *http.Request, audience string) bool {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && token != "" && audience != ""
}

// authRoutes registers the token service.
func (s *Server) authRoutes() {}
