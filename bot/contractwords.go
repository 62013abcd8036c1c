package bot

import (
	"errors"

	"github.com/poapbot/poapbot/core"
)

// contractText words the refusals of a signature checked on a chain, for
// smart-contract wallets: a chain that did not answer (nothing counted
// against the member) and a signature that no contract and no key made.
func contractText(err error) (string, bool) {
	var chainErr *core.ChainError
	var sigErr *core.SignatureError
	switch {
	case errors.Is(err, core.ErrChallengeLocked):
		return "", false
	case errors.Is(err, core.ErrTooManyChainChecks):
		return "You've sent many signatures for me to check with smart-contract wallets in a short time. " +
			"Nothing was counted against you: wait a few minutes, then try " + codeSpan("/verify") + " again.", true
	case errors.Is(err, core.ErrChainsNotConfigured) && !errors.As(err, &sigErr):
		return "That looks like a smart-contract wallet's signature (a Safe, a Coinbase Smart Wallet, a passkey wallet), " +
			"and this bot can't check those: its operator hasn't set CHAIN_RPC_URLS. Nothing was counted against you. " +
			"If your wallet is an ordinary one, sign the message from the code block again and send its signature " +
			"(0x followed by 130 hex characters) with " + codeSpan("/verify") + ".", true
	case errors.As(err, &chainErr):
		return "I could not reach " + core.ChainTitle(chainErr.Chain) + " to check your smart wallet's signature. " +
			"Nothing was counted against you: try " + codeSpan("/verify") + " again in a minute.", true
	case !errors.As(err, &sigErr):
		return "", false
	case sigErr.Recovered == "":
		want := codeSpan(core.ChecksumAddress(sigErr.Want))
		return "That signature wasn't accepted for " + want + ": no key made it, and no smart-contract wallet at that address " +
			"on the networks this bot checks accepts it. Sign the message from the code block with " + want + ".", true
	}
	return "", false
}

// mismatchHint follows the words of a signature by another key when no
// chain is configured: a smart-contract wallet cannot be checked yet.
func mismatchHint(err error, want string) string {
	if !errors.Is(err, core.ErrChainsNotConfigured) {
		return ""
	}
	return " If " + want + " is a smart-contract wallet (a Safe, a Coinbase Smart Wallet), this bot can't check its signature: " +
		"smart-contract wallets need the bot's operator to set CHAIN_RPC_URLS."
}

// verifiedOn says which network proved a smart-contract wallet's
// signature, for the verification reply; empty for a key's signature.
func verifiedOn(w core.Wallet) string {
	if w.VerifiedChain == 0 {
		return ""
	}
	return " Verified on " + core.ChainTitle(w.VerifiedChain) + ", where your smart wallet accepted the signature."
}
