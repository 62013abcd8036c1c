package core

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Network is a network a drop can mint on: one of the values of a drop's
// minting configuration at the issuing service.
type Network struct {
	// Chain is the network's chain id.
	Chain int64
	// Name is its display name ("Gnosis").
	Name string
	// Slug is its short name as the issuing service's scans name the
	// network of a POAP (Holding.Chain: "xdai"). Moderators may type it,
	// as they may type the name.
	Slug string
}

// networks are the networks a drop can mint on, in the order commands list
// them (by name). Each drop mints on one of them; mainnet (1) is not
// offered.
var networks = []Network{
	{Chain: 33139, Name: "Apechain", Slug: "apechain"},
	{Chain: 42161, Name: "Arbitrum", Slug: "arbitrum-one"},
	{Chain: 8453, Name: "Base", Slug: "base"},
	{Chain: 42220, Name: "Celo", Slug: "celo"},
	{Chain: 88888, Name: "Chiliz", Slug: "chiliz"},
	{Chain: 100, Name: "Gnosis", Slug: "xdai"},
	{Chain: 59144, Name: "Linea", Slug: "linea"},
	{Chain: 5000, Name: "Mantle", Slug: "mantle"},
	{Chain: 137, Name: "Polygon", Slug: "matic"},
	{Chain: 130, Name: "Unichain", Slug: "unichain"},
}

// Networks returns the networks a drop can mint on, ordered by name.
func Networks() []Network { return slices.Clone(networks) }

// NetworkNames returns the lower-case names of the networks, ordered: the
// words commands offer.
func NetworkNames() []string {
	names := make([]string, len(networks))
	for i, n := range networks {
		names[i] = strings.ToLower(n.Name)
	}
	return names
}

// ChainName returns the display name of the network of chain id chain, and
// false when no drop can mint on that chain.
func ChainName(chain int64) (string, bool) {
	for _, n := range networks {
		if n.Chain == chain {
			return n.Name, true
		}
	}
	return "", false
}

// ParseChain reads a network as a moderator names it: its name or its
// slug in any case ("base", "Gnosis", "xdai"), or its chain id ("8453").
// Anything else is an error wrapping ErrUnknownChain that lists the names
// accepted.
func ParseChain(s string) (int64, error) {
	word := strings.ToLower(strings.TrimSpace(s))
	for _, n := range networks {
		if word == strings.ToLower(n.Name) || word == n.Slug || word == strconv.FormatInt(n.Chain, 10) {
			return n.Chain, nil
		}
	}
	return 0, fmt.Errorf("%w %s: use one of %s, or its chain id", ErrUnknownChain, quote(s), strings.Join(NetworkNames(), ", "))
}

// ErrUnknownChain means a network the drop cannot mint on, inside a
// *DropError.
var ErrUnknownChain = errors.New("unknown network")

// DefaultChain is the chain id of the network a drop mints on unless set
// otherwise (Gnosis).
const DefaultChain = 100
