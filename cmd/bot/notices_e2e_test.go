package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/poap/sandbox"
)

// isNotice reports whether a channel message is the low-stock notice.
func isNotice(m discordtest.ChannelMessage) bool {
	return strings.Contains(m.Content, "mint links left for")
}

// TestLowStockNotice_Discord: a claim that takes a distributed drop below
// its low_stock brings one notice to moderators in the claim message's
// channel, and further claims no other.
func TestLowStockNotice_Discord(t *testing.T) {
	t.Parallel()
	for name, dbURL := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, _ := startDiscord(t, dbURL, shortTick)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			add := fmt.Sprintf("/drop add %d edit_code:%s delivery:link low_stock:48", sandbox.DemoLinksDropID, sandbox.DemoEditCode)
			discordReply(ctx, t, srv.Command(discordtest.Moderator, add), containing("fewer than 48 links"))
			discordReply(ctx, t, srv.Command(discordtest.Moderator, fmt.Sprintf("/distribute %d", sandbox.DemoLinksDropID)), containing("Posted the claim message"))
			post := discordClaimMessage(ctx, t, srv)
			before := linksLeft(post.Content)
			if before != 50 {
				t.Fatalf("claim message counts %d links, want the demo drop's 50", before)
			}

			members := discordMembers(5)
			for _, u := range members[:3] {
				discordReply(ctx, t, srv.Command(u, claimLine), containing("/mint/"))
			}
			notice, err := srv.WaitChannelMessage(ctx, isNotice)
			if err != nil {
				t.Fatalf("no low-stock notice: %v; channel %+v", err, srv.ChannelMessages(""))
			}
			want := fmt.Sprintf("Only 47 mint links left for **Sandbox Demo Drop** (drop `%d`). Moderators: `/drop topup %d` asks POAP",
				sandbox.DemoLinksDropID, sandbox.DemoLinksDropID)
			if !strings.HasPrefix(notice.Content, want) || notice.ChannelID != post.ChannelID || len(notice.Buttons) != 0 {
				t.Errorf("notice %q in %s, want %q... in the claim message's channel %s", notice.Content, notice.ChannelID, want, post.ChannelID)
			}

			// Another claim, and a tick that edits the count after it:
			// still one notice. A notice is posted in the tick that edits
			// the count, after the edit; the edit of a later claim's count
			// comes in a later tick, so it shows that tick has finished.
			discordReply(ctx, t, srv.Command(members[3], claimLine), containing("/mint/"))
			waitCount(ctx, t, srv, post.ID, before-4)
			discordReply(ctx, t, srv.Command(members[4], claimLine), containing("/mint/"))
			waitCount(ctx, t, srv, post.ID, before-5)
			n := 0
			for _, m := range srv.ChannelMessages("") {
				if isNotice(m) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d low-stock notices in the channel, want 1", n)
			}
		})
	}
}

// waitCount waits until the claim message postID counts left links left.
func waitCount(ctx context.Context, t *testing.T, srv *discordtest.Server, postID string, left int) {
	t.Helper()
	if _, err := srv.WaitChannelMessage(ctx, func(m discordtest.ChannelMessage) bool {
		return m.ID == postID && linksLeft(m.Content) == left
	}); err != nil {
		t.Fatalf("the claim message was not edited to %d links left: %v", left, err)
	}
}
