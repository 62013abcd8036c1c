package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// memberKey is member i's wallet key, for proving ownership.
func memberKey(i int) *secp256k1.PrivateKey {
	return coretest.MustKey(fmt.Sprintf("%064x", 0xde11000+i))
}

// signer signs with key.
func signer(key *secp256k1.PrivateKey) func(string) string {
	return func(m string) string { return coretest.Sign(key, m) }
}

// TestDelivery_Discord: /drop deliver role:<role> shows a draft with the
// list's size and a button; the button creates the delivery at POAP, whose
// list holds exactly the verified addresses of the role's members (one
// each: a member's verified wallet, not their unverified primary); a
// listed member claims from the chat, once, and again hears they have it;
// a claim whose answer was lost is settled, not sent twice; a member not on
// the list is told so; /drop info shows the page and the claims; a second
// delivery of the drop is refused. A drop whose edit code POAP no longer
// accepts creates nothing and stores nothing, and neither does /drop
// website with it.
func TestDelivery_Discord(t *testing.T) {
	t.Parallel()
	for name, url := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, s := startDiscord(t, url, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			sb := s.m.SandboxAPI
			mod := discordtest.Moderator
			const attendees = "600000000000000011"
			srv.AddRole(discordgo.Role{ID: attendees, Name: "Attendees", Position: 1})
			drop, code := sb.CreateDrop(sandbox.Drop{Name: "Devcon Attendees"}, 0)
			id := fmt.Sprint(drop.ID)
			discordReply(ctx, t, srv.Command(mod, fmt.Sprintf("/drop add %s edit_code:%s delivery:link", id, code)), containing("is set up here"))

			// Members 0 to 3 have the role and a verified wallet; member
			// 4 has the role and only an unverified wallet; member 5 a
			// verified wallet and no role; member 3's primary wallet is
			// unverified, their second one verified.
			users := discordMembers(6)
			var want []string
			for i, u := range users {
				if i == 5 {
					srv.AddMember(u.ID, u.Username)
				} else {
					srv.AddMember(u.ID, u.Username, attendees)
				}
				switch i {
				case 4:
					discordReply(ctx, t, srv.Command(u, "/link "+memberWallet(i)), containing("Nonce"))
					continue
				case 3:
					discordReply(ctx, t, srv.Command(u, "/link "+memberWallet(i)), containing("primary"))
				}
				key := memberKey(i)
				discordVerify(ctx, t, srv, u, coretest.Address(key), signer(key))
				if i != 5 {
					want = append(want, strings.ToLower(coretest.Address(key)))
				}
			}
			slices.Sort(want)

			discordReply(ctx, t, srv.Command(mod, "/drop deliver "+id), containing("name the role"))
			draft, _ := discordReply(ctx, t, srv.Command(mod, fmt.Sprintf("/drop deliver %s role:%s slug:devcon-attendees", id, attendees)),
				containing("Delivery draft"))
			for _, w := range []string{"**4 addresses**", "<@&" + attendees + ">", "fixed once created", "/delivery/devcon-attendees"} {
				if !strings.Contains(draft.Content, w) {
					t.Errorf("draft = %q, want %q in it", draft.Content, w)
				}
			}
			if n := sb.Requests(wire.OpCreateDelivery); n != 0 {
				t.Errorf("the draft sent %d creations to POAP, want none before the button", n)
			}
			create, ok := draft.Button("Create the delivery")
			if !ok {
				t.Fatalf("draft buttons %+v, want Create the delivery", draft.Buttons)
			}
			created, _ := discordReply(ctx, t, srv.Press(mod, create.CustomID), containing("Delivery created"))
			t.Logf("created: %s", created.Content)
			if got := sb.DeliveryAddresses("devcon-attendees"); !slices.Equal(got, want) {
				t.Errorf("POAP's list = %v, want the role's verified addresses %v", got, want)
			}
			discordReply(ctx, t, srv.Press(mod, create.CustomID), containing("created already"))
			if n := sb.Requests(wire.OpCreateDelivery); n != 1 {
				t.Errorf("%d creations sent to POAP, want 1", n)
			}

			// Member 1 claims: minted to their listed address, once.
			claimed, _ := discordReply(ctx, t, srv.Command(users[1], "/claim "+id), containing("Claimed"))
			if addr := strings.ToLower(coretest.Address(memberKey(1))); !strings.Contains(strings.ToLower(claimed.Content), addr) {
				t.Errorf("claim answer %q does not name the listed address %s", claimed.Content, addr)
			}
			discordReply(ctx, t, srv.Command(users[1], "/claim "+id), containing("You have it already"))

			// Member 2's answer is lost: their next claim settles it
			// (their address holds the drop) and sends nothing again.
			sb.DropNextMintResponses(1)
			discordReply(ctx, t, srv.Command(users[2], "/claim "+id), containing("POAP has not confirmed it"))
			sends := sb.Requests(wire.OpClaimDelivery)
			discordReply(ctx, t, srv.Command(users[2], "/claim "+id), containing("Claimed"))
			if n := sb.Requests(wire.OpClaimDelivery); n != sends {
				t.Errorf("the settled claim sent %d more delivery claims, want none", n-sends)
			}
			// Member 3 is listed with their verified wallet.
			discordReply(ctx, t, srv.Command(users[3], "/claim "+id), containing("Claimed"))

			for _, i := range []int{4, 5} {
				discordReply(ctx, t, srv.Command(users[i], "/claim "+id), containing("not on the delivery list"))
			}
			holders := sb.Holders(drop.ID)
			for i := 1; i <= 3; i++ {
				addr := strings.ToLower(coretest.Address(memberKey(i)))
				n := 0
				for _, h := range holders {
					if strings.EqualFold(h, addr) {
						n++
					}
				}
				if n != 1 {
					t.Errorf("member %d's listed address holds %d POAPs of the drop, want 1", i, n)
				}
			}
			if n := sb.MintCount(drop.ID); n != 3 {
				t.Errorf("%d mints, want 3", n)
			}

			info, _ := discordReply(ctx, t, srv.Command(mod, "/drop info "+id), containing("Delivery page"))
			for _, w := range []string{"delivery — minted to the members", "4 addresses on its list", "3 claimed", "POAP counts 3 of 4 claimed"} {
				if !strings.Contains(info.Content, w) {
					t.Errorf("/drop info = %q, want %q in it", info.Content, w)
				}
			}
			discordReply(ctx, t, srv.Command(mod, fmt.Sprintf("/drop deliver %s role:%s", id, attendees)), containing("has a delivery already"))

			// A drop whose edit code POAP no longer accepts: the draft
			// is built (nothing is sent), its creation and a website
			// request are refused and store nothing.
			other, otherCode := sb.CreateDrop(sandbox.Drop{Name: "Changed code"}, 0)
			oid := fmt.Sprint(other.ID)
			discordReply(ctx, t, srv.Command(mod, fmt.Sprintf("/drop add %s edit_code:%s delivery:link", oid, otherCode)), containing("is set up here"))
			if err := sb.SetEditCode(other.ID, "654321"); err != nil {
				t.Fatal(err)
			}
			draft2, _ := discordReply(ctx, t, srv.Command(mod, fmt.Sprintf("/drop deliver %s role:%s", oid, attendees)), containing("Delivery draft"))
			create2, _ := draft2.Button("Create the delivery")
			refused, _ := discordReply(ctx, t, srv.Press(mod, create2.CustomID), containing("POAP refused the edit code stored for drop"))
			web, _ := discordReply(ctx, t, srv.Command(mod, "/drop website "+oid+" claim_name:changed-code"), containing("POAP refused the edit code stored for drop"))
			info2, _ := discordReply(ctx, t, srv.Command(mod, "/drop info "+oid), containing("Claim method: link"))
			if strings.Contains(info2.Content, "Delivery page") || strings.Contains(info2.Content, "Website claim") {
				t.Errorf("/drop info after the refusals = %q, want neither a delivery nor a website", info2.Content)
			}
			if n := sb.Requests(wire.OpCreateDelivery); n != 2 {
				t.Errorf("%d creations sent, want 2 (one refused)", n)
			}
			for _, a := range []string{draft.Content, created.Content, refused.Content, web.Content, info.Content} {
				if strings.Contains(a, code) || strings.Contains(a, otherCode) || strings.Contains(a, "654321") {
					t.Errorf("an answer shows an edit code: %q", a)
				}
			}
		})
	}
}

