package sandbox

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// holdersJSON is the answer of GET /event/{id}/poaps.
type holdersJSON struct {
	Limit         int          `json:"limit"`
	Offset        int          `json:"offset"`
	Total         int          `json:"total"`
	TransferCount int          `json:"transferCount"`
	Tokens        []holderJSON `json:"tokens"`
}

// holderJSON is one POAP of a drop with its owner.
type holderJSON struct {
	ID            string    `json:"id"`
	Created       string    `json:"created"`
	Migrated      *string   `json:"migrated"`
	TransferCount string    `json:"transferCount"`
	Owner         ownerJSON `json:"owner"`
}

// ownerJSON is the holder of a POAP: address, POAPs held, ENS name or "".
type ownerJSON struct {
	ID          string `json:"id"`
	TokensOwned int    `json:"tokensOwned"`
	ENS         string `json:"ens"`
}

// holders answers GET /event/{id}/poaps: the drop's minted POAPs, newest
// first, limit (default 10, at most 300) at a time. E-mail reservations
// have no token yet and are not listed.
func (s *Server) holders(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	limit, offset := 0, 0
	if err == nil {
		limit, offset, err = query{r}.page(10, 300)
	}
	if err != nil {
		writeResult(w, nil, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.drops[id]; !ok {
		writeError(w, http.StatusNotFound, msgEventNotFound)
		return
	}
	minted := s.minted(id)
	out := holdersJSON{Limit: limit, Offset: offset, Total: len(minted), Tokens: []holderJSON{}}
	for _, t := range minted {
		out.TransferCount += t.TransferCount
	}
	for _, t := range minted[min(offset, len(minted)):min(offset+limit, len(minted))] {
		out.Tokens = append(out.Tokens, holderJSON{
			ID:            tokenID(t),
			Created:       t.Created.Format(timeLayout),
			Migrated:      formatTime(t.Migrated),
			TransferCount: strconv.Itoa(t.TransferCount),
			Owner:         ownerJSON{ID: t.Owner, TokensOwned: s.ownedBy(t.Owner), ENS: s.ensOf(t.Owner)},
		})
	}
	writeJSON(w, http.StatusOK, out)
}

// minted returns the POAPs with a token id of drop eventID, newest first.
// The caller holds s.mu.
func (st *state) minted(eventID int64) []Token {
	return slices.DeleteFunc(st.newestFirst(st.byEvent[eventID]), func(t Token) bool { return t.ID == 0 })
}

// ensOf returns the first ENS name, in order, that resolves to address, or
// "". The caller holds s.mu.
func (st *state) ensOf(address string) string {
	var names []string
	for name, addr := range st.names {
		if strings.EqualFold(addr, address) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// tokenInfoJSON is the answer of GET /token/{tokenId}.
type tokenInfoJSON struct {
	Event   tokenEventJSON `json:"event"`
	TokenID string         `json:"tokenId"`
	Owner   string         `json:"owner"`
	Layer   string         `json:"layer"`
	Created string         `json:"created"`
	Supply  supplyJSON     `json:"supply"`
}

// supplyJSON is a drop's supply and the rank of one POAP in it.
type supplyJSON struct {
	Total int `json:"total"`
	Order int `json:"order"`
}

// tokenInfo answers GET /token/{tokenId}: the POAP, its drop and owner.
func (s *Server) tokenInfo(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("tokenId"), 10, 64)
	if err != nil || id <= 0 {
		writeError(w, http.StatusBadRequest, "params/tokenId must be integer")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.byID[id]
	if !ok {
		writeError(w, http.StatusNotFound, "Token not found")
		return
	}
	writeJSON(w, http.StatusOK, s.tokenInfoJSON(i))
}

// tokenInfoJSON writes the token at position i; its order is its rank in
// the mints of its drop. The caller holds s.mu.
func (st *state) tokenInfoJSON(i int) tokenInfoJSON {
	t := st.tokens[i]
	rank, _ := slices.BinarySearch(st.byEvent[t.EventID], i)
	order := rank + 1
	layer := "Layer2"
	if t.Chain == "homestead" {
		layer = "Layer1"
	}
	return tokenInfoJSON{
		Event:   tokenEventJSON{eventJSON: st.eventJSON(t.EventID, nil), DropImage: dropImageOf(st.drops[t.EventID])},
		TokenID: tokenID(t),
		Owner:   t.Owner,
		Layer:   layer,
		Created: t.Created.Format(timeLayout),
		Supply:  supplyJSON{Total: st.supply(t.EventID), Order: order},
	}
}
