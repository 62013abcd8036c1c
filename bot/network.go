package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/poapbot/poapbot/core"
)

// networkCommand is /drop network: the network a drop mints on, shown or
// set. Discord offers the networks' names as choices; on Telegram and the
// console a chain id may be typed too (core.ParseChain reads both).
func (b *Bot) networkCommand() *Command {
	return &Command{
		Name: "drop network", Description: "Show or set the network a drop mints on", Access: ManageDrops, AnswerInGroup: true,
		Options: []Option{dropOption, {Name: "chain", Type: TextOption, Choices: core.NetworkNames(), MaxLen: 20,
			Description: "the network to mint on from now (default: show the current one)"}},
		Handler: b.dropNetwork,
	}
}

// dropNetwork shows or sets a drop's network.
func (b *Bot) dropNetwork(ctx context.Context, req *Request) (Reply, error) {
	id, err := requiredID(req, "drop")
	if err != nil {
		return Reply{}, err
	}
	res, err := b.networks.Network(ctx, member(req), req.Place, id, req.Text("chain"))
	if err != nil {
		return Reply{}, err
	}
	d := res.Drop
	if res.Requested == 0 {
		return Reply{Personal: true, Text: fmt.Sprintf("%s mints on %s. To change it: %s, with one of %s.",
			dropTitle(d), chainText(d.Chain), codeSpan(fmt.Sprintf("/drop network %d <chain>", d.EventID)), networkList())}, nil
	}
	if d.Chain != res.Requested {
		return Reply{Personal: true, Text: fmt.Sprintf("I asked POAP to mint %s on %s, but POAP says it mints on %s. "+
			"Check with %s in a minute.", dropTitle(d), chainText(res.Requested), chainText(d.Chain),
			codeSpan(fmt.Sprintf("/drop network %d", d.EventID)))}, nil
	}
	return Reply{Personal: true, Text: fmt.Sprintf("%s now mints on %s. New mints go to that network; "+
		"mint links already minted are unaffected: their POAPs stay where they were minted.", dropTitle(d), chainText(d.Chain))}, nil
}

// chainText names a network with its chain id: Gnosis (chain 100).
func chainText(chain int64) string {
	if name, ok := core.ChainName(chain); ok {
		return fmt.Sprintf("%s (chain %d)", name, chain)
	}
	return fmt.Sprintf("chain %d", chain)
}

// networkLine is the Network line of a drop's settings; offered says
// whether /drop network is.
func networkLine(d core.Drop, offered bool) string {
	switch {
	case d.Chain == 0 && offered:
		return "Network: not read yet: " + codeSpan(fmt.Sprintf("/drop network %d", d.EventID)) + "."
	case d.Chain == 0:
		return "Network: not read."
	}
	return "Network: " + chainText(d.Chain) + "."
}

// networkList lists the networks' names as moderators type them.
func networkList() string {
	return strings.Join(core.NetworkNames(), ", ")
}
