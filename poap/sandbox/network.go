package sandbox

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/poapbot/poapbot/poap/wire"
)

// chainName names the network of chain id as scans do, zero being the
// default.
func chainName(id int) string {
	return wire.Chains[int64(cmp.Or(id, wire.DefaultChain))].Network
}

// mintingConfigInput is the body of POST and PATCH
// /drops/{dropId}/minting-config.
type mintingConfigInput struct {
	EditCode number          `json:"edit_code"`
	Chains   json.RawMessage `json:"supported_mint_blockchains"`
}

// mintingConfigJSON is the answer of both minting-config operations.
type mintingConfigJSON struct {
	DropID                   int64 `json:"drop_id"`
	SupportedMintBlockchains []int `json:"supported_mint_blockchains"`
}

// configure answers POST and PATCH /drops/{dropId}/minting-config, which
// production documents alike: with the edit code (an integer here), it
// sets the network the body names, if any (null resets the default), and
// answers the config.
func (s *Server) configure(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "dropId")
	var in mintingConfigInput
	if err == nil {
		err = readJSON(r, &in)
	}
	var out mintingConfigJSON
	if err == nil {
		out, err = s.applyNetwork(id, in)
	}
	writeResult(w, out, err)
}

// applyNetwork sets the network of drop id from in and returns its config.
func (s *Server) applyNetwork(id int64, in mintingConfigInput) (mintingConfigJSON, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.drops[id]
	switch {
	case !ok:
		return mintingConfigJSON{}, notFoundError(msgEventNotFound)
	case !in.EditCode.Set:
		return mintingConfigJSON{}, badRequest("edit_code is required")
	case d.EditCode == "" || fmt.Sprintf("%06d", in.EditCode.V) != d.EditCode:
		return mintingConfigJSON{}, badRequest(msgInvalidEditCode)
	}
	if len(in.Chains) > 0 {
		chain, err := parseChains(in.Chains)
		if err != nil {
			return mintingConfigJSON{}, err
		}
		d.ChainID = chain
		s.drops[id] = d
	}
	return mintingConfigJSON{DropID: id, SupportedMintBlockchains: []int{cmp.Or(d.ChainID, wire.DefaultChain)}}, nil
}

// parseChains reads supported_mint_blockchains: one supported chain id, or
// null for the default.
func parseChains(raw json.RawMessage) (int, error) {
	var ids []int
	if err := json.Unmarshal(raw, &ids); err != nil {
		return 0, badRequest("supported_mint_blockchains must be an array of chain ids")
	}
	if ids == nil {
		return wire.DefaultChain, nil
	}
	if len(ids) != 1 {
		return 0, badRequest("supported_mint_blockchains must hold exactly one chain id: a drop mints on one network")
	}
	if _, ok := wire.Chains[int64(ids[0])]; !ok {
		return 0, badRequest("chain id %d is not supported; use one of %v", ids[0], wire.ChainIDs())
	}
	return ids[0], nil
}
