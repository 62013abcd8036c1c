package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// followWait is the platform-like deadline for a role to follow a mint.
const followWait = 5 * time.Second

// TestFollow_ConsoleMint: a direct mint to a verified member of a place
// gated on the drop grants the role within seconds, from one scan.
func TestFollow_ConsoleMint(t *testing.T) {
	t.Parallel()
	s := startMain(t, "")
	consoleAnswer(t, s, fmt.Sprintf("/drop add %d %s delivery:mint", sandbox.DemoLinksDropID, sandbox.DemoEditCode), "is set up here")
	consoleAnswer(t, s, fmt.Sprintf("/gate add role:holders drops:%d", sandbox.DemoLinksDropID), "Gate added")
	fmt.Fprintf(s.stdin, "/as alice\n/link %s\n", coretest.TestAddress)
	waitOutput(t, s, "Signing is free")
	consoleAnswer(t, s, "/verify "+coretest.Sign(coretest.TestKey, challengeIn(t, s.out.String())), "Verified")
	settle(t, s)
	if strings.Contains(s.out.String(), "gained the role") {
		t.Fatalf("a role before the mint:\n%s", s.out)
	}
	before := s.m.SandboxAPI.Requests(wire.OpScan)
	fmt.Fprintln(s.stdin, claimLine)
	ctx, cancel := context.WithTimeout(t.Context(), followWait)
	defer cancel()
	if _, err := s.out.WaitFor(ctx, func(out string) bool { return strings.Contains(out, "[roles] alice gained the role holders") }); err != nil {
		t.Fatalf("no role after the mint: %v\n%s", err, s.out)
	}
	settle(t, s)
	if n := s.m.SandboxAPI.Requests(wire.OpScan) - before; n != 1 {
		t.Errorf("%d scans after the mint, want 1", n)
	}
}

// TestFollow_DiscordMint: the same on Discord, the role seen on the guild.
func TestFollow_DiscordMint(t *testing.T) {
	t.Parallel()
	srv, s := startDiscord(t, "", nil)
	ctx, cancel := context.WithTimeout(t.Context(), 4*gateWait)
	defer cancel()
	const holders = "600000000000000001"
	srv.AddRole(discordgo.Role{ID: holders, Name: "Holders", Position: 1})
	alice := discordtest.Alice
	srv.AddMember(alice.ID, alice.Username)
	discordAnswer(ctx, t, srv.Command(discordtest.Moderator, fmt.Sprintf("/drop add %d %s delivery:mint", sandbox.DemoLinksDropID, sandbox.DemoEditCode)), containing("is set up here"))
	discordAnswer(ctx, t, srv.Command(discordtest.Moderator, fmt.Sprintf("/gate add drops:%d role:%s", sandbox.DemoLinksDropID, holders)), containing("Gate added"))
	discordVerify(ctx, t, srv, alice, coretest.TestAddress, func(m string) string { return coretest.Sign(coretest.TestKey, m) })
	settle(t, s)
	if roles := srv.MemberRoles(alice.ID); len(roles) != 0 {
		t.Fatalf("roles %v before the mint", roles)
	}
	before := s.m.SandboxAPI.Requests(wire.OpScan)
	discordAnswer(ctx, t, srv.Command(alice, claimLine), containing("Minted"))
	wctx, wcancel := context.WithTimeout(ctx, followWait)
	defer wcancel()
	if err := srv.WaitRole(wctx, alice.ID, holders, true); err != nil {
		t.Fatalf("no role after the mint: %v (roles %v)", err, srv.MemberRoles(alice.ID))
	}
	settle(t, s)
	if n := s.m.SandboxAPI.Requests(wire.OpScan) - before; n != 1 {
		t.Errorf("%d scans after the mint, want 1", n)
	}
}

// TestFollow_ConsoleWebsiteLate: a website claim the queue mints after
// the member stopped waiting (told they are queued: the service asked the
// bot to slow down) grants the role within seconds of the mint, from one
// scan, without the member claiming again.
func TestFollow_ConsoleWebsiteLate(t *testing.T) {
	t.Parallel()
	s := startMainTuned(t, map[string]string{}, true, func(m *Main) { m.WebsiteWait = time.Nanosecond })
	sb := s.m.SandboxAPI
	web, code := sb.CreateDrop(sandbox.Drop{Name: "Follow Website"}, 0)
	consoleAnswer(t, s, fmt.Sprintf("/drop add %d %s delivery:link", web.ID, code), "is set up here")
	consoleAnswer(t, s, fmt.Sprintf("/drop website %d follow-site count:5", web.ID), "Asked POAP for the website claim")
	if n := sb.ApproveRequests(web.ID); n != 1 {
		t.Fatalf("ApproveRequests() = %d, want 1", n)
	}
	consoleAnswer(t, s, fmt.Sprintf("/gate add role:holders drops:%d", web.ID), "Gate added")
	fmt.Fprintf(s.stdin, "/as alice\n/link %s\n", coretest.TestAddress)
	waitOutput(t, s, "Signing is free")
	consoleAnswer(t, s, "/verify "+coretest.Sign(coretest.TestKey, challengeIn(t, s.out.String())), "Verified")
	settle(t, s)
	if strings.Contains(s.out.String(), "gained the role") {
		t.Fatalf("a role before the mint:\n%s", s.out)
	}
	before := s.m.SandboxAPI.Requests(wire.OpScan)
	// The first website mint is refused for the rate: the dispatcher
	// pauses, and the member hears they are queued.
	sb.FailNextOp(wire.OpWebsiteClaim, 1, 429)
	consoleAnswer(t, s, fmt.Sprintf("/claim %d", web.ID), "in the queue")
	// The dispatcher's pause (a second or so), then the platform-like
	// deadline from the mint.
	ctx, cancel := context.WithTimeout(t.Context(), followWait+2*time.Second)
	defer cancel()
	if _, err := s.out.WaitFor(ctx, func(out string) bool { return strings.Contains(out, "[roles] alice gained the role holders") }); err != nil {
		t.Fatalf("no role after the late website mint: %v\n%s", err, s.out)
	}
	settle(t, s)
	if n := sb.MintCount(web.ID); n != 1 {
		t.Errorf("%d mints, want 1", n)
	}
	if n := s.m.SandboxAPI.Requests(wire.OpScan) - before; n != 1 {
		t.Errorf("%d scans after the mint, want 1", n)
	}
}

// settle waits for the gate evaluations under way to finish.
func settle(t *testing.T, s *session) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), gateWait)
	defer cancel()
	if err := s.m.gates.Wait(ctx); err != nil {
		t.Fatalf("gate evaluations still running: %v", err)
	}
}
