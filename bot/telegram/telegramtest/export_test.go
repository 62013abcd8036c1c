package telegramtest

import "time"

// SetNow stops the clock of s's limits at t, so that tests of the limits
// decide when time passes instead of sleeping.
func SetNow(s *Server, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = func() time.Time { return t }
}
