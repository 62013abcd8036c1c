package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/poapbot/poapbot/core"
)

func (b *Bot) walletCommand() *Command {
	return &Command{
		Name:        "wallet",
		Description: "Your linked wallets: which is primary, which are verified",
		Access:      Members,
		Handler:     b.walletList,
	}
}

func (b *Bot) unlinkCommand() *Command {
	return &Command{
		Name:        "unlink",
		Description: "Remove a linked wallet, or all of them",
		Access:      Members,
		Options: []Option{
			{Name: "wallet", Type: String, Description: "the wallet to remove (default: all)"},
		},
		Handler: b.unlink,
	}
}

func (b *Bot) forgetCommand() *Command {
	return &Command{
		Name:        "forget",
		Description: "Delete everything the bot stores about you",
		Access:      Members,
		Handler:     b.forget,
	}
}

// walletList lists the caller's own wallets; never another member's.
func (b *Bot) walletList(ctx context.Context, req *Request) (Reply, error) {
	wallets, err := b.wallets.Wallets(ctx, member(req))
	if err != nil {
		return Reply{}, err
	}
	if len(wallets) == 0 {
		return Reply{Text: "You have no wallet linked. Link one with " + codeSpan("/link <wallet>") + ".", Personal: true}, nil
	}
	var s strings.Builder
	s.WriteString("**Your wallets** (mints go to the primary):\n")
	for i, w := range wallets {
		fmt.Fprintf(&s, "%d. %s — %s\n", i+1, codeSpan(walletName(w)), walletState(w))
	}
	return Reply{Text: strings.TrimRight(s.String(), "\n"), Personal: true}, nil
}

// walletState says whether a wallet is primary and verified.
func walletState(w core.Wallet) string {
	var marks []string
	if w.Primary {
		marks = append(marks, "primary")
	}
	switch {
	case w.Kind == core.KindEmail:
		marks = append(marks, "e-mail: receives mints, cannot be verified")
	case w.Verified() && w.Kind == core.KindENS:
		marks = append(marks, "verified as "+codeSpan(core.ChecksumAddress(w.Address)))
	case w.Verified():
		marks = append(marks, "verified")
	default:
		marks = append(marks, "not verified: "+codeSpan("/link")+" it again for a challenge")
	}
	return strings.Join(marks, " · ")
}

// unlink removes one wallet or all of them.
func (b *Bot) unlink(ctx context.Context, req *Request) (Reply, error) {
	u, err := b.wallets.Unlink(ctx, member(req), req.Text("wallet"))
	if err != nil {
		return Reply{}, err
	}
	names := make([]string, len(u.Removed))
	for i, w := range u.Removed {
		names[i] = codeSpan(walletName(w))
	}
	text := "Unlinked " + strings.Join(names, ", ") + "."
	if u.NewPrimary != nil {
		text += " " + codeSpan(walletName(*u.NewPrimary)) + " is now your primary wallet."
	}
	return Reply{Text: text, Personal: true}, nil
}

// forget deletes the caller's data and says what went.
func (b *Bot) forget(ctx context.Context, req *Request) (Reply, error) {
	f, err := b.wallets.Forget(ctx, member(req))
	if err != nil {
		return Reply{}, err
	}
	if f.User.ID == 0 {
		return Reply{Text: "I had nothing stored about you, so there was nothing to delete.", Personal: true}, nil
	}
	text := fmt.Sprintf("Done: I deleted everything I stored about you: your profile, %s and %s. "+
		"The audit log only notes that a member was forgotten, without naming you.",
		plural(len(f.Wallets), "linked wallet"), plural(f.Challenges, "ownership challenge"))
	return Reply{Text: text, Personal: true}, nil
}

// plural writes "1 wallet", "2 wallets".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