// TestDelivery_TelegramGroup: /drop deliver in a group lists the verified
// members the bot finds in it (getChatMember), shows the draft in the
// group with its button, and the button, pressed by a moderator there,
// creates the delivery; a listed member claims in private; one who left
// the group is not listed.
func TestDelivery_TelegramGroup(t *testing.T) {
	t.Parallel()
	tg, s := startTelegram(t, "", nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sb := s.m.SandboxAPI
	group, mod := telegramGroup(tg)
	tg.OpenPrivateChat(mod.ID)
	drop, code := sb.CreateDrop(sandbox.Drop{Name: "Group Delivery"}, 0)
	addTelegramDropOf(ctx, t, tg, group, mod, drop.ID, code)

	users := []telegramtest.User{{ID: 2101, FirstName: "Ann"}, {ID: 2102, FirstName: "Ben"}, {ID: 2103, FirstName: "Cat"}}
	var want []string
	for i, u := range users {
		tg.OpenPrivateChat(u.ID)
		key := memberKey(10 + i)
		telegramVerify(ctx, t, tg, u, coretest.Address(key), signer(key))
		if i == 1 {
			tg.SetStatus(group.ID, u.ID, "left")
			continue
		}
		want = append(want, strings.ToLower(coretest.Address(key)))
	}
	slices.Sort(want)

	tg.SendText(group, mod, fmt.Sprintf("/drop@%s deliver %d", tg.Username, drop.ID))
	draft, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(group.ID), telegramtest.Contains("Delivery draft")))
	if err != nil {
		t.Fatalf("no draft in the group: %v", err)
	}
	if !strings.Contains(draft.Text, "2 addresses") || !strings.Contains(draft.Text, "members of this group") {
		t.Errorf("draft = %q, want 2 addresses of the group's members", draft.Text)
	}
	if _, err := tg.PressButton(draft, mod, "Create the delivery"); err != nil {
		t.Fatal(err)
	}
	created, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(group.ID), telegramtest.Contains("Delivery created")))
	if err != nil {
		t.Fatalf("not created: %v", err)
	}
	slug := created.Text[strings.Index(created.Text, "/delivery/")+len("/delivery/"):]
	slug = strings.FieldsFunc(slug, func(r rune) bool { return r == ' ' || r == '\n' || r == '"' || r == '<' })[0]
	if got := sb.DeliveryAddresses(slug); !slices.Equal(got, want) {
		t.Errorf("POAP's list at %q = %v, want %v", slug, got, want)
	}
	tg.SendText(telegramtest.PrivateChat(users[0]), users[0], fmt.Sprintf("/claim %d", drop.ID))
	if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(users[0].ID), telegramtest.Contains("Claimed"))); err != nil {
		t.Errorf("the listed member could not claim: %v", err)
	}
}

