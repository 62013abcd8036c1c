package bot

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/poapbot/poapbot/core"
)

// pageSize is how many POAPs one /poaps reply shows.
const pageSize = 10

func (b *Bot) poapsCommand() *Command {
	return &Command{
		Name:        "poaps",
		Description: "POAPs held by a wallet or a member, newest first",
		Access:      Members,
		Options: []Option{
			{Name: "wallet", Type: TextOption, Description: "0x address, ENS name or e-mail (default: your own wallet)"},
			{Name: "member", Type: MemberOption, Description: "a member whose linked wallet to show"},
			{Name: "page", Type: IntegerOption, Hidden: true, Description: "page number"},
		},
		Handler: b.poaps,
	}
}

// poaps shows one page of a collection.
func (b *Bot) poaps(ctx context.Context, req *Request) (Reply, error) {
	page, _, err := req.Int("page")
	if err != nil {
		return Reply{}, err
	}
	q := core.CollectionQuery{Wallet: strings.TrimSpace(req.Text("wallet")), MemberExternalID: req.Text("member")}
	if name, ok := strings.CutPrefix(q.Wallet, "@"); ok {
		q.Wallet, q.MemberName = "", name
	}
	coll, err := b.collections.Collection(ctx, req.Place.Platform, req.Caller.ExternalID, q)
	if err != nil {
		return Reply{}, err
	}
	return renderCollection(coll, int(max(page, 1))), nil
}

// renderCollection renders one page of a collection with paging buttons.
func renderCollection(c core.Collection, page int) Reply {
	total := len(c.Holdings)
	if total == 0 {
		return Reply{Personal: true, Text: codeSpan(c.Wallet) + " holds no POAPs yet. " +
			"Check the address for a typo, or collect one at the next event!"}
	}
	pages := (total + pageSize - 1) / pageSize
	if page > pages {
		return Reply{Personal: true, Text: fmt.Sprintf("%s holds %d POAPs, on %d pages; there is no page %d.",
			codeSpan(c.Wallet), total, pages, page)}
	}
	first := (page - 1) * pageSize
	shown := c.Holdings[first:min(first+pageSize, total)]

	var s strings.Builder
	fmt.Fprintf(&s, "**POAPs of %s**: %d, newest first", codeSpan(c.Wallet), total)
	if pages > 1 {
		fmt.Fprintf(&s, " (page %d of %d)", page, pages)
	}
	s.WriteString("\n")
	for i, h := range shown {
		fmt.Fprintf(&s, "%d. %s\n", first+i+1, holdingLine(h))
	}
	reply := Reply{Text: strings.TrimRight(s.String(), "\n"), Personal: true, Pictures: pictures(shown)}
	if page > 1 {
		reply.Buttons = append(reply.Buttons, Button{Label: "Previous", Command: pageCommand(c.Wallet, page-1)})
	}
	if page < pages {
		reply.Buttons = append(reply.Buttons, Button{Label: "Next", Command: pageCommand(c.Wallet, page+1)})
	}
	return reply
}

// pictures are the POAPs' images, small, captioned with the drop's name
// and id.
func pictures(hs []core.Holding) []Picture {
	var out []Picture
	for _, h := range hs {
		img := smallImage(h.ImageURL)
		if img == "" || len(out) == MaxPictures {
			continue
		}
		name := strings.TrimSpace(h.DropName)
		if name == "" {
			name = "Drop " + strconv.FormatInt(h.DropID, 10)
		}
		out = append(out, Picture{URL: img, Caption: name + " (#" + strconv.FormatInt(h.DropID, 10) + ")"})
	}
	return out
}

// holdingLine renders one POAP: name, drop id, chain, minted date, image.
func holdingLine(h core.Holding) string {
	name := strings.TrimSpace(h.DropName)
	if name == "" {
		name = "Drop " + strconv.FormatInt(h.DropID, 10)
	}
	parts := []string{"**" + Escape(name) + "**", "drop #" + strconv.FormatInt(h.DropID, 10), chainName(h.Chain)}
	if h.MintedAt.IsZero() {
		parts = append(parts, "mint date unknown")
	} else {
		parts = append(parts, "minted "+h.MintedAt.UTC().Format("2006-01-02"))
	}
	if img := smallImage(h.ImageURL); img != "" {
		parts = append(parts, "[image]("+img+")")
	}
	return strings.Join(parts, " · ")
}

func pageCommand(wallet string, page int) string {
	return fmt.Sprintf("/poaps wallet:%s page:%d", wallet, page)
}

// smallImage asks the image service for the 128 px rendition.
func smallImage(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return ""
	}
	q := u.Query()
	q.Set("size", "small")
	u.RawQuery = q.Encode()
	return u.String()
}

// chainName turns the issuing service's chain names into the ones members
// know.
func chainName(chain string) string {
	switch strings.ToLower(chain) {
	case "homestead", "mainnet", "ethereum":
		return "Ethereum"
	case "xdai", "gnosis":
		return "Gnosis"
	case "matic", "polygon":
		return "Polygon"
	case "arbitrum-one", "arbitrum":
		return "Arbitrum"
	case "":
		return "chain unknown"
	}
	return strings.ToUpper(chain[:1]) + chain[1:]
}
