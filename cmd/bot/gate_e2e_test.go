package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/bot/telegram"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/poap/sandbox"
)

// gateWait bounds each wait of the gating tests: members are checked
// "within seconds", and the bound leaves room for a loaded machine.
const gateWait = 20 * time.Second

// elsewhere is an address nobody in the tests owns, where POAPs move to.
const elsewhere = "0x00000000000000000000000000000000000000e1"

// gatedDrop adds a drop to the sandbox, held by the holders.
func gatedDrop(t *testing.T, s *session, name string, holders ...string) int64 {
	t.Helper()
	d := s.m.SandboxAPI.AddDrop(sandbox.Drop{Name: name})
	if len(holders) > 0 {
		if err := s.m.SandboxAPI.SeedHolders(d.ID, holders); err != nil {
			t.Fatal(err)
		}
	}
	return d.ID
}

// addGroupGate has mod gate the group on drop and returns the bot's answer
// in the group, the one with the join-request link.
func addGroupGate(ctx context.Context, t *testing.T, tg *telegramtest.Server, group telegramtest.Chat, mod telegramtest.User, drop int64) telegramtest.Message {
	t.Helper()
	tg.SendText(group, mod, fmt.Sprintf("/gate@%s add %d", tg.Username, drop))
	added, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(group.ID), telegramtest.Contains("join-request link")))
	if err != nil {
		t.Fatalf("/gate add did not answer in the group: %v", err)
	}
	return added
}

// telegramVerify links and verifies the key's address for u in the
// private chat.
func telegramVerify(ctx context.Context, t *testing.T, tg *telegramtest.Server, u telegramtest.User, address string, sign func(string) string) {
	t.Helper()
	tg.SendText(telegramtest.PrivateChat(u), u, "/link "+address)
	linked, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(u.ID), telegramtest.Contains("Nonce")))
	if err != nil {
		t.Fatalf("%s: no challenge: %v", u.FirstName, err)
	}
	tg.SendText(telegramtest.PrivateChat(u), u, "/verify "+sign(challengeIn(t, linked.Text)))
	if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(u.ID), telegramtest.Contains("Verified"))); err != nil {
		t.Fatalf("%s: not verified: %v", u.FirstName, err)
	}
}

// gatedGroup is the test group with the bot an administrator allowed to
// invite and ban, and its moderator.
func gatedGroup(tg *telegramtest.Server) (telegramtest.Chat, telegramtest.User) {
	group, mod := telegramGroup(tg)
	tg.SetChat(group.ID, "supergroup", group.Title)
	tg.SetBotRights(group.ID, telegramtest.BotRights{Status: "administrator", CanInvite: true, CanRestrict: true, CanDelete: true})
	tg.OpenPrivateChat(mod.ID)
	return group, mod
}

