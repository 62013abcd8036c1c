package main

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/poap/sandbox"
)

// testPostInterval shortens the post tick so that the edits show quickly.
const testPostInterval = 200 * time.Millisecond

// countRE reads the count of a claim message: "**12** of 50 links left",
// or "<b>12</b> of 50" on Telegram.
var countRE = regexp.MustCompile(`(?:\*\*|<b>)(\d+)(?:\*\*|</b>) of (\d+) links left`)

// linksLeft returns a claim message's count of links left, -1 when it has
// none.
func linksLeft(text string) int {
	m := countRE.FindStringSubmatch(text)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func shortTick(m *Main) { m.PostInterval = testPostInterval }

// TestDistribute_Discord: a moderator posts the claim message, members
// press Claim at once, each gets a link of their own privately, in time,
// and the message's count follows.
func TestDistribute_Discord(t *testing.T) {
	for name, dbURL := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			srv := discordtest.NewServer(t, discordtest.Options{})
			startMainTuned(t, map[string]string{
				"DATABASE_URL": dbURL, "DISCORD_TOKEN": discordtest.DefaultToken,
				"DISCORD_API_URL": srv.URL(), "DISCORD_GUILD_ID": srv.GuildID(),
			}, false, shortTick)
			ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
			defer cancel()
			addDiscordDrop(ctx, t, srv)

			it := srv.Command(discordtest.Moderator, fmt.Sprintf("/distribute %d", sandbox.DemoLinksDropID))
			confirm, err := it.WaitMessage(ctx, containing("Posted the claim message"))
			if err != nil || !confirm.Ephemeral {
				t.Fatalf("/distribute answer = %+v, %v; want an ephemeral confirmation", confirm, err)
			}
			post, err := srv.WaitChannelMessage(ctx, func(m discordtest.ChannelMessage) bool { return linksLeft(m.Content) >= 0 })
			if err != nil {
				t.Fatalf("no claim message: %v", err)
			}
			claim, ok := post.Button("Claim")
			if want := "cmd:" + claimLine; !ok || claim.CustomID != want || post.ChannelID != discordtest.DefaultChannelID {
				t.Fatalf("claim message %q in %s with buttons %+v, want a Claim button %s in the channel", post.Content, post.ChannelID, post.Buttons, want)
			}
			before := linksLeft(post.Content)
			if before < burst {
				t.Fatalf("claim message counts %d links, want at least %d", before, burst)
			}

			members := discordMembers(burst)
			its := make([]*discordtest.Interaction, len(members))
			var wg sync.WaitGroup
			for i, u := range members {
				wg.Go(func() { its[i] = srv.Press(u, claim.CustomID) })
			}
			wg.Wait()
			owner := map[string]string{}
			var slowest time.Duration
			for i, it := range its {
				msg, delay := discordReply(ctx, t, it, containing("/mint/"))
				slowest = max(slowest, delay)
				link := mintLinkRE.FindString(msg.Content)
				if prev, ok := owner[link]; ok {
					t.Errorf("link %s went to %s and %s", link, prev, members[i].ID)
				}
				owner[link] = members[i].ID
			}
			if len(owner) != burst {
				t.Errorf("%d distinct links, want %d", len(owner), burst)
			}
			t.Logf("%d presses of Claim at once: slowest acknowledgement %s", burst, slowest.Round(time.Millisecond))

			edited, err := srv.WaitChannelMessage(ctx, func(m discordtest.ChannelMessage) bool {
				return m.ID == post.ID && linksLeft(m.Content) == before-burst
			})
			if err != nil {
				t.Fatalf("the claim message was not edited to %d links left: %v; now %+v", before-burst, err, srv.ChannelMessages(""))
			}
			if _, ok := edited.Button("Claim"); !ok || len(edited.Embeds) != len(post.Embeds) {
				t.Errorf("edited message lost its button or image: %+v", edited)
			}
			t.Logf("claim message edited %d times for %d claims", edited.Edits, burst)
			for _, m := range srv.ChannelMessages("") {
				if strings.Contains(m.Content, "/mint/") {
					t.Errorf("a mint link was posted in the channel: %q", m.Content)
				}
			}
		})
	}
}

