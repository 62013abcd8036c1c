package bot

import (
	"context"
	"errors"
	"strings"
)

// DemoSigner signs challenges with the sandbox's published demo keys. The
// process gives the bot one only under -sandbox with the console
// (poap/sandbox.Signer), so that bot imports no sandbox.
type DemoSigner interface {
	// Wallets returns the wallets it signs for, as members type them.
	Wallets() []string
	// Sign signs message (EIP-191 personal_sign) with the key of wallet,
	// an address or a name; it reports false for a wallet it has no key
	// of.
	Sign(wallet, message string) (signature string, ok bool)
}

// ErrNotDemoWallet means /sign was asked to sign for a wallet that is not
// one of the sandbox's demo wallets.
var ErrNotDemoWallet = errors.New("not a sandbox demo wallet")

func (b *Bot) signCommand() *Command {
	return &Command{
		Name:        "sign",
		Description: "Sign your pending challenge with the sandbox demo wallet's published test key",
		Access:      Members,
		Console:     true,
		Handler:     b.sign,
	}
}

// sign signs the caller's pending challenge with the demo key of the
// wallet it is for, then verifies it as /verify does.
func (b *Bot) sign(ctx context.Context, req *Request) (Reply, error) {
	c, err := b.wallets.Pending(ctx, member(req))
	if err != nil {
		return Reply{}, err
	}
	wallet := c.Address
	if wallet == "" {
		wallet = c.Wallet
	}
	signature, ok := b.signer.Sign(wallet, c.Message)
	if !ok {
		return Reply{}, ErrNotDemoWallet
	}
	return b.verifyWith(ctx, req, signature)
}

// notDemoText refuses /sign for a wallet the signer has no key of.
func notDemoText(s DemoSigner) string {
	var names []string
	if s != nil {
		for _, w := range s.Wallets() {
			names = append(names, codeSpan(w))
		}
	}
	return "/sign signs only for the sandbox's demo wallets: " + strings.Join(names, ", ") +
		"; sign other wallets in your wallet app and send " + codeSpan("/verify <signature>") + "."
}