// TestGate_TelegramJoinRequests: a gate on a group answers in the group
// with its join-request link; a request from a member without a verified
// wallet waits while the bot explains in private, and is approved right
// after the member verifies; a verified member without the POAP is
// declined with the drop named; an unverified wallet holding the drop
// never gets in; when the POAP moves away, /gate sync removes the member
// the bot admitted, and tells them.
func TestGate_TelegramJoinRequests(t *testing.T) {
	t.Parallel()
	for name, dbURL := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// Each member reads several private messages in a row;
			// Telegram's three in three seconds would make them wait: this
			// test is not about that limit.
			tg, s := startTelegram(t, dbURL, func(m *Main) {
				m.TelegramLimits.Private = telegram.Window{N: 1000, Per: time.Second}
			})
			ctx, cancel := context.WithTimeout(context.Background(), 3*gateWait)
			defer cancel()
			group, mod := gatedGroup(tg)
			drop := gatedDrop(t, s, "Gated Meetup", coretest.TestAddress, coretest.OtherAddress)

			added := addGroupGate(ctx, t, tg, group, mod, drop)
			if !strings.Contains(added.Text, "Gated Meetup") || !strings.Contains(added.Text, "https://t.me/+") {
				t.Errorf("/gate add reply lacks the drop or the invite link:\n%s", added.Text)
			}

			alice := telegramtest.User{ID: 1001, FirstName: "Alice", Username: "alice"}
			tg.OpenPrivateChat(alice.ID)
			tg.RequestJoin(group.ID, alice)
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(alice.ID), telegramtest.Contains("/verify"))); err != nil {
				t.Fatalf("a requester without a wallet was not told how to verify: %v", err)
			}
			if !tg.JoinPending(group.ID, alice.ID) {
				t.Fatalf("the request of a member without a wallet is not pending")
			}
			telegramVerify(ctx, t, tg, alice, coretest.TestAddress, func(m string) string { return coretest.Sign(coretest.TestKey, m) })
			verified := time.Now()
			waitCtx, waitCancel := context.WithTimeout(ctx, gateWait)
			if err := tg.WaitApproved(waitCtx, group.ID, alice.ID); err != nil {
				t.Fatalf("the pending request was not approved after /verify: %v", err)
			}
			waitCancel()
			t.Logf("join request approved %s after the /verify reply", time.Since(verified))

			// /why in the private chat covers the groups the member is in;
			// /gate check and /setup check answer the moderator in private.
			tg.SendText(telegramtest.PrivateChat(alice), alice, "/why")
			why, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(alice.ID), telegramtest.Contains("needs")))
			if err != nil {
				t.Fatalf("no /why: %v", err)
			}
			if !strings.Contains(why.Text, "POAP fans") || !strings.Contains(why.Text, "You qualify") || !strings.Contains(why.Text, "holds <b>Gated Meetup</b>") {
				t.Errorf("/why = %q", why.Text)
			}
			tg.SendText(group, mod, "/gate@"+tg.Username+" check")
			check, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(mod.ID), telegramtest.Contains("Dry run")))
			if err != nil {
				t.Fatalf("no /gate check: %v", err)
			}
			if !strings.Contains(check.Text, "Would gain: nobody") || !strings.Contains(check.Text, "Would lose: nobody") {
				t.Errorf("/gate check = %q", check.Text)
			}
			tg.SendText(group, mod, "/setup@"+tg.Username+" check")
			setup, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(mod.ID), telegramtest.Contains("Setup check")))
			if err != nil {
				t.Fatalf("no /setup check: %v", err)
			}
			if strings.Contains(setup.Text, "❌") || !strings.Contains(setup.Text, "issuing service") {
				t.Errorf("/setup check with every right = %q", setup.Text)
			}

			// An unverified link holding the drop: the request waits.
			carol := telegramtest.User{ID: 1003, FirstName: "Carol"}
			tg.OpenPrivateChat(carol.ID)
			tg.SendText(telegramtest.PrivateChat(carol), carol, "/link "+coretest.OtherAddress)
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(carol.ID), telegramtest.Contains("Nonce"))); err != nil {
				t.Fatal(err)
			}
			tg.RequestJoin(group.ID, carol)
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(carol.ID), telegramtest.Contains("You asked to join"))); err != nil {
				t.Fatalf("an unverified holder was not told to verify: %v", err)
			}
			if !tg.JoinPending(group.ID, carol.ID) {
				t.Errorf("an unverified wallet holding the drop let the member in")
			}

			// A verified member without the POAP: declined, drop named.
			bob := telegramtest.User{ID: 1002, FirstName: "Bob"}
			tg.OpenPrivateChat(bob.ID)
			bobKey := coretest.MustKey(strings.Repeat("12", 32))
			telegramVerify(ctx, t, tg, bob, coretest.Address(bobKey), func(m string) string { return coretest.Sign(bobKey, m) })
			tg.RequestJoin(group.ID, bob)
			if err := tg.WaitDeclined(ctx, group.ID, bob.ID); err != nil {
				t.Fatalf("a verified non-holder was not declined: %v", err)
			}
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(bob.ID), telegramtest.Contains("Missing: <b>Gated Meetup</b>"))); err != nil {
				t.Fatalf("the declined member was not told which drop is missing: %v", err)
			}

			// The POAP moves away: /gate sync removes alice, and tells her.
			if _, err := s.m.SandboxAPI.MoveToken(drop, coretest.TestAddress, elsewhere); err != nil {
				t.Fatal(err)
			}
			tg.SendText(group, mod, "/gate@"+tg.Username+" sync")
			if err := tg.WaitRemoved(ctx, group.ID, alice.ID); err != nil {
				t.Fatalf("/gate sync did not remove the member whose POAP moved: %v", err)
			}
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(alice.ID), telegramtest.Contains("removed you"))); err != nil {
				t.Errorf("the removed member was not told why: %v", err)
			}
			if st := tg.Member(group.ID, alice.ID); st != "left" {
				t.Errorf("alice is %q after removal, want left (banned then unbanned, so she may ask again)", st)
			}

			// The bot loses its rights: the first refused answer pauses
			// the gate and tells the group once; later requests wait.
			tg.ForbidAdmin(group.ID)
			if _, err := s.m.SandboxAPI.MoveToken(drop, elsewhere, coretest.TestAddress); err != nil {
				t.Fatal(err)
			}
			tg.RequestJoin(group.ID, alice)
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(group.ID), telegramtest.Contains("is paused"))); err != nil {
				t.Fatalf("a refused approval did not pause the gate and tell the group: %v", err)
			}
			tg.RequestJoin(group.ID, bob)
			tg.SendText(group, mod, "/gate@"+tg.Username+" list")
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(mod.ID), telegramtest.Contains("Paused"))); err != nil {
				t.Errorf("/gate list does not show the pause: %v", err)
			}
			paused := 0
			for _, m := range tg.Messages() {
				if m.ChatID == group.ID && strings.Contains(m.Text, "is paused") {
					paused++
				}
			}
			if paused != 1 {
				t.Errorf("the group was told of the pause %d times, want once", paused)
			}
			if !tg.JoinPending(group.ID, alice.ID) || !tg.JoinPending(group.ID, bob.ID) {
				t.Errorf("requests to a paused gate were answered: alice pending %v, bob pending %v",
					tg.JoinPending(group.ID, alice.ID), tg.JoinPending(group.ID, bob.ID))
			}
		})
	}
}

