package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/poapbot/poapbot/core"
)

// maxSignature is the longest signature /verify takes: 0x and the hex of
// a smart-contract wallet's largest signature, with room for spaces
// around. A key's signature is 0x and 130 hex digits.
const maxSignature = 2*core.MaxContractSignature + 10

func (b *Bot) linkCommand() *Command {
	return &Command{
		Name:        "link",
		Description: "Link your wallet; unverified wallets can receive mints",
		Access:      Members,
		Options: []Option{
			{Name: "wallet", Type: TextOption, Required: true, Description: "0x address, ENS name or e-mail"},
		},
		Handler: b.link,
	}
}

func (b *Bot) verifyCommand() *Command {
	return &Command{
		Name:        "verify",
		Description: "Prove you own the wallet you linked, with the signature of its challenge",
		Access:      Members,
		Options: []Option{
			{Name: "signature", Type: TextOption, Required: true, MaxLen: maxSignature, Description: "the signature your wallet app made (0x…)"},
		},
		Handler: b.verify,
	}
}

// member is the caller as the core knows members.
func member(req *Request) core.Member {
	return core.Member{Platform: req.Place.Platform, ExternalID: req.Caller.ExternalID, Name: req.Caller.Name}
}

// link links a wallet and shows how to prove it.
func (b *Bot) link(ctx context.Context, req *Request) (Reply, error) {
	place := req.Place.Name
	if req.Chat.Private {
		place = ""
	}
	res, err := b.wallets.LinkIn(ctx, member(req), place, req.Text("wallet"))
	if err != nil {
		return Reply{}, err
	}
	reply := Reply{Text: linkedText(res), Personal: true}
	if res.Challenge != nil {
		reply.Text += "\n\n" + b.challengeText(*res.Challenge)
		if b.publicURL != "" {
			reply.Buttons = []Button{{Label: "Verify in your browser", URL: core.VerificationURL(b.publicURL, res.Challenge.Nonce)}}
		}
	}
	return reply, nil
}

// linkedText says what /link did with the wallet.
func linkedText(res core.LinkResult) string {
	w := codeSpan(walletName(res.Wallet))
	var s string
	switch {
	case res.AlreadyLinked && res.Wallet.Verified():
		s = "You linked " + w + " before, and it is verified. Nothing changed."
	case res.AlreadyLinked:
		s = "You linked " + w + " before; nothing was replaced."
	case res.Wallet.Primary:
		s = "Linked " + w + " as your primary wallet."
	default:
		s = "Linked " + w + ". Your primary wallet stays as it was: see /wallet."
	}
	if res.Wallet.Kind == core.KindEmail {
		s += " An e-mail can receive mints (the POAP waits for that address), but it cannot sign a message, " +
			"so it can't be verified and doesn't count for roles or gated groups."
	}
	return s
}

// challengeText shows the challenge message in a code block, so that it can
// be copied exactly, and says how to sign it.
func (b *Bot) challengeText(c core.Challenge) string {
	var s strings.Builder
	s.WriteString("**Prove it's yours** (needed for roles and gated groups; mints work without it):\n")
	s.WriteString("1. Sign this exact message in your wallet app (\"Sign message\", personal_sign):\n")
	s.WriteString("```\n" + c.Message + "\n```\n")
	if m, err := core.ParseSIWE(c.Message); err == nil {
		s.WriteString("Your wallet shows it as a sign-in to " + codeSpan(m.Domain) + ": sign it only there (the button below) " +
			"or in your wallet app. Any other site that asks you to sign it is phishing for your wallet's roles.\n")
	}
	fmt.Fprintf(&s, "2. Send %s here before %s UTC (%d minutes).",
		codeSpan("/verify <signature>"), c.ExpiresAt.UTC().Format("15:04"), int(core.ChallengeTTL.Minutes()))
	if b.publicURL != "" {
		s.WriteString("\nOr press the button below to sign in your browser.")
	}
	return s.String()
}

// verify completes the caller's pending challenge.
func (b *Bot) verify(ctx context.Context, req *Request) (Reply, error) {
	return b.verifyWith(ctx, req, req.Text("signature"))
}

// verifyWith completes the caller's pending challenge with signature.
func (b *Bot) verifyWith(ctx context.Context, req *Request, signature string) (Reply, error) {
	w, err := b.wallets.Verify(ctx, member(req), signature)
	if err != nil {
		return Reply{}, err
	}
	text := "Verified: " + codeSpan(walletName(w)) + " is now proven yours."
	if w.Kind == core.KindENS {
		text = "Verified: " + codeSpan(w.Value) + " is now proven yours, as the address " +
			codeSpan(core.ChecksumAddress(w.Address)) + " that signed."
	}
	return Reply{Text: text + verifiedOn(w), Personal: true}, nil
}

// walletName is how a member reads a wallet: addresses in their EIP-55
// form, names and e-mails as stored.
func walletName(w core.Wallet) string {
	if w.Kind == core.KindAddress {
		return core.ChecksumAddress(w.Value)
	}
	return w.Value
}
