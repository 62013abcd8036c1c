package sandbox

// momentsRoutes registers Moments and the Moments query service.
func (s *Server) momentsRoutes() {}