// TestGate_TelegramRefusals: /gate add refuses what the bot could not
// enforce, each with its fix, and stores nothing.
func TestGate_TelegramRefusals(t *testing.T) {
	t.Parallel()
	tg, s := startTelegram(t, "", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*gateWait)
	defer cancel()
	group, mod := gatedGroup(tg)
	drop := gatedDrop(t, s, "Gated Meetup")
	tests := []struct {
		name   string
		rights telegramtest.BotRights
		want   string
	}{
		{"not an administrator", telegramtest.BotRights{Status: "member"}, "I am not an administrator"},
		{"no invite right", telegramtest.BotRights{Status: "administrator", CanRestrict: true}, "I may not invite users"},
		{"no ban right", telegramtest.BotRights{Status: "administrator", CanInvite: true}, "I may not ban users"},
	}
	for _, tt := range tests {
		tg.SetBotRights(group.ID, tt.rights)
		tg.SendText(group, mod, fmt.Sprintf("/gate@%s add %d", tg.Username, drop))
		m, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.Contains("can't enforce"), telegramtest.Contains(tt.want)))
		if err != nil {
			t.Fatalf("%s: no refusal naming %q: %v", tt.name, tt.want, err)
		}
		if !strings.Contains(m.Text, "Fix:") || !strings.Contains(m.Text, "Nothing was stored") {
			t.Errorf("%s: refusal %q lacks its fix", tt.name, m.Text)
		}
	}
	tg.SendText(telegramtest.PrivateChat(mod), mod, fmt.Sprintf("/gate add %d", drop))
	if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(mod.ID), telegramtest.Contains("in the group you want to gate"))); err != nil {
		t.Errorf("/gate add in a private chat was not refused: %v", err)
	}
	tg.SendText(group, mod, "/gate@"+tg.Username+" list")
	if _, err := tg.WaitMessage(ctx, telegramtest.Contains("No gates here")); err != nil {
		t.Errorf("a refused /gate add stored a gate: %v", err)
	}
	if n := len(tg.Calls("createChatInviteLink")); n != 0 {
		t.Errorf("refused /gate add created %d invite links", n)
	}
}

