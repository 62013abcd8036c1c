package sandbox

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// collectorDescription is the description of every drop SeedCollector
// makes: about 400 characters, a common length for real drops, so that a
// scan of a large collection weighs what production's does (roughly 800
// bytes a POAP).
var collectorDescription = strings.Repeat("A drop made by SeedCollector to fill a large collection. ", 7)

// collectorStart is when the first drop of SeedCollector starts; each next
// one starts an hour later.
var collectorStart = time.Date(2021, time.January, 1, 9, 0, 0, 0, time.UTC)

// SeedCollector gives address, a 0x address or a known ENS name, n POAPs of
// n new drops, one each, as a collector of many years holds them: minted an
// hour apart on Gnosis, each drop named "Collection drop #i". It takes one
// lock for the lot, so tens of thousands are seeded in milliseconds. It fails
// for an address that is not one, or a negative n.
func (s *Server) SeedCollector(address string, n int) error {
	if n < 0 {
		return fmt.Errorf("sandbox: seed collector: %d POAPs", n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, k := s.resolve(address); k != kindAddress {
		return fmt.Errorf("sandbox: seed collector: %q is not a 0x address or a known ENS name", address)
	}
	for i := range n {
		at := collectorStart.Add(time.Duration(i) * time.Hour)
		day := at.Truncate(24 * time.Hour)
		d := s.addDrop(Drop{
			Name:        fmt.Sprintf("Collection drop #%d", i+1),
			Description: collectorDescription,
			City:        "Lisbon",
			Country:     "Portugal",
			EventURL:    "https://events.example.org/collection",
			StartDate:   day,
			EndDate:     day,
			ExpiryDate:  day.AddDate(0, 0, 30),
			Timezone:    "UTC",
		})
		d.ImageURL = fmt.Sprintf("https://assets.poap.xyz/%s-logo-%d.png", d.FancyID, at.UnixMilli())
		s.drops[d.ID] = d
		if _, err := s.mint(Token{EventID: d.ID, Owner: address, Chain: "xdai", Created: at}); err != nil {
			return err
		}
	}
	return nil
}

// SeedHolders mints one POAP of drop eventID to each of addresses (0x
// addresses or known ENS names), all at the Server's now on the drop's
// network, in the order given: an address listed twice, or one holding the
// drop already, gets another, since this is a knob and not a claim. It
// takes one lock for the lot, so tens of thousands of holders are seeded in
// milliseconds. It fails, minting nothing, for an unknown drop or an
// address that is not one.
func (s *Server) SeedHolders(eventID int64, addresses []string) error {
	at := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.drops[eventID]
	if !ok {
		return fmt.Errorf("sandbox: seed holders: no drop %d", eventID)
	}
	holders := make([]string, len(addresses))
	for i, a := range addresses {
		h, k := s.resolve(a)
		if k != kindAddress {
			return fmt.Errorf("sandbox: seed holders: %q is not a 0x address or a known ENS name", a)
		}
		holders[i] = h
	}
	s.tokens = slices.Grow(s.tokens, len(holders))
	for _, h := range holders {
		if _, err := s.mint(Token{EventID: eventID, Owner: h, Chain: chainName(d.ChainID), Created: at}); err != nil {
			return err
		}
	}
	return nil
}
