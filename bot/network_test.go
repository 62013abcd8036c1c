package bot

import (
	"fmt"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// TestBot_Drop_Network: /drop add reads the network, /drop network shows
// and sets it, /drop info shows it; an unknown network and a stored edit
// code POAP refuses change nothing, each with its own words.
func TestBot_Drop_Network(t *testing.T) {
	t.Parallel()
	eachDropEnv(t, func(t *testing.T, e *dropEnv) {
		const id = sandbox.DemoLinksDropID
		line := func(format string, args ...any) string { return fmt.Sprintf(format, append([]any{id}, args...)...) }
		if _, ok := e.store.(core.NetworkStore); !ok {
			// The in-memory store records no network: there is no network
			// service, so the command is not offered (nor listed by
			// /help) and the drop's network is not read.
			wantText(t, e.mod(t, demoDrop), "Network: not read.")
			wantOutcome(t, e, line("/drop network %d base"), "user_error", "I don't know the command `/drop`.")
			if e.b.Command("drop network") != nil {
				t.Error("/drop network is offered without a network service")
			}
			if help := e.mod(t, "/help"); strings.Contains(help.Text, "drop network") {
				t.Errorf("/help lists /drop network without a network service:\n%s", help.Text)
			}
			return
		}
		wantText(t, e.mod(t, demoDrop), "Network: Gnosis (chain 100).")
		wantOutcome(t, e, line("/drop network %d"), "ok",
			"**Sandbox Demo Drop** (drop `197001`) mints on Gnosis (chain 100).", "`/drop network 197001 <chain>`", "apechain, arbitrum, base")
		wantOutcome(t, e, line("/drop network %d Base"), "ok",
			"**Sandbox Demo Drop** (drop `197001`) now mints on Base (chain 8453).", "New mints go to that network", "already minted are unaffected")
		wantText(t, e.mod(t, line("/drop info %d")), "Network: Base (chain 8453).")
		wantOutcome(t, e, line("/drop network %d chain:xdai"), "ok", "now mints on Gnosis (chain 100).")
		wantOutcome(t, e, line("/drop network %d 42161"), "ok", "now mints on Arbitrum (chain 42161).")

		for _, tt := range []struct{ line, want string }{
			{line("/drop network %d ethereum"), "POAP can't mint on that network, so nothing was changed. Name one of apechain, arbitrum, base"},
			{line("/drop network %d 1"), "POAP can't mint on that network"},
			{"/drop network 4242 base", "There is no drop `4242` here."},
		} {
			wantOutcome(t, e, tt.line, "user_error", tt.want)
		}
		wantText(t, e.as(t, "alice", false, line("/drop network %d base")), "Only moderators can run `/drop network` here.")
		if err := e.sb.SetEditCode(id, "909090"); err != nil {
			t.Fatal(err)
		}
		r := wantOutcome(t, e, line("/drop network %d polygon"), "user_error",
			"POAP refused the edit code stored for drop `197001`, so nothing was changed.", "`/drop remove 197001`")
		if strings.Contains(r.Text, sandbox.DemoEditCode) || strings.Contains(r.Text, "909090") {
			t.Errorf("the reply shows an edit code: %q", r.Text)
		}
		wantText(t, e.mod(t, line("/drop info %d")), "Network: Arbitrum (chain 42161).")
		if chain, _ := e.sb.DropChain(id); chain != 42161 {
			t.Errorf("the sandbox's chain after the refusals = %d, want 42161", chain)
		}
	})
}

// wantOutcome runs line as the moderator and fails the test unless the
// reply has every one of wants and the command was counted as outcome.
func wantOutcome(t *testing.T, e *dropEnv, line, outcome string, wants ...string) Reply {
	t.Helper()
	e.obs.seen = nil
	r := e.mod(t, line)
	wantText(t, r, wants...)
	if len(e.obs.seen) != 1 || !strings.HasSuffix(e.obs.seen[0], "/"+outcome) {
		t.Errorf("%s: observed %v, want one %s", line, e.obs.seen, outcome)
	}
	return r
}

func TestNetworkLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    core.Drop
		want string
	}{
		{core.Drop{EventID: 12, Chain: 100}, "Network: Gnosis (chain 100)."},
		{core.Drop{EventID: 12, Chain: 8453}, "Network: Base (chain 8453)."},
		{core.Drop{EventID: 12, Chain: 777}, "Network: chain 777."},
		{core.Drop{EventID: 12}, "Network: not read yet: `/drop network 12`."},
	}
	for _, tt := range tests {
		if got := networkLine(tt.d, true); got != tt.want {
			t.Errorf("networkLine(chain %d) = %q, want %q", tt.d.Chain, got, tt.want)
		}
	}
	if got, want := networkLine(core.Drop{EventID: 12}, false), "Network: not read."; got != want {
		t.Errorf("networkLine(not read, /drop network not offered) = %q, want %q", got, want)
	}
}

// TestBot_MethodsNotOffered: a bot built without the services of website
// claims and deliveries does not offer them: /drop add and /drop edit
// refuse delivery:website at once, before POAP is asked anything, and
// /drop website and /drop deliver are neither registered nor listed.
func TestBot_MethodsNotOffered(t *testing.T) {
	t.Parallel()
	eachDropEnv(t, func(t *testing.T, e *dropEnv) {
		const id = sandbox.DemoLinksDropID
		before := e.sb.Requests(wire.OpValidateEditCode)
		wantOutcome(t, e, demoDrop+" delivery:website website:demo-site", "user_error",
			"This bot is not set up to hand out drops with `delivery:website`, so nothing was changed.")
		if n := e.sb.Requests(wire.OpValidateEditCode); n != before {
			t.Errorf("%d edit code checks sent for a method not offered, want none", n-before)
		}
		wantText(t, e.mod(t, fmt.Sprintf("/drop info %d", id)), "There is no drop `197001` here.")
		wantText(t, e.mod(t, demoDrop+" delivery:link"), "is set up here.")
		wantOutcome(t, e, fmt.Sprintf("/drop edit %d delivery:website website:demo-site", id), "user_error",
			"This bot is not set up to hand out drops with `delivery:website`")
		wantText(t, e.mod(t, fmt.Sprintf("/drop info %d", id)), "Claim method: link")
		help := e.mod(t, "/help")
		for _, name := range []string{"drop website", "drop deliver"} {
			if e.b.Command(name) != nil || strings.Contains(help.Text, "/"+name) {
				t.Errorf("/%s is offered without its service", name)
			}
		}
	})
}