// TestDistribute_Telegram: the claim message in a group opens each
// member's private chat through a deep link, where the member's link
// goes; the group never sees a link, non-members are refused, and the
// group message's count follows.
func TestDistribute_Telegram(t *testing.T) {
	for name, dbURL := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			tg := telegramtest.NewServer(telegramtest.Options{})
			t.Cleanup(tg.Close)
			startMainTuned(t, map[string]string{"DATABASE_URL": dbURL, "TELEGRAM_TOKEN": tg.Token, "TELEGRAM_API_URL": tg.URL()}, false, shortTick)
			ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
			defer cancel()
			group := telegramtest.Group(-1001234567890, "POAP fans")
			mod := telegramtest.User{ID: 900, FirstName: "Mod", Username: "mod"}
			tg.SetAdmins(group.ID, mod.ID)
			tg.SendText(group, mod, fmt.Sprintf("/drop@%s add %d %s delivery:link", tg.Username, sandbox.DemoLinksDropID, sandbox.DemoEditCode))
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(mod.ID), telegramtest.Contains("is set up here"))); err != nil {
				t.Fatalf("the drop was not set up: %v", err)
			}

			tg.SendText(group, mod, fmt.Sprintf("/distribute@%s %d", tg.Username, sandbox.DemoLinksDropID))
			post, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(group.ID), func(m telegramtest.Message) bool { return linksLeft(m.Text) >= 0 }))
			if err != nil {
				t.Fatalf("no claim message in the group: %v", err)
			}
			payload := deepLinkPayload(t, tg, post)
			before := linksLeft(post.Text)
			if before < burst {
				t.Fatalf("claim message counts %d links, want at least %d", before, burst)
			}

			members := telegramMembers(burst)
			var wg sync.WaitGroup
			for _, u := range members {
				wg.Go(func() { tg.SendText(telegramtest.PrivateChat(u), u, "/start "+payload) })
			}
			wg.Wait()
			links := telegramLinks(ctx, t, tg, members)
			owner := map[string]int64{}
			for id, link := range links {
				if prev, ok := owner[link]; ok {
					t.Errorf("link %s went to %d and %d", link, prev, id)
				}
				owner[link] = id
			}
			if len(owner) != burst {
				t.Errorf("%d distinct links, want %d", len(owner), burst)
			}

			outsider := telegramtest.User{ID: 3001, FirstName: "Outsider"}
			tg.SetStatus(group.ID, outsider.ID, "left")
			tg.SendText(telegramtest.PrivateChat(outsider), outsider, "/start "+payload)
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(outsider.ID), telegramtest.Contains("members of the group"))); err != nil {
				t.Errorf("the non-member was not refused: %v", err)
			}

			edit, err := tg.WaitMessage(ctx, func(m telegramtest.Message) bool {
				return strings.HasPrefix(m.Method, "edit") && m.ChatID == group.ID && m.MessageID == post.MessageID && linksLeft(m.Text) == before-burst
			})
			if err != nil {
				t.Fatalf("the claim message was not edited to %d links left: %v", before-burst, err)
			}
			deepLinkPayload(t, tg, edit)
			for _, m := range tg.Messages() {
				if m.ChatID == group.ID && strings.Contains(m.Text+m.Params["reply_markup"], "/mint/") {
					t.Errorf("a mint link was sent to the group: %s", m)
				}
				if m.ChatID == outsider.ID && strings.Contains(m.Text, "/mint/") {
					t.Errorf("the non-member got a link: %s", m)
				}
			}
		})
	}
}

