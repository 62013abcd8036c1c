package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/poap/sandbox"
)

// TestMetrics_Domain: what members did shows in /metrics by platform and
// outcome: a wallet linked and verified, a direct mint and the same claim
// again, a refused claim. Each is counted before its reply is made. (The
// role the verification earns is counted after the console prints it, so
// TestMetrics_TelegramGate checks grants, where the member's notice comes
// after the count.)
func TestMetrics_Domain(t *testing.T) {
	t.Parallel()
	s := startMain(t, "")
	drop := gatedDrop(t, s, "Metrics Gate", coretest.TestAddress)
	consoleAnswer(t, s, fmt.Sprintf("/gate add role:holders drops:%d", drop), "Gate added")
	consoleAnswer(t, s, fmt.Sprintf("/drop add %d %s delivery:mint", sandbox.DemoLinksDropID, sandbox.DemoEditCode), "is set up here")
	fmt.Fprintf(s.stdin, "/as alice\n/link %s\n", coretest.TestAddress)
	waitOutput(t, s, "Signing is free")
	msg := challengeIn(t, s.out.String())
	consoleAnswer(t, s, "/verify "+coretest.Sign(coretest.TestKey, msg), "[roles] alice gained the role holders")
	consoleAnswer(t, s, claimLine, "Minted")
	consoleAnswer(t, s, claimLine, "already")
	consoleAnswer(t, s, "/claim 424242", "/drop list")

	metrics := get(t, "http://"+s.m.Web.Addr()+"/metrics")
	for _, want := range []string{
		`poapbot_wallet_links_total{outcome="linked",platform="console"} 1`,
		`poapbot_verifications_total{outcome="verified",platform="console"} 1`,
		`poapbot_claims_total{method="mint",outcome="minted",platform="console"} 1`,
		`poapbot_claims_total{method="mint",outcome="again",platform="console"} 1`,
		`poapbot_mints_total{outcome="minted",platform="console"} 1`,
		`poapbot_claims_total{method="none",outcome="refused",platform="console"} 1`,
		// Every series is there from the start, at zero.
		`poapbot_join_requests_total{outcome="declined",platform="telegram"} 0`,
		`poapbot_moments_total{outcome="posted",platform="discord"} 0`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if t.Failed() {
		t.Logf("metrics:\n%s", grepLines(metrics, "poapbot_"))
	}
}

// TestMetrics_TelegramGate: join requests approved and declined, and the
// group access the bot gave then took back, are counted on Telegram. Each
// act is counted before the member is told of it, so the test waits for
// the member's message, not for the platform's change, which comes first.
func TestMetrics_TelegramGate(t *testing.T) {
	t.Parallel()
	tg, s := startTelegram(t, "", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 3*gateWait)
	defer cancel()
	group, mod := gatedGroup(tg)
	drop := gatedDrop(t, s, "Counted Meetup", coretest.TestAddress)
	addGroupGate(ctx, t, tg, group, mod, drop)
	alice := telegramtest.User{ID: 1001, FirstName: "Alice"}
	bob := telegramtest.User{ID: 1002, FirstName: "Bob"}
	bobKey := coretest.MustKey(strings.Repeat("12", 32))
	tg.OpenPrivateChat(alice.ID)
	tg.OpenPrivateChat(bob.ID)
	telegramVerify(ctx, t, tg, alice, coretest.TestAddress, func(m string) string { return coretest.Sign(coretest.TestKey, m) })
	telegramVerify(ctx, t, tg, bob, coretest.Address(bobKey), func(m string) string { return coretest.Sign(bobKey, m) })
	tg.RequestJoin(group.ID, alice)
	waitTold(ctx, t, tg, alice, "is approved")
	tg.RequestJoin(group.ID, bob)
	waitTold(ctx, t, tg, bob, "is declined")
	if _, err := s.m.SandboxAPI.MoveToken(drop, coretest.TestAddress, elsewhere); err != nil {
		t.Fatal(err)
	}
	tg.SendText(group, mod, "/gate@"+tg.Username+" sync")
	waitTold(ctx, t, tg, alice, "removed you")

	metrics := get(t, "http://"+s.m.Web.Addr()+"/metrics")
	for _, want := range []string{
		`poapbot_verifications_total{outcome="verified",platform="telegram"} 2`,
		`poapbot_join_requests_total{outcome="approved",platform="telegram"} 1`,
		`poapbot_join_requests_total{outcome="declined",platform="telegram"} 1`,
		`poapbot_role_grants_total{outcome="done",platform="telegram"} 1`,
		`poapbot_role_removals_total{outcome="done",platform="telegram"} 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if t.Failed() {
		t.Logf("metrics:\n%s", grepLines(metrics, "poapbot_"))
	}
}

// waitTold waits for a message to u's private chat that contains want.
func waitTold(ctx context.Context, t *testing.T, tg *telegramtest.Server, u telegramtest.User, want string) {
	t.Helper()
	if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(u.ID), telegramtest.Contains(want))); err != nil {
		t.Fatalf("%s was not told %q: %v", u.FirstName, want, err)
	}
}

// grepLines returns the lines of text that contain sub.
func grepLines(text, sub string) string {
	var out []string
	for line := range strings.Lines(text) {
		if strings.Contains(line, sub) && !strings.HasPrefix(line, "#") {
			out = append(out, strings.TrimRight(line, "\n"))
		}
	}
	return strings.Join(out, "\n")
}
