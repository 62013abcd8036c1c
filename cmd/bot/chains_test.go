package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/core"
)

// TestParseChainURLs reads CHAIN_RPC_URLS, and refuses a bad value with
// one line naming the variable and never the URL.
func TestParseChainURLs(t *testing.T) {
	t.Parallel()
	got, err := parseChainURLs(" 100=https://rpc.gnosischain.com, 8453=https://mainnet.base.org/v2/KEY ")
	want := []chainEndpoint{{100, "https://rpc.gnosischain.com"}, {8453, "https://mainnet.base.org/v2/KEY"}}
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("parseChainURLs() = %v, %v, want %v", got, err, want)
	}
	if got, err := parseChainURLs(""); err != nil || got != nil {
		t.Errorf("parseChainURLs(\"\") = %v, %v, want none", got, err)
	}
	for _, bad := range []string{
		"https://mainnet.base.org/KEY",
		"base=https://mainnet.base.org/KEY",
		"0=https://mainnet.base.org/KEY",
		"8453=mainnet.base.org/KEY",
		"8453=ftp://mainnet.base.org/KEY",
		"8453=https://a.example/KEY,8453=https://b.example/KEY",
		"8453=https://a.example/KEY,,",
	} {
		_, err := parseChainURLs(bad)
		if err == nil || !strings.HasPrefix(err.Error(), "CHAIN_RPC_URLS: ") || strings.Contains(err.Error(), "KEY") || strings.Contains(err.Error(), "\n") {
			t.Errorf("parseChainURLs(%q) = %v, want one line naming CHAIN_RPC_URLS and not the URL", bad, err)
		}
	}
	c := Config{ChainRPCURLs: core.Secret("8453=nope/KEY")}
	if err := c.validateChains(); err == nil || !strings.Contains(err.Error(), "CHAIN_RPC_URLS") {
		t.Errorf("validateChains() = %v, want CHAIN_RPC_URLS named", err)
	}
}
