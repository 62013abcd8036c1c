package bot

import (
	"encoding/csv"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// demoDrop is the sandbox's demo drop as /drop add takes it.
var demoDrop = fmt.Sprintf("/drop add %d %s", sandbox.DemoLinksDropID, sandbox.DemoEditCode)

// TestBot_Drop_Refusals is the acceptance table: a wrong edit code, a
// non-moderator running /drop add, a claim before and after the window, a
// wrong codeword and a member without the required role each get their own
// clear message.
func TestBot_Drop_Refusals(t *testing.T) {
	t.Parallel()
	eachDropEnv(t, func(t *testing.T, e *dropEnv) {
		open, openCode := e.createDrop(t, "Gated drop", 5)
		wantText(t, e.mod(t, fmt.Sprintf("/drop add %d %s delivery:link codeword:Sesame required_role:<@&42>", open, openCode)), "is set up here")
		early, earlyCode := e.createDrop(t, "Early drop", 5)
		wantText(t, e.mod(t, fmt.Sprintf(`/drop add %d %s starts:"2026-11-22 18:00"`, early, earlyCode)), "from 2026-11-22 at 18:00 UTC")
		late, lateCode := e.createDrop(t, "Late drop", 5)
		wantText(t, e.mod(t, fmt.Sprintf("/drop add %d %s ends:2026-11-22T17:30:00Z", late, lateCode)), "open until 2026-11-22 at 17:30 UTC")

		tests := []struct {
			name, who string
			mod       bool
			line      string
			roles     []string
			before    time.Duration
			want      string
			outcome   string
		}{
			{"WrongEditCode", "mod", true, fmt.Sprintf("/drop add %d 000000", sandbox.DemoLinksDropID), nil, 0,
				"POAP refused that edit code for drop `197001`, so nothing was stored", "user_error"},
			{"NotModerator", "alice", false, demoDrop, nil, 0, "Only moderators can run `/drop add` here.", "forbidden"},
			{"BeforeWindow", "alice", false, fmt.Sprintf("/claim %d", early), nil, 0,
				"opens for claims on 2026-11-22 at 18:00 UTC. Come back then!", "user_error"},
			{"AfterWindow", "alice", false, fmt.Sprintf("/claim %d", late), nil, 45 * time.Minute,
				"closed on 2026-11-22 at 17:30 UTC", "user_error"},
			{"NoCodeword", "alice", false, fmt.Sprintf("/claim %d", open), []string{"42"}, 0,
				"needs a codeword, which the organisers share", "user_error"},
			{"WrongCodeword", "alice", false, fmt.Sprintf("/claim %d open", open), []string{"42"}, 0,
				"That is not the codeword of **Gated drop**", "user_error"},
			{"MissingRole", "alice", false, fmt.Sprintf("/claim %d sesame", open), []string{"7"}, 0,
				"is only for members with the role or group `42`", "user_error"},
		}
		seen := map[string]string{}
		for _, tt := range tests {
			e.clock.Add(tt.before)
			e.obs.seen = nil
			r := e.as(t, tt.who, tt.mod, tt.line, tt.roles...)
			if text := shown(r); !strings.Contains(text, tt.want) {
				t.Errorf("%s: %s = %q, want it to contain %q", tt.name, tt.line, text, tt.want)
			}
			if len(e.obs.seen) != 1 || !strings.HasSuffix(e.obs.seen[0], "/"+tt.outcome) {
				t.Errorf("%s: observed %v, want one %s", tt.name, e.obs.seen, tt.outcome)
			}
			if other, ok := seen[r.Text]; ok {
				t.Errorf("%s and %s get the same message %q", tt.name, other, r.Text)
			}
			seen[r.Text] = tt.name
			if strings.Contains(r.Text, sandbox.DemoEditCode) || strings.Contains(r.Text, openCode) {
				t.Errorf("%s: the reply shows an edit code: %q", tt.name, r.Text)
			}
		}
		for _, id := range []int64{open, early, late} {
			if st, err := e.drops.DropInfo(t.Context(), core.Place{Platform: core.Console, ExternalID: "guild"}, id); err != nil || st.Stock.HandedOut != 0 {
				t.Errorf("drop %d after the refusals: %+v, %v, want nothing handed out", id, st.Stock, err)
			}
		}
		if _, err := e.drops.DropInfo(t.Context(), core.Place{Platform: core.Console, ExternalID: "guild"}, sandbox.DemoLinksDropID); err == nil {
			t.Errorf("the demo drop was stored after a wrong edit code and a non-moderator")
		}
		wantText(t, e.as(t, "bob", false, fmt.Sprintf("/claim %d SESAME", open), "42"), "Here is your mint link")
	})
}

func TestBot_Drop_Manage(t *testing.T) {
	t.Parallel()
	eachDropEnv(t, func(t *testing.T, e *dropEnv) {
		r := e.mod(t, demoDrop+" delivery:link")
		wantText(t, r, "**Sandbox Demo Drop** (drop `197001`) is set up here.",
			"Mint links: 55 in total · 50 available · 0 handed out · 0 minted · 5 claimed elsewhere",
			"Claim method: link", "Members claim with `/claim 197001`.")
		if r.Image == "" {
			t.Errorf("/drop add reply has no image")
		}
		wantText(t, e.mod(t, demoDrop), "is set up here already")
		first := e.as(t, "alice", false, "/claim")
		wantText(t, first, "Here is your mint link for **Sandbox Demo Drop**", "https://poap.test/mint/sbx006")
		if len(first.Buttons) != 1 || first.Buttons[0].URL != "https://poap.test/mint/sbx006" {
			t.Errorf("claim buttons = %+v, want the link", first.Buttons)
		}
		wantText(t, e.as(t, "alice", false, "/claim 197001"), "You claimed **Sandbox Demo Drop** (drop `197001`) before; here is your mint link again", "sbx006")
		wantText(t, e.as(t, "bob", false, "/claim"), "sbx007")
		wantText(t, e.mod(t, "/drop info 197001"), "Mint links: 55 in total · 48 available · 2 handed out · 0 minted · 5 claimed elsewhere")
		wantText(t, e.mod(t, "/drop list"), "**Sandbox Demo Drop** (drop `197001`) — claim method: link · 48 of 55 left · 2 handed out · 0 minted")

		wantText(t, e.mod(t, "/drop topup 197001 20"), "Asked POAP for 20 more mint links", "/drop refresh 197001")
		wantText(t, e.mod(t, "/drop topup 197001 20"), "already waiting for POAP's review, and only one can be pending")
		if n := e.sb.ApproveRequests(sandbox.DemoLinksDropID); n != 1 {
			t.Fatalf("ApproveRequests() = %d, want the one request", n)
		}
		wantText(t, e.mod(t, "/drop refresh 197001"), "Imported 20 new mint links", "75 in total · 68 available")
		wantText(t, e.mod(t, "/drop topup 197001 0"), "The option `count` must be between 1 and 50000")

		wantText(t, e.mod(t, "/drop remove 197001"), "Stopped **Sandbox Demo Drop**")
		wantText(t, e.as(t, "carol", false, "/claim 197001"), "There is no drop `197001` here.")
		wantText(t, e.mod(t, "/drop list"), "No drops are set up here yet.")
		wantText(t, e.mod(t, "/drop info 5"), "There is no drop `5` here.")
		wantText(t, e.mod(t, `/drop add 197001 123456 starts:tomorrow`), "The option `starts` must be a date and time in UTC")
	})
}

func TestBot_Drop_Export(t *testing.T) {
	t.Parallel()
	eachDropEnv(t, func(t *testing.T, e *dropEnv) {
		e.mod(t, demoDrop)
		e.linkWallet(t, "alice", address(1))
		wantText(t, e.as(t, "alice", false, "/claim"), "Minted **Sandbox Demo Drop**")
		wantText(t, e.as(t, "bob", false, "/claim"), "Here is your mint link")
		r := e.mod(t, "/drop export 197001")
		wantText(t, r, "Export of **Sandbox Demo Drop** (drop `197001`): 7 links that left the pool")
		if r.File == nil || r.File.Name != "drop-197001-links.csv" || r.File.ContentType != "text/csv" {
			t.Fatalf("export file = %+v", r.File)
		}
		rows, err := csv.NewReader(strings.NewReader(string(r.File.Data))).ReadAll()
		if err != nil {
			t.Fatalf("export is not CSV: %v\n%s", err, r.File.Data)
		}
		if want := []string{"link", "member", "wallet", "state", "time"}; len(rows) != 8 || !slices.Equal(rows[0], want) {
			t.Fatalf("export = %q, want a header %q and 7 rows", rows, want)
		}
		states := map[string][]string{}
		for _, row := range rows[1:] {
			states[row[3]] = row
			if member := row[1]; row[3] != "claimed_elsewhere" && (len(member) < 8 || strings.Contains(member, "alice") || strings.Contains(member, "bob")) {
				t.Errorf("member %q is not a pseudonymous id", member)
			}
			if _, err := time.Parse(time.RFC3339, row[4]); err != nil {
				t.Errorf("time %q: %v", row[4], err)
			}
		}
		if m := states["minted"]; m == nil || m[2] != address(1) || !strings.HasPrefix(m[0], "https://poap.test/mint/sbx") {
			t.Errorf("minted row = %q, want alice's wallet and link", m)
		}
		if h := states["handed_out"]; h == nil || h[2] != "" {
			t.Errorf("handed-out row = %q, want no wallet", h)
		}
		if strings.Contains(string(r.File.Data), "alice") {
			t.Errorf("export names a member:\n%s", r.File.Data)
		}
	})
}

// TestBot_Claim_DirectMints is the acceptance test: with the sandbox
// losing the answer of every tenth mint after applying it, 200 direct mints
// give 200 POAPs, and no link nor wallet is minted twice.
func TestBot_Claim_DirectMints(t *testing.T) {
	t.Parallel()
	const members = 200
	eachDropEnv(t, func(t *testing.T, e *dropEnv) {
		id, code := e.createDrop(t, "Direct mint drop", members+10)
		wantText(t, e.mod(t, fmt.Sprintf("/drop add %d %s delivery:mint", id, code)), "210 in total")
		for i := range members {
			e.linkWallet(t, fmt.Sprintf("m%03d", i), address(i))
		}
		e.sb.DropMintResponses(10)
		replies := make([]Reply, members)
		sem := make(chan struct{}, 16)
		runConcurrently(members, func(i int) {
			sem <- struct{}{}
			defer func() { <-sem }()
			replies[i] = e.as(t, fmt.Sprintf("m%03d", i), false, fmt.Sprintf("/claim %d", id))
		})
		for i, r := range replies {
			if !strings.Contains(r.Text, "Minted **Direct mint drop**") || !strings.Contains(r.Text, core.ChecksumAddress(address(i))) {
				t.Errorf("member %d: %q, want minted to their wallet", i, r.Text)
			}
		}
		if n := e.sb.MintCount(id); n != members {
			t.Errorf("MintCount() = %d, want %d", n, members)
		}
		mints := e.calls.mints()
		total := 0
		for h, n := range mints {
			total += n
			if n > 1 {
				t.Errorf("link %s got %d mint requests", h, n)
			}
		}
		if got := e.sb.Requests(wire.OpMint); got != members || total != members {
			t.Errorf("mint requests = %d (%d recorded), want %d", got, total, members)
		}
		holders := e.sb.Holders(id)
		slices.Sort(holders)
		if len(slices.Compact(holders)) != members {
			t.Errorf("%d distinct holders, want %d", len(holders), members)
		}
		if n := e.calls.reconciled(); n != members/10 {
			t.Errorf("%d mints were followed by a status read, want the %d whose answer was lost", n, members/10)
		}
		e.calls.checkNoBlindRetry(t)
		wantText(t, e.mod(t, fmt.Sprintf("/drop info %d", id)), "210 in total · 10 available · 0 handed out · 200 minted")
		again := e.as(t, "m000", false, fmt.Sprintf("/claim %d", id))
		wantText(t, again, "You have it already: **Direct mint drop**")
		if n := e.sb.Requests(wire.OpMint); n != members {
			t.Errorf("claiming again sent a mint: %d requests", n)
		}
	})
}
