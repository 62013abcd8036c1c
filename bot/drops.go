package bot

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
)

// Limits of the drop options, in characters.
const (
	// MaxCodeword is the longest codeword a drop may have.
	MaxCodeword = 64
	maxDateTime = 40
)

// dropOption is the drop id option of the /drop subcommands.
var dropOption = Option{Name: "drop", Type: IntegerOption, Required: true, Description: "the drop's id (see /drop list)"}

// dropCommands are the /drop commands, with those of the services the bot
// was given: /drop website, /drop network and /drop deliver are offered only
// with theirs.
func (b *Bot) dropCommands() []*Command {
	cmds := []*Command{
		{
			Name: "drop add", Description: "Set up a drop here: checks its edit code and imports its mint links", Access: ManageDrops, AnswerInGroup: true,
			Options: []Option{
				{Name: "event", Type: IntegerOption, Required: true, Description: "the drop's id at POAP"},
				{Name: "edit_code", Type: TextOption, Required: true, MaxLen: 16, Secret: true, Description: "the drop's 6-digit edit code"},
				{Name: "delivery", Type: TextOption, Choices: []string{"auto", "link", "mint", "website"},
					Description: "auto: mint to a wallet, else a link (default); link; mint; website: via its website claim"},
				{Name: "website", Type: TextOption, MaxLen: core.MaxWebsiteName,
					Description: "with delivery:website, the drop's website claim name (the end of its poap.website address)"},
				{Name: "starts", Type: DateTimeOption, MaxLen: maxDateTime, Description: "claims open at, UTC: 2026-12-01 18:00 (default: now)"},
				{Name: "ends", Type: DateTimeOption, MaxLen: maxDateTime, Description: "claims close at, UTC: 2026-12-02 18:00 (default: never)"},
				{Name: "codeword", Type: TextOption, MaxLen: MaxCodeword, Confidential: true, Description: "a word members must give to claim"},
				{Name: "required_role", Type: RoleOption, Description: "the role members need to claim"},
				{Name: "low_stock", Type: IntegerOption, Description: fmt.Sprintf("tell moderators where the drop is posted when fewer links are left (default %d, 0: never)", core.DefaultLowStock)},
			},
			Handler: b.dropAdd,
		},
		{Name: "drop list", Description: "The drops set up here, with their stock", Access: ManageDrops, AnswerInGroup: true, Handler: b.dropList},
		{Name: "drop info", Description: "A drop's settings and stock", Access: ManageDrops, Options: []Option{dropOption}, Handler: b.dropInfo},
		{Name: "drop refresh", Description: "Re-import a drop's mint links (after a top-up is approved)", Access: ManageDrops, AnswerInGroup: true,
			Options: []Option{dropOption}, Handler: b.dropRefresh},
		{Name: "drop topup", Description: "Ask POAP for more mint links", Access: ManageDrops, AnswerInGroup: true,
			Options: []Option{dropOption, {Name: "count", Type: IntegerOption, Description: fmt.Sprintf("how many links (default %d)", core.DefaultTopUp)}},
			Handler: b.dropTopUp},
		{Name: "drop export", Description: "CSV of the links handed out: link, member, wallet, state, time", Access: ManageDrops,
			Options: []Option{dropOption}, Handler: b.dropExport},
		b.dropEditCommand(),
		{Name: "drop remove", Description: "Stop handing out a drop's links; adding it again keeps who got which link", Access: ManageDrops, AnswerInGroup: true,
			Options: []Option{dropOption}, Handler: b.dropRemove},
	}
	if b.websites != nil {
		cmds = append(cmds, b.websiteCommand())
	}
	if b.networks != nil {
		cmds = append(cmds, b.networkCommand())
	}
	if b.deliveries != nil {
		cmds = append(cmds, b.deliverCommand())
	}
	return cmds
}

