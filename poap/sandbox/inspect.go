package sandbox

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CreateDrop adds d as POST /events would, with links approved mint links,
// and returns the stored drop and its edit code (d.EditCode, or a fixed
// code derived from the id). Unset dates default to today, the end to the
// start and the expiry to a year after the end; the fancy id is made
// unique.
func (s *Server) CreateDrop(d Drop, links int) (Drop, string) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.StartDate.IsZero() {
		d.StartDate = now.UTC().Truncate(24 * time.Hour)
	}
	d.EndDate = cmp.Or(d.EndDate, d.StartDate)
	d.ExpiryDate = cmp.Or(d.ExpiryDate, d.EndDate.AddDate(1, 0, 0))
	d.Year = cmp.Or(d.Year, d.StartDate.Year())
	d.Timezone = cmp.Or(d.Timezone, "UTC")
	d.Created = cmp.Or(d.Created, now)
	d = s.createDropLocked(d, productionAssets, ".png", now)
	if d.EditCode == "" {
		n, _ := strconv.ParseUint(digest("edit", d.ID)[:8], 16, 64)
		d.EditCode = fmt.Sprintf("%06d", n%1000000)
		s.drops[d.ID] = d
	}
	s.addLinks(d.ID, links, now)
	return d, d.EditCode
}

// AddMintLinks adds n approved mint links to drop eventID, skipping review,
// and returns their hashes. It fails for an unknown drop.
func (s *Server) AddMintLinks(eventID int64, n int) ([]string, error) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.drops[eventID]; !ok {
		return nil, fmt.Errorf("sandbox: add mint links: no drop %d", eventID)
	}
	var hashes []string
	for _, lk := range s.addLinks(eventID, n, now) {
		hashes = append(hashes, lk.hash)
	}
	return hashes, nil
}

// MintLinksOf returns the qr_hash of every approved mint link of drop
// eventID, oldest first, claimed or not.
func (s *Server) MintLinksOf(eventID int64) []string {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.review(now)
	var hashes []string
	for _, lk := range s.dropLinks[eventID] {
		hashes = append(hashes, lk.hash)
	}
	return hashes
}

// LinkClaimed reports whether the mint link hash has been used.
func (s *Server) LinkClaimed(hash string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	lk := s.links[hash]
	return lk != nil && lk.claim != nil
}

// SetLinkActive deactivates (or reactivates) the mint link hash: an
// inactive link shows is_active false and refuses mints as expired. It
// fails for an unknown link.
func (s *Server) SetLinkActive(hash string, active bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	lk := s.links[hash]
	if lk == nil {
		return fmt.Errorf("sandbox: set link active: no link %q", hash)
	}
	lk.deactivated = !active
	return nil
}

// Holders returns the holder of each POAP of drop eventID, in mint order:
// addresses as given, ENS names resolved, e-mails in lower case.
func (s *Server) Holders(eventID int64) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, i := range s.byEvent[eventID] {
		out = append(out, s.tokens[i].Owner)
	}
	return out
}

// MintCount returns how many POAPs of drop eventID exist, e-mail
// reservations included.
func (s *Server) MintCount(eventID int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.supply(eventID)
}

// DeliveryAddresses returns the list of the delivery whose slug is slug
// (whatever its case), addresses in lower case and sorted, or nil when no
// delivery has the slug.
func (s *Server) DeliveryAddresses(slug string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	dl := s.deliveryWithSlug(slug)
	if dl == nil {
		return nil
	}
	out := make([]string, 0, len(dl.addresses))
	for a := range dl.addresses {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// DeliveryClaimed reports whether address, on the list of the delivery
// whose slug is slug, has claimed through it.
func (s *Server) DeliveryClaimed(slug, address string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	dl := s.deliveryWithSlug(slug)
	if dl == nil {
		return false
	}
	entry := dl.addresses[strings.ToLower(strings.TrimSpace(address))]
	return entry != nil && entry.claimed
}
