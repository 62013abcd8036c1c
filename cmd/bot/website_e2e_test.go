package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// websiteDone matches the final answer of a website claim: minted now, or
// before.
func websiteDone(m discordtest.Message) bool {
	return strings.Contains(m.Content, "Minted ") || strings.Contains(m.Content, "You have it already")
}

// websiteAnswer matches any answer of a website claim: done, queued, or
// refused.
func websiteAnswer(m discordtest.Message) bool {
	return websiteDone(m) || strings.Contains(m.Content, "in the queue") || strings.Contains(m.Content, "LIMIT_EXCEEDED")
}

// TestWebsite_Discord: a moderator asks POAP for a website claim of a drop
// set up here; before the review approves it members are told to come
// back; once approved, 50 members who claim at once are each minted one
// POAP through it (queued as the service's rate allows, a queued member
// told so and minted by the dispatcher), none twice; a member who claims
// again hears they have it; a mint whose answer was lost is settled, not
// sent twice; the 51st, past the claim's limit, hears
// LIMIT_EXCEEDED and nothing is minted; /drop info says where it stands. A
// wrong website name at /drop add stores nothing, and one that is not a
// name is refused as such.
func TestWebsite_Discord(t *testing.T) {
	t.Parallel()
	const members = 50
	for name, url := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// Members wait a second for their mint, then hear they are
			// queued.
			srv, s := startDiscord(t, url, func(m *Main) { m.WebsiteWait = time.Second })
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			sb := s.m.SandboxAPI
			drop, code := sb.CreateDrop(sandbox.Drop{Name: "Website rush"}, 0)
			id := fmt.Sprint(drop.ID)
			mod := discordtest.Moderator

			// A website the drop does not have: nothing is stored.
			reply, _ := discordReply(ctx, t, srv.Command(mod, fmt.Sprintf("/drop add %s edit_code:%s delivery:website website:no-such-site", id, code)),
				containing("no website claim"))
			t.Logf("unknown website: %s", reply.Content)
			// A name that is not one plain path segment: refused before
			// any request.
			discordReply(ctx, t, srv.Command(mod, fmt.Sprintf("/drop add %s edit_code:%s delivery:website website:../events", id, code)),
				containing("A website claim name is 1 to 100 letters"))
			discordReply(ctx, t, srv.Command(mod, "/drop info "+id), containing("There is no drop"))

			discordReply(ctx, t, srv.Command(mod, fmt.Sprintf("/drop add %s edit_code:%s delivery:link", id, code)), containing("is set up here"))
			discordReply(ctx, t, srv.Command(mod, "/drop website "+id+" claim_name:website-rush count:50"), containing("Asked POAP for the website claim"))
			discordReply(ctx, t, srv.Command(mod, "/drop website "+id+" claim_name:website-rush-2"), containing("already waiting for POAP's review"))
			discordReply(ctx, t, srv.Command(mod, "/drop info "+id), containing("waiting for POAP's review"))

			users := discordMembers(members + 1)
			for i, u := range users {
				discordReply(ctx, t, srv.Command(u, fmt.Sprintf("/link %s", memberWallet(i))), containing("Linked"))
			}
			discordReply(ctx, t, srv.Command(users[0], "/claim "+id), containing("not open for claims yet"))

			if n := sb.ApproveRequests(drop.ID); n != 1 {
				t.Fatalf("ApproveRequests() = %d, want the website request", n)
			}
			// Slower than the client sends: the dispatcher meets 429s.
			sb.SetWebsiteClaimRate(2, 2)
			// The first mint's answer is lost on the way back: the
			// dispatcher settles it (the wallet holds the drop) before
			// anything is sent again, so that member is minted once too.
			sb.DropNextMintResponses(1)
			rush := users[:members]
			its := make([]*discordtest.Interaction, members)
			atOnce(rush, func(i int, u discordtest.User) { its[i] = srv.Command(u, "/claim "+id) })
			queued := 0
			for i, it := range its {
				m, _ := discordReply(ctx, t, it, websiteAnswer)
				if websiteDone(m) {
					continue
				}
				if !strings.Contains(m.Content, "in the queue") {
					t.Errorf("member %d: %q, want minted or queued", i, m.Content)
					continue
				}
				queued++
				for !websiteDone(m) {
					m, _ = discordReply(ctx, t, srv.Command(rush[i], "/claim "+id), websiteAnswer)
				}
			}
			sent := sb.Requests(wire.OpWebsiteClaim)
			t.Logf("%d members at once: %d told they were queued; %d website claims sent", members, queued, sent)
			if queued == 0 {
				t.Error("no member was told they were queued")
			}
			if sent <= members {
				t.Errorf("%d website claims sent for %d mints, want some refused for the rate (429) and sent again", sent, members)
			}
			holders := sb.Holders(drop.ID)
			seen := map[string]int{}
			for _, h := range holders {
				seen[strings.ToLower(h)]++
			}
			for i := range rush {
				if n := seen[strings.ToLower(memberWallet(i))]; n != 1 {
					t.Errorf("member %d's wallet holds %d POAPs of the drop, want 1", i, n)
				}
			}
			if len(holders) != members || sb.MintCount(drop.ID) != members {
				t.Errorf("%d holders, %d mints, want %d each", len(holders), sb.MintCount(drop.ID), members)
			}
			discordReply(ctx, t, srv.Command(rush[0], "/claim "+id), containing("You have it already"))

			// The status read that let the rush in may be reused, so the
			// late member may be queued first; the dispatcher meets the
			// limit, and the member's next claim says so.
			late, _ := discordReply(ctx, t, srv.Command(users[members], "/claim "+id), websiteAnswer)
			for strings.Contains(late.Content, "in the queue") {
				late, _ = discordReply(ctx, t, srv.Command(users[members], "/claim "+id), websiteAnswer)
			}
			if !strings.Contains(late.Content, "LIMIT_EXCEEDED") {
				t.Errorf("claim past the limit: %q, want LIMIT_EXCEEDED explained", late.Content)
			}
			t.Logf("past the limit: %s", late.Content)
			if n := sb.MintCount(drop.ID); n != members {
				t.Errorf("%d mints after the refused claim, want %d", n, members)
			}
			info, _ := discordReply(ctx, t, srv.Command(mod, "/drop info "+id), containing("Website claim"))
			for _, want := range []string{"active", fmt.Sprintf("%d of %d minted", members, members), fmt.Sprintf("Claims here: %d minted", members)} {
				if !strings.Contains(info.Content, want) {
					t.Errorf("/drop info = %q, want %q in it", info.Content, want)
				}
			}
		})
	}
}

// memberWallet is member i's wallet address.
func memberWallet(i int) string {
	return fmt.Sprintf("0x%040x", 0xabc000+i)
}