// dropAdd registers a drop. The edit code goes to the core as a Secret and
// appears in no reply nor log line.
func (b *Bot) dropAdd(ctx context.Context, req *Request) (Reply, error) {
	opts, err := addDropOptions(req)
	if err != nil {
		return Reply{}, err
	}
	st, err := b.drops.AddDrop(ctx, member(req), req.Place, opts)
	if err != nil {
		return Reply{}, err
	}
	d := st.Drop
	var s strings.Builder
	if st.Again {
		fmt.Fprintf(&s, "%s is set up here again: members who were given a link before get the same one back.\n", dropTitle(d))
	} else {
		fmt.Fprintf(&s, "%s is set up here.\n", dropTitle(d))
	}
	s.WriteString(stockLine(st.Stock) + "\n")
	// An anonymous administrator's answer is read by the whole group.
	s.WriteString(settingsText(d, req.Caller.Anonymous, b.networks != nil))
	switch {
	case d.Method == core.ClaimWebsite:
		fmt.Fprintf(&s, "\nMembers claim with %s: I mint to their primary wallet through the website claim, one each.", codeSpan(fmt.Sprintf("/claim %d", d.EventID)))
	case st.Stock.Available == 0:
		fmt.Fprintf(&s, "\nIt has no mint links to hand out yet: ask POAP for some with %s.", codeSpan(fmt.Sprintf("/drop topup %d", d.EventID)))
	default:
		fmt.Fprintf(&s, "\nMembers claim with %s.", codeSpan(fmt.Sprintf("/claim %d", d.EventID)))
	}
	return Reply{Text: s.String(), Personal: true, Image: d.ImageURL}, nil
}

// addDropOptions reads the options of /drop add.
func addDropOptions(req *Request) (core.AddDropOptions, error) {
	event, err := requiredID(req, "event")
	if err != nil {
		return core.AddDropOptions{}, err
	}
	code := strings.TrimSpace(req.Text("edit_code"))
	if code == "" {
		return core.AddDropOptions{}, &OptionError{Option: "edit_code", Reason: "is required: the 6-digit code POAP e-mailed when the drop was created"}
	}
	opts := core.AddDropOptions{EventID: event, EditCode: core.Secret(code), Codeword: codewordOption(req), RequiredRole: requiredRole(req)}
	if opts.Method, opts.Website, err = methodOptions(req); err != nil {
		return core.AddDropOptions{}, err
	}
	if opts.Starts, err = timeOption(req, "starts"); err != nil {
		return core.AddDropOptions{}, err
	}
	if opts.Ends, err = timeOption(req, "ends"); err != nil {
		return core.AddDropOptions{}, err
	}
	if opts.LowStock, err = lowStockOption(req); err != nil {
		return core.AddDropOptions{}, err
	}
	return opts, nil
}

// methodOptions reads the claim method (the option delivery) and website
// as /drop add and /drop edit take them: a website claim's name goes with
// delivery:website, and only with it.
func methodOptions(req *Request) (core.ClaimMethod, string, error) {
	d := core.ClaimMethod(strings.ToLower(strings.TrimSpace(req.Text("delivery"))))
	switch d {
	case "", core.ClaimAuto, core.ClaimLink, core.ClaimMint, core.ClaimWebsite:
	default:
		return "", "", &OptionError{Option: "delivery", Reason: "must be auto, link, mint or website"}
	}
	website := strings.TrimSpace(req.Text("website"))
	switch {
	case d == core.ClaimWebsite && website == "":
		return "", "", &OptionError{Option: "website", Reason: "is required with delivery:website: the drop's website claim name. " +
			"A drop without one can ask POAP for it with /drop website once it is set up here"}
	case d != core.ClaimWebsite && website != "":
		return "", "", &OptionError{Option: "website", Reason: "goes with delivery:website only"}
	}
	return d, website, nil
}

// codewordOption reads codeword: none is no codeword.
func codewordOption(req *Request) string {
	if s := req.Text("codeword"); !isNone(s) {
		return s
	}
	return ""
}

// requiredRole reads required_role: none, or the role every member has
// where there is one (Discord's @everyone, whose id is the server's), is
// no role.
func requiredRole(req *Request) string {
	s := req.Text("required_role")
	if isNone(s) {
		return ""
	}
	id := roleID(s)
	if req.Caps.EveryoneRole && id == req.Place.ExternalID {
		return ""
	}
	return id
}

