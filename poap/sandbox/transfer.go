package sandbox

import (
	"fmt"
	"slices"
	"strings"
)

// MoveToken transfers a POAP of drop eventID held by from to to, both 0x
// addresses or known ENS names, as a transfer on chain does: the holder
// pages, the scans and GET /token/{tokenId} then show to as its owner, and
// its transferCount (and the drop's) grows by one. When from holds several
// POAPs of the drop, the first minted moves. It returns the token id, and
// fails when an address is not one, when from and to are the same, or when
// from holds no POAP of the drop (an e-mail reservation has no token to
// move).
func (s *Server) MoveToken(eventID int64, from, to string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fromHolder, k := s.resolve(from)
	if k != kindAddress {
		return "", fmt.Errorf("sandbox: move token: %q is not a 0x address or a known ENS name", from)
	}
	toHolder, k := s.resolve(to)
	if k != kindAddress {
		return "", fmt.Errorf("sandbox: move token: %q is not a 0x address or a known ENS name", to)
	}
	if strings.EqualFold(fromHolder, toHolder) {
		return "", fmt.Errorf("sandbox: move token: %q and %q are the same holder", from, to)
	}
	i, ok := s.heldOf(eventID, fromHolder)
	if !ok {
		return "", fmt.Errorf("sandbox: move token: %q holds no POAP of drop %d", from, eventID)
	}
	s.transfer(i, toHolder)
	return tokenID(s.tokens[i]), nil
}

// heldOf returns the position of the first minted POAP with a token id of
// drop eventID that holder holds. The caller holds s.mu.
func (st *state) heldOf(eventID int64, holder string) (int, bool) {
	for _, i := range st.byOwner[strings.ToLower(holder)] {
		if t := st.tokens[i]; t.EventID == eventID && t.ID != 0 {
			return i, true
		}
	}
	return 0, false
}

// transfer gives the token at position i to holder and keeps the indexes
// in step. The caller holds s.mu.
func (st *state) transfer(i int, holder string) {
	t := &st.tokens[i]
	from, to := strings.ToLower(t.Owner), strings.ToLower(holder)
	st.byOwner[from] = removeSorted(st.byOwner[from], i)
	if len(st.byOwner[from]) == 0 {
		delete(st.byOwner, from)
	}
	st.byOwner[to] = insertSorted(st.byOwner[to], i)
	if st.holds[holding{t.EventID, from}]--; st.holds[holding{t.EventID, from}] <= 0 {
		delete(st.holds, holding{t.EventID, from})
	}
	st.holds[holding{t.EventID, to}]++
	t.Owner = holder
	t.TransferCount++
}

// removeSorted removes i from the ascending positions.
func removeSorted(positions []int, i int) []int {
	if at, ok := slices.BinarySearch(positions, i); ok {
		return slices.Delete(positions, at, at+1)
	}
	return positions
}

// insertSorted adds i to the ascending positions.
func insertSorted(positions []int, i int) []int {
	at, _ := slices.BinarySearch(positions, i)
	return slices.Insert(positions, at, i)
}
