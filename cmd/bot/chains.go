package main

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/poapbot/poapbot/chain"
	"github.com/poapbot/poapbot/core"
)

// chainEndpoint is one entry of CHAIN_RPC_URLS: a chain id and its
// JSON-RPC endpoint.
type chainEndpoint struct {
	ID  int64
	URL string
}

// maxChains bounds CHAIN_RPC_URLS: every chain is asked about every
// smart-contract wallet signature.
const maxChains = 32

// chainsHint is the shape of CHAIN_RPC_URLS, for its error messages.
const chainsHint = "chainid=url,... like 8453=https://mainnet.base.org,100=https://rpc.gnosischain.com"

// parseChainURLs reads CHAIN_RPC_URLS: comma-separated chainid=url
// entries, each chain once. Its errors name the variable and the entry's
// position or chain id, never the URL, which may carry an API key.
func parseChainURLs(value string) ([]chainEndpoint, error) {
	if strings.TrimSpace(value) == "" {
		return nil, nil
	}
	var out []chainEndpoint
	seen := map[int64]bool{}
	for i, entry := range strings.Split(value, ",") {
		idText, rawURL, ok := strings.Cut(strings.TrimSpace(entry), "=")
		id, err := strconv.ParseInt(strings.TrimSpace(idText), 10, 64)
		switch {
		case !ok || err != nil || id <= 0:
			return nil, fmt.Errorf("CHAIN_RPC_URLS: entry %d is not chainid=url (%s)", i+1, chainsHint)
		case seen[id]:
			return nil, fmt.Errorf("CHAIN_RPC_URLS: chain %d is named twice; keep one endpoint per chain", id)
		}
		u, err := url.Parse(strings.TrimSpace(rawURL))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("CHAIN_RPC_URLS: the endpoint of chain %d must be an absolute https:// (or http://) URL (%s)", id, chainsHint)
		}
		seen[id] = true
		out = append(out, chainEndpoint{ID: id, URL: u.String()})
	}
	if len(out) > maxChains {
		return nil, fmt.Errorf("CHAIN_RPC_URLS: at most %d chains, not %d", maxChains, len(out))
	}
	return out, nil
}

func (c *Config) validateChains() error {
	_, err := parseChainURLs(c.ChainRPCURLs.Reveal())
	return err
}

// contractWallets are the clients of the chains of CHAIN_RPC_URLS, for
// the wallet service. The configuration was validated already, so an
// error is a wiring mistake.
func (m *Main) contractWallets() ([]core.ContractWallets, error) {
	endpoints, err := parseChainURLs(m.Config.ChainRPCURLs.Reveal())
	if err != nil {
		return nil, err
	}
	var out []core.ContractWallets
	for _, e := range endpoints {
		c, err := chain.NewClient(chain.Options{ID: e.ID, URL: e.URL, Timeout: m.ChainTimeout})
		if err != nil {
			return nil, errors.New("CHAIN_RPC_URLS: " + err.Error())
		}
		out = append(out, c)
	}
	return out, nil
}