// lowStockOption reads low_stock as AddDropOptions.LowStock takes it: not
// given is zero (the default), 0 is negative (never).
func lowStockOption(req *Request) (int, error) {
	n, ok, err := req.Int("low_stock")
	switch {
	case err != nil:
		return 0, err
	case !ok:
		return 0, nil
	case n < 0 || n > math.MaxInt32:
		return 0, &OptionError{Option: "low_stock", Reason: "must be a number of links, 0 or more (0: never tell)"}
	case n == 0:
		return -1, nil
	}
	return int(n), nil
}

// roleID reads a role as typed: an id, or a Discord mention <@&id>.
func roleID(s string) string {
	s = strings.TrimSpace(s)
	if id, ok := strings.CutPrefix(s, "<@&"); ok {
		return strings.TrimSuffix(id, ">")
	}
	return s
}

// timeLayouts are the ways starts and ends may be written; those without a
// zone are UTC.
var timeLayouts = []string{time.RFC3339, "2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02"}

// timeOption reads a time option, or nil when it was not given or is none.
func timeOption(req *Request, name string) (*time.Time, error) {
	s := strings.TrimSpace(req.Text(name))
	if s == "" || isNone(s) {
		return nil, nil
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.UTC()
			return &t, nil
		}
	}
	return nil, &OptionError{Option: name, Reason: "must be a date and time in UTC like 2026-12-01 18:00, or with its zone like 2026-12-01T18:00:00+01:00"}
}

// requiredID reads a required drop id option.
func requiredID(req *Request, name string) (int64, error) {
	id, ok, err := req.Int(name)
	switch {
	case err != nil:
		return 0, err
	case !ok:
		return 0, &OptionError{Option: name, Reason: "is required: give the drop's id, a number"}
	case id <= 0:
		return 0, &OptionError{Option: name, Reason: "must be a drop id, a number above 0"}
	}
	return id, nil
}

// dropList lists the place's drops with their stock.
func (b *Bot) dropList(ctx context.Context, req *Request) (Reply, error) {
	drops, err := b.drops.ListDrops(ctx, req.Place)
	if err != nil {
		return Reply{}, err
	}
	if len(drops) == 0 {
		return Reply{Personal: true, Text: "No drops are set up here yet. Add one with " + codeSpan("/drop add <event> <edit_code>") + "."}, nil
	}
	var s strings.Builder
	s.WriteString("**Drops here**\n")
	for _, st := range drops {
		fmt.Fprintf(&s, "• %s — claim method: %s · %d of %d left · %d handed out · %d minted\n",
			dropTitle(st.Drop), st.Drop.Method, st.Stock.Available, st.Stock.Total, st.Stock.HandedOut, st.Stock.Minted)
	}
	s.WriteString("Details: " + codeSpan("/drop info <drop>") + ".")
	return Reply{Personal: true, Text: s.String()}, nil
}

// dropInfo shows a drop's settings and what applies to its claim method.
func (b *Bot) dropInfo(ctx context.Context, req *Request) (Reply, error) {
	id, err := requiredID(req, "drop")
	if err != nil {
		return Reply{}, err
	}
	st, err := b.drops.DropInfo(ctx, req.Place, id)
	if err != nil {
		return Reply{}, err
	}
	return Reply{Personal: true, Text: dropInfoText(st, b.networks != nil), Image: st.Drop.ImageURL}, nil
}

// dropInfoText words a drop's settings and what applies to its claim method:
// the mint links' stock where members get or are minted through links, the
// website claim of a website drop, the delivery of a delivery drop;
// networks says whether /drop network is offered.
func dropInfoText(st core.DropStatus, networks bool) string {
	d := st.Drop
	text := dropTitle(d) + "\n"
	if d.Method != core.ClaimWebsite && d.Method != core.ClaimDelivery {
		text += stockLine(st.Stock) + "\n"
	}
	text += settingsText(d, false, networks)
	if st.Website != nil {
		text += "\n" + websiteText(d, *st.Website)
	}
	if st.Delivery != nil {
		text += "\n" + deliveryInfoText(*st.Delivery)
	}
	if d.RemovedAt != nil {
		text += "\nStopped on " + when(*d.RemovedAt) + ": no more links are handed out."
	}
	return text
}

