package bot

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/poapbot/poapbot/core"
)

// A /wallet page holds up to walletPageSize wallets, fewer when their
// names are long, so that their lines take at most walletPageChars
// characters: with the heading, a page stays under 1,800, well under
// Discord's 2,000 (Telegram's limit is 4,096), whatever a member linked.
const (
	walletPageSize  = 10
	walletPageChars = 1600
)

func (b *Bot) walletCommand() *Command {
	return &Command{
		Name:        "wallet",
		Description: "Your linked wallets: which is primary, which are verified",
		Access:      Members,
		Options: []Option{
			{Name: "page", Type: IntegerOption, Hidden: true, Description: "page number"},
		},
		Handler: b.walletList,
	}
}

func (b *Bot) unlinkCommand() *Command {
	return &Command{
		Name:        "unlink",
		Description: "Remove a linked wallet, or all of them",
		Access:      Members,
		Options: []Option{
			{Name: "wallet", Type: TextOption, Description: "the wallet to remove (default: all)"},
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

// walletList lists one page of the caller's own wallets; never another
// member's.
func (b *Bot) walletList(ctx context.Context, req *Request) (Reply, error) {
	page, _, err := req.Int("page")
	if err != nil {
		return Reply{}, err
	}
	wallets, err := b.wallets.Wallets(ctx, member(req))
	if err != nil {
		return Reply{}, err
	}
	if len(wallets) == 0 {
		return Reply{Text: "You have no wallet linked. Link one with " + codeSpan("/link <wallet>") + ".", Personal: true}, nil
	}
	lines := make([]string, len(wallets))
	for i, w := range wallets {
		lines[i] = fmt.Sprintf("%d. %s — %s", i+1, codeSpan(walletName(w)), walletState(w))
	}
	pages := pageLines(lines, walletPageSize, walletPageChars)
	n := int(max(page, 1))
	if n > len(pages) {
		return Reply{Text: fmt.Sprintf("You have %s, on %s; there is no page %d.",
			plural(len(wallets), "linked wallet"), plural(len(pages), "page"), n), Personal: true}, nil
	}
	text := walletHeader(len(wallets), b.wallets.Limits().Wallets)
	if len(pages) > 1 {
		text += fmt.Sprintf(" (page %d of %d)", n, len(pages))
	}
	reply := Reply{Text: text + ":\n" + strings.Join(pages[n-1], "\n"), Personal: true}
	if n > 1 {
		reply.Buttons = append(reply.Buttons, Button{Label: "Previous", Command: walletPageCommand(n - 1)})
	}
	if n < len(pages) {
		reply.Buttons = append(reply.Buttons, Button{Label: "Next", Command: walletPageCommand(n + 1)})
	}
	return reply, nil
}

// walletHeader heads the list: how many wallets of the most a member
// links, and, for a member who holds more (linked before the limit), that
// they keep them but link no new one until under it.
func walletHeader(held, limit int) string {
	if held > limit {
		return fmt.Sprintf("**Your wallets**: %d, more than the %d a member can link now. They stay linked; "+
			"to link a new one, %s %d first. Mints go to the primary", held, limit, codeSpan("/unlink"), held-limit+1)
	}
	return fmt.Sprintf("**Your wallets**: %d of at most %d; mints go to the primary", held, limit)
}

func walletPageCommand(page int) string {
	return fmt.Sprintf("/wallet page:%d", page)
}

// pageLines splits lines into pages of at most size lines and, past the
// first line of a page, at most chars characters (line breaks included).
func pageLines(lines []string, size, chars int) [][]string {
	var pages [][]string
	var page []string
	used := 0
	for _, l := range lines {
		n := utf8.RuneCountInString(l) + 1
		if len(page) > 0 && (len(page) == size || used+n > chars) {
			pages, page, used = append(pages, page), nil, 0
		}
		page, used = append(page, l), used+n
	}
	return append(pages, page)
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