// TestGate_ConsoleRehearsal: the console keeps its roles and prints each
// change, so a whole gate can be rehearsed with -sandbox -console.
func TestGate_ConsoleRehearsal(t *testing.T) {
	t.Parallel()
	for name, url := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startMain(t, url)
			drop := gatedDrop(t, s, "Console Gate", coretest.TestAddress)
			fmt.Fprintf(s.stdin, "/gate add role:holders drops:%d\n", drop)
			waitOutput(t, s, "Gate added")
			fmt.Fprintf(s.stdin, "/as alice\n/link %s\n", coretest.TestAddress)
			waitOutput(t, s, "Signing is free")
			msg := challengeIn(t, s.out.String())
			fmt.Fprintf(s.stdin, "/verify %s\n", coretest.Sign(coretest.TestKey, msg))
			waitOutput(t, s, "[roles] alice gained the role holders")
			fmt.Fprintf(s.stdin, "/why\n")
			waitOutput(t, s, "You qualify")
			// The new gate's first sync, and the evaluation /verify started,
			// run in the background: one that read the holders after the
			// token moved would take the role back before /gate check could
			// see it would.
			ctx, cancel := context.WithTimeout(context.Background(), gateWait)
			defer cancel()
			if err := s.m.gates.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := s.m.SandboxAPI.MoveToken(drop, coretest.TestAddress, elsewhere); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(s.stdin, "/as console\n/gate check\n")
			waitOutput(t, s, "Would lose: 1")
			fmt.Fprintf(s.stdin, "/gate sync\n")
			waitOutput(t, s, "[roles] alice lost the role holders")
		})
	}
}

// discordAnswer waits for the interaction's acknowledgement (in time: the
// fake refuses a late one) and for the message that matches.
func discordAnswer(ctx context.Context, t *testing.T, it *discordtest.Interaction, match func(discordtest.Message) bool) discordtest.Message {
	t.Helper()
	ack, err := it.WaitResponse(ctx)
	if err != nil {
		t.Fatalf("no acknowledgement: %v", err)
	}
	if ack.Late {
		t.Errorf("acknowledged late, after %s", ack.Delay())
	}
	msg, err := it.WaitMessage(ctx, match)
	if err != nil {
		t.Fatalf("no reply: %v; messages %+v", err, it.Messages())
	}
	return msg
}

// discordVerify links and verifies the key's address for u.
func discordVerify(ctx context.Context, t *testing.T, srv *discordtest.Server, u discordtest.User, address string, sign func(string) string) {
	t.Helper()
	linked := discordAnswer(ctx, t, srv.Command(u, "/link "+address), containing("Nonce"))
	discordAnswer(ctx, t, srv.Command(u, "/verify "+sign(challengeIn(t, linked.Content))), containing("Verified"))
}

