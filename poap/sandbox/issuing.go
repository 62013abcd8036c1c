package sandbox

// issuingRoutes registers the issuing service's operations beyond the scans.
func (s *Server) issuingRoutes() {}
