package sandbox

import (
	"cmp"
	"fmt"

	"github.com/poapbot/poapbot/poap/wire"
)

// SetEditCode replaces the edit code of drop eventID with code, as when the
// issuer has the service send a new one: the old code is refused from then
// on. It fails for an unknown drop.
func (s *Server) SetEditCode(eventID int64, code string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.drops[eventID]
	if !ok {
		return fmt.Errorf("sandbox: set edit code: no drop %d", eventID)
	}
	d.EditCode = code
	s.drops[eventID] = d
	return nil
}

// DropChain returns the chain id drop eventID mints on (wire.DefaultChain
// unless its minting configuration set another), and false for an unknown
// drop.
func (s *Server) DropChain(eventID int64) (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.drops[eventID]
	if !ok {
		return 0, false
	}
	return int64(cmp.Or(d.ChainID, wire.DefaultChain)), true
}
