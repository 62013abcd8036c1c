package wire

import (
	"maps"
	"slices"
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
const DefaultChain = 100

// Chains are the networks a drop can mint on, by chain id: the values
// supported_mint_blockchains of a drop's minting configuration takes. Each
// drop mints on one of them; mainnet (1) is not offered.
var Chains = map[int64]Chain{
	100:   {Name: "Gnosis", Network: "xdai"},
	130:   {Name: "Unichain", Network: "unichain"},
	137:   {Name: "Polygon", Network: "matic"},
	5000:  {Name: "Mantle", Network: "mantle"},
	8453:  {Name: "Base", Network: "base"},
	33139: {Name: "Apechain", Network: "apechain"},
	42161: {Name: "Arbitrum", Network: "arbitrum-one"},
	42220: {Name: "Celo", Network: "celo"},
	59144: {Name: "Linea", Network: "linea"},
	88888: {Name: "Chiliz", Network: "chiliz"},
}

// ChainIDs returns the ids of Chains in increasing order.
func ChainIDs() []int64 {
	return slices.Sorted(maps.Keys(Chains))
}
