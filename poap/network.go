package poap

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/wire"
)

// MintingConfig is a drop's minting settings. The service does not publish
// their schema; Chains is read from supported_mint_blockchains, Raw keeps
// the whole answer.
type MintingConfig struct {
	// Chains are the chain ids the drop mints on; empty when the answer
	// names none (the default, wire.DefaultChain, applies).
	Chains []int64
	// Raw is the answer as the service sent it.
	Raw json.RawMessage
}

// UnmarshalJSON reads the configuration leniently: the chain ids at the top
// level or under a "data" or "config" object, ids as numbers or strings; an
// answer that is not an object is kept in Raw alone.
func (m *MintingConfig) UnmarshalJSON(b []byte) error {
	*m = MintingConfig{Raw: append(json.RawMessage(nil), b...)}
	if trimmed := bytes.TrimSpace(b); len(trimmed) == 0 || trimmed[0] != '{' {
		return nil
	}
	type chains struct {
		Chains []flexInt `json:"supported_mint_blockchains"`
	}
	var w struct {
		chains
		Data   *chains `json:"data"`
		Config *chains `json:"config"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	found := w.Chains
	for _, nested := range []*chains{w.Data, w.Config} {
		if len(found) == 0 && nested != nil {
			found = nested.Chains
		}
	}
	for _, id := range found {
		m.Chains = append(m.Chains, int64(id))
	}
	return nil
}

// MintingConfig reads the minting settings of drop dropID: POST
// /drops/{dropId}/minting-config, a read that carries the drop's edit code
// (as the integer edit_code). Errors: a *FieldError (ErrInvalidInput,
// ErrInvalidEditCode) before sending; from the service ErrInvalidEditCode,
// ErrNotFound, ErrUnauthorized, ErrRateLimited, ErrUnavailable and other
// answers as *APIError.
func (c *Client) MintingConfig(ctx context.Context, dropID int64, editCode core.Secret) (MintingConfig, error) {
	const op = wire.OpMintingConfig
	code, err := mintingEditCode(op, dropID, editCode)
	if err != nil {
		return MintingConfig{}, err
	}
	body, err := jsonBody(struct {
		EditCode int64 `json:"edit_code"`
	}{code})
	if err != nil {
		return MintingConfig{}, err
	}
	var cfg MintingConfig
	r := request{
		op: op, method: http.MethodPost, path: mintingConfigPath(dropID), body: body, contentType: "application/json",
		idempotent: true, // a read sent as POST
		secrets:    []string{editCode.Reveal()},
	}
	if err := c.do(ctx, r, &cfg); err != nil {
		return MintingConfig{}, err
	}
	return cfg, nil
}

// SetMintingNetwork makes drop dropID mint on chainID, one of wire.Chains:
// PATCH /drops/{dropId}/minting-config with {edit_code,
// supported_mint_blockchains: [chainID]}. It returns the configuration the
// service answers with. Errors: a *FieldError (ErrInvalidInput) for a chain
// not in wire.Chains, such as mainnet, or a bad edit code
// (ErrInvalidEditCode), before sending; from the service those of
// MintingConfig.
func (c *Client) SetMintingNetwork(ctx context.Context, dropID int64, editCode core.Secret, chainID int64) (MintingConfig, error) {
	const op = wire.OpSetMintingNetwork
	code, err := mintingEditCode(op, dropID, editCode)
	if err != nil {
		return MintingConfig{}, err
	}
	if _, ok := wire.Chains[chainID]; !ok {
		return MintingConfig{}, fieldError(op, "supported_mint_blockchains",
			"chain %d is not supported; supported chain ids: %v", chainID, wire.ChainIDs())
	}
	body, err := jsonBody(struct {
		EditCode int64   `json:"edit_code"`
		Chains   []int64 `json:"supported_mint_blockchains"`
	}{code, []int64{chainID}})
	if err != nil {
		return MintingConfig{}, err
	}
	var cfg MintingConfig
	r := request{op: op, method: http.MethodPatch, path: mintingConfigPath(dropID), body: body,
		contentType: "application/json", emptyOK: true, secrets: []string{editCode.Reveal()}}
	if err := c.do(ctx, r, &cfg); err != nil {
		return MintingConfig{}, err
	}
	if len(cfg.Chains) == 0 {
		// The schema of the answer is not published; an empty one means
		// the change was accepted as sent.
		cfg.Chains = []int64{chainID}
	}
	return cfg, nil
}

// mintingEditCode checks the drop id and the edit code and returns the code
// as the integer these operations take. A code with leading zeros loses them
// on the way, as the service's schema requires.
func mintingEditCode(op string, dropID int64, editCode core.Secret) (int64, error) {
	if err := firstError(checkID(op, "dropId", dropID), checkEditCode(op, "edit_code", editCode)); err != nil {
		return 0, err
	}
	code, err := strconv.ParseInt(editCode.Reveal(), 10, 64)
	if err != nil {
		return 0, fieldError(op, "edit_code", "the edit code must be 6 digits")
	}
	return code, nil
}

// mintingConfigPath is the path of a drop's minting configuration.
func mintingConfigPath(dropID int64) string {
	return "/drops/" + strconv.FormatInt(dropID, 10) + "/minting-config"
}