// TestGate_Discord: verify → role granted; an unverified wallet holding the
// drop never gets it; a role set by hand on a non-holder survives a sync;
// a member who joins gets the role on join; the POAP moved away → role
// removed at /gate sync; /unlink removes the role; a 50013 pauses the gate
// and tells the moderators once, /gate list shows it, and /gate sync
// resumes it once the permission is back.
func TestGate_Discord(t *testing.T) {
	t.Parallel()
	for name, dbURL := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, s := startDiscord(t, dbURL, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 6*gateWait)
			defer cancel()
			const holders, artists = "600000000000000001", "600000000000000002"
			srv.AddRole(discordgo.Role{ID: holders, Name: "Holders", Position: 1})
			srv.AddRole(discordgo.Role{ID: artists, Name: "Artists", Position: 2})
			unverified := "0x00000000000000000000000000000000000000d1"
			drop := gatedDrop(t, s, "Discord Gate", coretest.TestAddress, coretest.OtherAddress, unverified)
			alice, bob := discordtest.Alice, discordtest.Bob
			carol := discordtest.User{ID: "400000000000000007", Username: "carol"}
			dave := discordtest.User{ID: "400000000000000008", Username: "dave"}
			srv.AddMember(alice.ID, alice.Username)
			srv.AddMember(bob.ID, bob.Username, holders) // set by hand, holds nothing
			srv.AddMember(dave.ID, dave.Username)

			added := discordAnswer(ctx, t, srv.Command(discordtest.Moderator, fmt.Sprintf("/gate add drops:%d role:%s", drop, holders)), containing("Gate added"))
			if !strings.Contains(added.Content, "<@&"+holders+">") || !strings.Contains(added.Content, "Discord Gate") {
				t.Errorf("/gate add reply = %q", added.Content)
			}

			discordVerify(ctx, t, srv, alice, coretest.TestAddress, func(m string) string { return coretest.Sign(coretest.TestKey, m) })
			// wait waits for the role change and logs how long it took
			// from the reply before it (a figure, not an assertion).
			wait := func(u discordtest.User, has bool, what string) {
				t.Helper()
				from := time.Now()
				wctx, wcancel := context.WithTimeout(ctx, gateWait)
				defer wcancel()
				if err := srv.WaitRole(wctx, u.ID, holders, has); err != nil {
					t.Fatalf("%s: %v (roles %v)", what, err, srv.MemberRoles(u.ID))
				}
				t.Logf("%s has the role: %v, %s after the reply before", u.Username, has, time.Since(from))
			}
			wait(alice, true, "no role after /verify")

			// Dave links the unverified holder's address without verifying.
			discordAnswer(ctx, t, srv.Command(dave, "/link "+unverified), containing("Nonce"))
			synced := discordAnswer(ctx, t, srv.Command(discordtest.Moderator, "/gate sync"), containing("Synced"))
			if slices.Contains(srv.MemberRoles(dave.ID), holders) {
				t.Errorf("an unverified wallet holding the drop got the role; sync said %q", synced.Content)
			}
			if !slices.Contains(srv.MemberRoles(bob.ID), holders) {
				t.Errorf("a role set by hand on a non-holder was removed by the sync")
			}

			// /why and /setup check.
			why := discordAnswer(ctx, t, srv.Command(dave, "/why"), containing("needs"))
			if !strings.Contains(why.Content, "not verified, not counted") || !strings.Contains(why.Content, "don't qualify") {
				t.Errorf("/why of an unverified holder = %q", why.Content)
			}
			setup := discordAnswer(ctx, t, srv.Command(discordtest.Moderator, "/setup check"), containing("Setup check"))
			if !strings.Contains(setup.Content, "✅") || !strings.Contains(setup.Content, "Manage Roles") || !strings.Contains(setup.Content, "issuing service") {
				t.Errorf("/setup check = %q", setup.Content)
			}

			// Carol verifies before she is in the server, then joins.
			discordVerify(ctx, t, srv, carol, coretest.OtherAddress, func(m string) string { return coretest.Sign(coretest.OtherKey, m) })
			if err := srv.Join(ctx, carol.ID, carol.Username); err != nil {
				t.Fatal(err)
			}
			wait(carol, true, "no role on join")

			// The POAP moves away: /gate sync takes the role back. The
			// gate's first sync and the join's evaluation run in the
			// background: one still reading the holders would take the
			// role back before /gate check could see it would.
			if err := s.m.gates.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := s.m.SandboxAPI.MoveToken(drop, coretest.TestAddress, elsewhere); err != nil {
				t.Fatal(err)
			}
			check := discordAnswer(ctx, t, srv.Command(discordtest.Moderator, "/gate check"), containing("Dry run"))
			if !strings.Contains(check.Content, "Would lose: 1: <@"+alice.ID+">") {
				t.Errorf("/gate check = %q, want alice to lose", check.Content)
			}
			discordAnswer(ctx, t, srv.Command(discordtest.Moderator, "/gate sync"), containing("Synced"))
			wait(alice, false, "role kept after the POAP moved away")

			// /unlink takes it back within seconds.
			discordAnswer(ctx, t, srv.Command(carol, "/unlink"), containing("nlinked"))
			wait(carol, false, "role kept after /unlink")

			// 50013: the gate pauses, the moderators are told once.
			srv.ForbidRoleChanges(true)
			if _, err := s.m.SandboxAPI.MoveToken(drop, elsewhere, coretest.TestAddress); err != nil {
				t.Fatal(err)
			}
			paused := discordAnswer(ctx, t, srv.Command(discordtest.Moderator, "/gate sync"), containing("Synced"))
			if !strings.Contains(paused.Content, "paused") {
				t.Errorf("/gate sync after a 50013 = %q, want the gate paused", paused.Content)
			}
			discordAnswer(ctx, t, srv.Command(discordtest.Moderator, "/gate sync"), containing("still paused"))
			notices := 0
			for _, m := range srv.ChannelMessages("") {
				if strings.Contains(m.Content, "is paused") {
					notices++
				}
			}
			if notices != 1 {
				t.Errorf("moderators told %d times of the pause, want once", notices)
			}
			list := discordAnswer(ctx, t, srv.Command(discordtest.Moderator, "/gate list"), containing("Gates here"))
			if !strings.Contains(list.Content, "Paused") {
				t.Errorf("/gate list does not show the pause: %q", list.Content)
			}
			srv.ForbidRoleChanges(false)
			discordAnswer(ctx, t, srv.Command(discordtest.Moderator, "/gate sync"), containing("1 gained"))
			wait(alice, true, "the role was not given once the permission was back")
		})
	}
}

