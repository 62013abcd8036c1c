package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// consoleAnswer types line at the console and returns the output that
// follows it once it contains want.
func consoleAnswer(t *testing.T, s *session, line, want string) string {
	t.Helper()
	before := len(s.out.String())
	fmt.Fprintln(s.stdin, line)
	return waitAfter(t, s, before, func(out string) bool { return strings.Contains(out, want) })
}

// storedChain returns the network the database records for the console's
// demo drop.
func storedChain(t *testing.T, s *session) int64 {
	t.Helper()
	tenants, err := s.m.DB.DropPlaces(t.Context(), core.Console, sandbox.DemoLinksDropID)
	if err != nil || len(tenants) != 1 {
		t.Fatalf("DropPlaces() = %+v, %v, want the console", tenants, err)
	}
	d, err := s.m.DB.DropByEvent(t.Context(), tenants[0].ID, sandbox.DemoLinksDropID)
	if err != nil {
		t.Fatal(err)
	}
	return d.Chain
}

// TestDropNetwork_Console: with -sandbox -console, /drop add reads the demo
// drop's network, /drop network sets it by name and shows it, /drop info
// shows it; an unknown network and an edit code POAP no longer accepts are
// refused, each in its own words, and change nothing, at POAP or stored.
func TestDropNetwork_Console(t *testing.T) {
	t.Parallel()
	for name, url := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startMain(t, url)
			sb := s.m.SandboxAPI
			id := sandbox.DemoLinksDropID
			consoleAnswer(t, s, fmt.Sprintf("/drop add %d %s", id, sandbox.DemoEditCode), "Network: Gnosis (chain 100).")

			var answers []string
			answers = append(answers, consoleAnswer(t, s, fmt.Sprintf("/drop network %d Base", id), "now mints on Base (chain 8453)"))
			if chain, _ := sb.DropChain(id); chain != 8453 || storedChain(t, s) != 8453 {
				t.Errorf("after /drop network base: POAP's chain %d, stored %d, want 8453 both", chain, storedChain(t, s))
			}
			consoleAnswer(t, s, fmt.Sprintf("/drop info %d", id), "Network: Base (chain 8453).")
			answers = append(answers, consoleAnswer(t, s, fmt.Sprintf("/drop network %d", id), "mints on Base (chain 8453)"))

			sets := sb.Requests(wire.OpSetMintingNetwork)
			answers = append(answers, consoleAnswer(t, s, fmt.Sprintf("/drop network %d ethereum", id), "POAP can't mint on that network"))
			if n := sb.Requests(wire.OpSetMintingNetwork); n != sets {
				t.Errorf("an unknown network sent %d requests to POAP, want none", n-sets)
			}

			if err := sb.SetEditCode(id, "654321"); err != nil {
				t.Fatal(err)
			}
			for _, line := range []string{fmt.Sprintf("/drop network %d polygon", id), fmt.Sprintf("/drop network %d", id)} {
				answers = append(answers, consoleAnswer(t, s, line, "POAP refused the edit code stored for drop"))
			}
			if chain, _ := sb.DropChain(id); chain != 8453 || storedChain(t, s) != 8453 {
				t.Errorf("after the refusals: POAP's chain %d, stored %d, want 8453 both", chain, storedChain(t, s))
			}
			consoleAnswer(t, s, fmt.Sprintf("/drop info %d", id), "Network: Base (chain 8453).")
			for _, a := range answers {
				if strings.Contains(a, sandbox.DemoEditCode) || strings.Contains(a, "654321") {
					t.Errorf("an answer shows an edit code: %q", a)
				}
			}
		})
	}
}

// TestDropNetwork_Discord: Discord offers the networks as choices of
// /drop network, and answers in time and ephemerally.
func TestDropNetwork_Discord(t *testing.T) {
	t.Parallel()
	srv, s := startDiscord(t, "", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	commands, err := srv.WaitCommands(ctx, srv.GuildID())
	if err != nil {
		t.Fatal(err)
	}
	if got := networkChoices(commands); strings.Join(got, ",") != strings.Join(core.NetworkNames(), ",") {
		t.Errorf("choices of /drop network chain = %v, want %v", got, core.NetworkNames())
	}
	addDiscordDrop(ctx, t, srv)
	line := fmt.Sprintf("/drop network %d chain:celo", sandbox.DemoLinksDropID)
	discordReply(ctx, t, srv.Command(discordtest.Moderator, line), containing("now mints on Celo (chain 42220)"))
	if chain, _ := s.m.SandboxAPI.DropChain(sandbox.DemoLinksDropID); chain != 42220 {
		t.Errorf("POAP's chain = %d, want 42220", chain)
	}
}

// networkChoices returns the choices of the chain option of /drop network
// among the registered commands.
func networkChoices(commands []*discordgo.ApplicationCommand) []string {
	var out []string
	for _, c := range commands {
		if c.Name != "drop" {
			continue
		}
		for _, sub := range c.Options {
			if sub.Name != "network" {
				continue
			}
			for _, o := range sub.Options {
				if o.Name == "chain" {
					for _, ch := range o.Choices {
						out = append(out, fmt.Sprint(ch.Value))
					}
				}
			}
		}
	}
	return out
}