// deepLinkPayload checks the claim message's button opens the bot's
// private chat (t.me/<bot>?start=<payload>) and returns the payload.
func deepLinkPayload(t *testing.T, tg *telegramtest.Server, m telegramtest.Message) string {
	t.Helper()
	if len(m.Buttons) != 1 || len(m.Buttons[0]) != 1 {
		t.Fatalf("claim message buttons = %+v, want one", m.Buttons)
	}
	b := m.Buttons[0][0]
	u, err := url.Parse(b.URL)
	if err != nil || b.CallbackData != "" || u.Host != "t.me" || u.Path != "/"+tg.Username || u.Query().Get("start") == "" {
		t.Fatalf("claim button = %+v, want a URL button to t.me/%s?start=...", b, tg.Username)
	}
	return u.Query().Get("start")
}

// TestDistribute_DiscordThousand is the acceptance burst through the
// Discord Claim button: 1,000 members press Claim on a drop of 800 links at
// once. Every interaction is acknowledged within Discord's 3 s and answered
// privately: 800 distinct links, 200 "none left", no link twice.
func TestDistribute_DiscordThousand(t *testing.T) {
	for name, dbURL := range testDatabases(t) {
		t.Run(name, func(t *testing.T) { discordThousand(t, dbURL) })
	}
}

func discordThousand(t *testing.T, dbURL string) {
	const members, links = 1000, 800
	srv := discordtest.NewServer(t, discordtest.Options{})
	s := startMainTuned(t, map[string]string{
		"DATABASE_URL": dbURL, "DISCORD_TOKEN": discordtest.DefaultToken, "DISCORD_API_URL": srv.URL(), "DISCORD_GUILD_ID": srv.GuildID(),
	}, false, shortTick)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	drop, code := s.m.SandboxAPI.CreateDrop(sandbox.Drop{Name: "Thousand members"}, links)
	add := srv.Command(discordtest.Moderator, fmt.Sprintf("/drop add %d edit_code:%s delivery:link", drop.ID, code))
	if _, err := add.WaitMessage(ctx, containing("is set up here")); err != nil {
		t.Fatalf("/drop add: %v; messages %+v", err, add.Messages())
	}
	dist := srv.Command(discordtest.Moderator, fmt.Sprintf("/distribute %d", drop.ID))
	if _, err := dist.WaitMessage(ctx, containing("Posted the claim message")); err != nil {
		t.Fatal(err)
	}
	post, err := srv.WaitChannelMessage(ctx, func(m discordtest.ChannelMessage) bool { return linksLeft(m.Content) == links })
	if err != nil {
		t.Fatal(err)
	}
	claim, ok := post.Button("Claim")
	if !ok {
		t.Fatalf("the claim message has no Claim button: %+v", post)
	}

	users := discordMembers(members)
	its := make([]*discordtest.Interaction, members)
	var wg sync.WaitGroup
	for i, u := range users {
		wg.Go(func() { its[i] = srv.Press(u, claim.CustomID) })
	}
	wg.Wait()
	owner, noneLeft := map[string]string{}, 0
	var slowest time.Duration
	for i, it := range its {
		msg, delay := discordReply(ctx, t, it, func(m discordtest.Message) bool {
			return strings.Contains(m.Content, "/mint/") || strings.Contains(m.Content, "are taken")
		})
		slowest = max(slowest, delay)
		link := mintLinkRE.FindString(msg.Content)
		if link == "" {
			noneLeft++
			continue
		}
		if prev, ok := owner[link]; ok {
			t.Errorf("link %s went to %s and %s", link, prev, users[i].ID)
		}
		owner[link] = users[i].ID
	}
	if len(owner) != links || noneLeft != members-links {
		t.Errorf("%d distinct links and %d none-left answers, want %d and %d", len(owner), noneLeft, links, members-links)
	}
	t.Logf("%d presses of Claim at once on %d links: slowest acknowledgement %s", members, links, slowest.Round(time.Millisecond))
}