// TestGate_DiscordRefusals: /gate add refuses what the bot could not
// enforce, each with its own message, and stores nothing.
func TestGate_DiscordRefusals(t *testing.T) {
	t.Parallel()
	srv, s := startDiscord(t, "", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*gateWait)
	defer cancel()
	const above = "600000000000000009"
	srv.AddRole(discordgo.Role{ID: above, Name: "Admins", Position: 20})
	drop := gatedDrop(t, s, "Refused Gate")
	seen := map[string]bool{}
	for _, role := range []string{srv.GuildID(), discordtest.DefaultBotRoleID, above} {
		m := discordAnswer(ctx, t, srv.Command(discordtest.Moderator, fmt.Sprintf("/gate add drops:%d role:%s", drop, role)), containing("can't enforce"))
		if seen[m.Content] || !strings.Contains(m.Content, "Fix:") || !strings.Contains(m.Content, "Nothing was stored") {
			t.Errorf("role %s: refusal %q is not its own, or lacks its fix", role, m.Content)
		}
		seen[m.Content] = true
	}
	srv.SetBotRoles() // no Manage Roles left
	const low = "600000000000000001"
	srv.AddRole(discordgo.Role{ID: low, Name: "Holders", Position: 1})
	m := discordAnswer(ctx, t, srv.Command(discordtest.Moderator, fmt.Sprintf("/gate add drops:%d role:%s", drop, low)), containing("can't enforce"))
	if !strings.Contains(m.Content, "Manage Roles") {
		t.Errorf("refusal without Manage Roles = %q", m.Content)
	}
	discordAnswer(ctx, t, srv.Command(discordtest.Moderator, "/gate list"), containing("No gates here"))
	discordAnswer(ctx, t, srv.Command(discordtest.Moderator, "/gate add drops:12,abc role:"+low), containing("Those drops don't look right"))
	discordAnswer(ctx, t, srv.Command(discordtest.Moderator, fmt.Sprintf("/gate add drops:%d mode:atleast:2 role:%s", drop, low)), containing("That mode doesn't look right"))
}