// dropRefresh re-imports a drop's links.
func (b *Bot) dropRefresh(ctx context.Context, req *Request) (Reply, error) {
	id, err := requiredID(req, "drop")
	if err != nil {
		return Reply{}, err
	}
	r, err := b.drops.RefreshDrop(ctx, member(req), req.Place, id)
	if err != nil {
		return Reply{}, err
	}
	text := fmt.Sprintf("Imported %s for %s", plural(r.Added, "new mint link"), dropTitle(r.Drop))
	if r.Marked > 0 {
		text += fmt.Sprintf("; %s turned out claimed elsewhere and were set aside", plural(r.Marked, "link"))
	}
	text += ".\n" + stockLine(r.Stock)
	return Reply{Personal: true, Text: text}, nil
}

// dropTopUp asks POAP for more links.
func (b *Bot) dropTopUp(ctx context.Context, req *Request) (Reply, error) {
	id, err := requiredID(req, "drop")
	if err != nil {
		return Reply{}, err
	}
	count, given, err := req.Int("count")
	if err != nil {
		return Reply{}, err
	}
	if given && (count < 1 || count > core.MaxTopUp) {
		return Reply{}, &OptionError{Option: "count", Reason: fmt.Sprintf("must be between 1 and %d", core.MaxTopUp)}
	}
	d, n, err := b.drops.TopUp(ctx, member(req), req.Place, id, int(count))
	if err != nil {
		return Reply{}, err
	}
	return Reply{Personal: true, Text: fmt.Sprintf("Asked POAP for %s for %s. POAP reviews each request, which can take a day; "+
		"once it is approved, run %s to import them.", plural(n, "more mint link"), dropTitle(d), codeSpan(fmt.Sprintf("/drop refresh %d", d.EventID)))}, nil
}

// dropExport sends the CSV of the links handed out.
func (b *Bot) dropExport(ctx context.Context, req *Request) (Reply, error) {
	id, err := requiredID(req, "drop")
	if err != nil {
		return Reply{}, err
	}
	d, rows, err := b.drops.Export(ctx, member(req), req.Place, id)
	if err != nil {
		return Reply{}, err
	}
	data, err := exportCSV(b.links, rows)
	if err != nil {
		return Reply{}, err
	}
	file := &File{Name: fmt.Sprintf("drop-%d-links.csv", d.EventID), ContentType: "text/csv", Data: data}
	text := fmt.Sprintf("Export of %s: %s that left the pool (handed out, minted or claimed elsewhere). "+
		"Members appear by a pseudonymous id, never their account.", dropTitle(d), plural(len(rows), "link"))
	return Reply{Personal: true, Text: text, File: file}, nil
}

// exportCSV writes the export: link, member, wallet, state, time (RFC 3339,
// UTC).
func exportCSV(links *core.MintLinkService, rows []core.ExportRow) ([]byte, error) {
	records := [][]string{{"link", "member", "wallet", "state", "time"}}
	for _, r := range rows {
		at := ""
		if !r.At.IsZero() {
			at = r.At.UTC().Format(time.RFC3339)
		}
		records = append(records, []string{links.MintURL(r.QRHash), r.Member, r.Wallet, string(r.State), at})
	}
	return writeCSV(records)
}

// writeCSV writes the records of an export, each field kept from being
// read as a formula (cell).
func writeCSV(records [][]string) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	for _, r := range records {
		for i := range r {
			r[i] = cell(r[i])
		}
	}
	if err := w.WriteAll(records); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return buf.Bytes(), nil
}

// cell keeps a value from being read as a formula by a spreadsheet (an
// e-mail may start with "+" or "="), with a leading apostrophe.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// dropRemove stops a drop.
func (b *Bot) dropRemove(ctx context.Context, req *Request) (Reply, error) {
	id, err := requiredID(req, "drop")
	if err != nil {
		return Reply{}, err
	}
	d, err := b.drops.RemoveDrop(ctx, member(req), req.Place, id)
	if err != nil {
		return Reply{}, err
	}
	return Reply{Personal: true, Text: fmt.Sprintf("Stopped %s: no more links are handed out. Links already given out stay valid at POAP, "+
		"and stay with their members: adding the drop here again with %s gives each member the same link back, never a second one. "+
		"To change its window, codeword, role or claim method, %s does it in place.",
		dropTitle(d), codeSpan(fmt.Sprintf("/drop add %d <edit_code>", d.EventID)), codeSpan(fmt.Sprintf("/drop edit %d", d.EventID)))}, nil
}
