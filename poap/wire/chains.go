package wire

import (
	"maps"
	"slices"

	"github.com/poapbot/poapbot/core"
)

// Chain is a network a drop can mint on.
type Chain struct {
	// Name is the network's display name ("Gnosis").
	Name string
	// Network is the name scans give the network of a token ("xdai"), the
	// "chain" of a scanned token.
	Network string
}

// DefaultChain is the chain id of the network a drop mints on unless set
// otherwise: Gnosis.
const DefaultChain = core.DefaultChain

// Chains are the networks a drop can mint on, by chain id: the values
// supported_mint_blockchains of a drop's minting configuration takes. Each
// drop mints on one of them; mainnet (1) is not offered. They are the
// core's networks (core.Networks), which the bot's commands name: the
// table is written once, there.
var Chains = chains()

func chains() map[int64]Chain {
	out := map[int64]Chain{}
	for _, n := range core.Networks() {
		out[n.Chain] = Chain{Name: n.Name, Network: n.Slug}
	}
	return out
}

// ChainIDs returns the ids of Chains in increasing order.
func ChainIDs() []int64 {
	return slices.Sorted(maps.Keys(Chains))
}
