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
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// budgetWallets is how many wallets the busy member tries to verify: past
// MAX_WALLETS (its default, core.DefaultMaxWallets) their /link is refused.
const budgetWallets = 20

// budgetBurst is how many /poaps the busy member asks for at once.
const budgetBurst = 50

// maxAhead bounds the busy member's scans served between the other
// member's /poaps and its scan, in the burst. Served in turn it is one or
// two, and a few more if the other member's command takes a while to
// reach the issuing service's queue (the burst is served at 5 a second);
// served in arrival order it would be what remains of the burst (about 40).
const maxAhead = 8

// budgetKey is the private key of the busy member's i-th wallet.
func budgetKey(i int) string { return fmt.Sprintf("%064x", 0xb0d9e7+i) }

// budgetWallet is a wallet nobody read yet, the i-th of a series.
func budgetWallet(series, i int) string { return fmt.Sprintf("0x%08x%032x", series, i) }

// scansAhead has u ask /poaps of a wallet nobody read and returns how many
// scans the issuing service answered between the question and the scan of
// that wallet.
func scansAhead(ctx context.Context, t *testing.T, srv *discordtest.Server, sb *sandbox.Server, u discordtest.User, wallet string) int {
	t.Helper()
	asked := sb.Requests(wire.OpScan)
	discordAnswer(ctx, t, srv.Command(u, "/poaps wallet:"+wallet), containing("holds no POAPs"))
	return sb.ScanRank(wallet) - asked - 1
}

// TestBudget_Discord: a member verifying 20 wallets one after another
// costs at most one scan per verification (the holdings of the others are
// cached), past the tenth their /link is refused and costs none, and they
// keep the role the first gave; meanwhile another member's /poaps is
// served at once, behind at most that one scan; the busy member's /why
// then costs no scan. While the busy member's burst of 50
// /poaps waits on the process's request budget, the other member's /poaps
// is served after a few of the burst's scans, not after all of them (the
// sandbox's order of scans says which came first). Both the adapter's
// commands waiting for a slot and the requests waiting for the budget take
// turns by member.
func TestBudget_Discord(t *testing.T) {
	t.Parallel()
	// Long enough that nothing read by the test expires on a slow run.
	srv, s := startDiscord(t, "", func(m *Main) { m.HoldingsTTL = time.Hour })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sb := s.m.SandboxAPI
	const holders = "600000000000000001"
	srv.AddRole(discordgo.Role{ID: holders, Name: "Holders", Position: 1})
	busy := discordtest.User{ID: "400000000000000101", Username: "busy"}
	other := discordtest.User{ID: "400000000000000102", Username: "other"}
	srv.AddMember(busy.ID, busy.Username)
	srv.AddMember(other.ID, other.Username)
	drop := gatedDrop(t, s, "Budget Gate", coretest.Address(coretest.MustKey(budgetKey(0))))
	discordAnswer(ctx, t, srv.Command(discordtest.Moderator, fmt.Sprintf("/gate add drops:%d role:%s", drop, holders)), containing("Gate added"))
	if err := s.m.gates.Wait(ctx); err != nil {
		t.Fatal(err)
	}

	var scans, ahead []int
	for i := range budgetWallets {
		key := coretest.MustKey(budgetKey(i))
		before := sb.Requests(wire.OpScan)
		if i < core.DefaultMaxWallets {
			discordVerify(ctx, t, srv, busy, coretest.Address(key), func(m string) string { return coretest.Sign(key, m) })
		} else {
			discordAnswer(ctx, t, srv.Command(busy, "/link "+coretest.Address(key)), containing("the most a member can link here"))
		}
		// A verification is evaluated now, in the background.
		ahead = append(ahead, scansAhead(ctx, t, srv, sb, other, budgetWallet(1, i)))
		if err := s.m.gates.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		scans = append(scans, sb.Requests(wire.OpScan)-before-1)
	}
	t.Logf("scans per verification: %v; the other member's scans ahead meanwhile: %v", scans, ahead)
	for i := range budgetWallets {
		want := 1
		if i >= core.DefaultMaxWallets {
			want = 0 // refused before anything was read
		}
		if scans[i] > want || ahead[i] > want {
			t.Errorf("wallet %d cost %d scans, %d ahead of the other member's; want at most %d of each", i+1, scans[i], ahead[i], want)
		}
	}
	if err := srv.WaitRole(ctx, busy.ID, holders, true); err != nil {
		t.Fatalf("no role after the verifications: %v", err)
	}
	before := sb.Requests(wire.OpScan)
	why := discordAnswer(ctx, t, srv.Command(busy, "/why"), containing("needs"))
	if n := sb.Requests(wire.OpScan) - before; n != 0 || !strings.Contains(why.Content, "You qualify") {
		t.Errorf("/why after the verifications cost %d scans, said %q; want none, qualified", n, why.Content)
	}

	its := make([]*discordtest.Interaction, budgetBurst)
	atOnce(its, func(i int, _ *discordtest.Interaction) {
		its[i] = srv.Command(busy, "/poaps wallet:"+budgetWallet(2, i))
	})
	answered := make(chan struct{}, budgetBurst)
	for _, it := range its {
		go func() {
			if _, err := it.WaitMessage(ctx, containing("holds no POAPs")); err == nil {
				answered <- struct{}{}
			}
		}()
	}
	// Once a few are answered, the rest of the burst waits on the budget.
	for range 5 {
		select {
		case <-answered:
		case <-ctx.Done():
			t.Fatal("the burst got no answer")
		}
	}
	n := scansAhead(ctx, t, srv, sb, other, budgetWallet(3, 0))
	t.Logf("during the burst, the other member's scan came %d scans after their /poaps (%d of %d answered by then)", n, len(answered)+5, budgetBurst)
	if n > maxAhead {
		t.Errorf("%d of the busy member's scans were served before the other member's, want at most %d", n, maxAhead)
	}
	for _, it := range its {
		discordAnswer(ctx, t, it, containing("holds no POAPs"))
	}
}
