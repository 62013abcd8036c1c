// Package wire is the issuing service's contract (with its token service,
// Moments and Compass) as both the client (poap) and the sandbox
// (poap/sandbox) speak it: operation names, supported chains, the limits the
// interface states (a drop's, the token service's), and wire shapes, the
// JSON bodies both sides write or read. Each fact is written here once, so the client
// and the fake it is tested against cannot drift apart; the sandbox cannot
// import the client, whose tests import the sandbox.
//
// Operation names (OpScan...) are one per upstream operation: the client
// reports its requests under them (poap.Observer, its debug log,
// poap.APIError.Operation) and the sandbox counts the requests it gets under
// them (sandbox.Server.Requests). They are metric labels: stable, snake_case.
//
// The package holds facts, not behaviour: how leniently the client reads an
// answer, and how strictly the sandbox checks a request, stay with each of
// them; the client may read a wire shape into a struct that embeds it and
// adds the older forms it still accepts. The supported chains are the
// core's table of networks, which the bot's commands share. Sources:
// https://documentation.poap.tech and what production answers where the two
// differ.
package wire