// TestDistribution_ConsoleRehearsal: with -sandbox -console a moderator
// rehearses the other distribution methods end to end: a website claim
// requested, shown waiting for review, approved by the sandbox and minted
// to a member's wallet; a delivery to every verified console member
// (role:everyone), drafted, created with the line its button gives,
// claimed by a listed member and refused to one who is not.
func TestDistribution_ConsoleRehearsal(t *testing.T) {
	t.Parallel()
	for name, url := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startMainTuned(t, map[string]string{"DATABASE_URL": url}, true, func(m *Main) { m.WebsiteWait = time.Second })
			sb := s.m.SandboxAPI
			key := memberKey(20)
			consoleAnswer(t, s, "/as alice", "You are now alice")
			linked := consoleAnswer(t, s, "/link "+coretest.Address(key), "Signing is free")
			consoleAnswer(t, s, "/verify "+coretest.Sign(key, challengeIn(t, linked)), "Verified")
			consoleAnswer(t, s, "/as console", "the moderator")

			// Website claim.
			web, webCode := sb.CreateDrop(sandbox.Drop{Name: "Console Website"}, 0)
			consoleAnswer(t, s, fmt.Sprintf("/drop add %d %s delivery:link", web.ID, webCode), "is set up here")
			consoleAnswer(t, s, fmt.Sprintf("/drop website %d console-site count:5", web.ID), "Asked POAP for the website claim")
			consoleAnswer(t, s, fmt.Sprintf("/drop info %d", web.ID), "waiting for POAP's review")
			if n := sb.ApproveRequests(web.ID); n != 1 {
				t.Fatalf("ApproveRequests() = %d, want 1", n)
			}
			consoleAnswer(t, s, "/as alice", "You are now alice")
			claimed := func(out string) bool {
				return strings.Contains(out, "Minted ") || strings.Contains(out, "You have it already")
			}
			for out := ""; !claimed(out); {
				before := len(s.out.String())
				fmt.Fprintf(s.stdin, "/claim %d\n", web.ID)
				out = waitAfter(t, s, before, func(out string) bool { return claimed(out) || strings.Contains(out, "in the queue") })
			}

			// Delivery.
			id := sandbox.DemoLinksDropID
			consoleAnswer(t, s, "/as console", "the moderator")
			consoleAnswer(t, s, fmt.Sprintf("/drop add %d %s", id, sandbox.DemoEditCode), "is set up here")
			draft := consoleAnswer(t, s, fmt.Sprintf("/drop deliver %d role:everyone", id), "[Create the delivery] type: ")
			if !strings.Contains(draft, "1 address") || !strings.Contains(draft, "fixed once created") {
				t.Errorf("draft = %q, want 1 address and the warning", draft)
			}
			line := strings.TrimSpace(draft[strings.Index(draft, "type: ")+len("type: "):])
			line = strings.SplitN(line, "\n", 2)[0]
			consoleAnswer(t, s, line, "Delivery created")
			consoleAnswer(t, s, "/as alice", "You are now alice")
			consoleAnswer(t, s, fmt.Sprintf("/claim %d", id), "Claimed")
			consoleAnswer(t, s, "/as bob", "You are now bob")
			consoleAnswer(t, s, fmt.Sprintf("/claim %d", id), "not on the delivery list")
			holds := false
			for _, h := range sb.Holders(id) {
				holds = holds || strings.EqualFold(h, coretest.Address(key))
			}
			if !holds {
				t.Errorf("alice's address does not hold the delivered drop")
			}
		})
	}
}
