package bot

import (
	"fmt"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/sandbox"
)

// TestBot_Drop_Edit changes each setting of a drop in place, saying old →
// new, and refuses bad input with nothing changed.
func TestBot_Drop_Edit(t *testing.T) {
	t.Parallel()
	eachDropEnv(t, func(t *testing.T, e *dropEnv) {
		wantText(t, e.mod(t, demoDrop+" delivery:link ends:2030-01-01 codeword:moon"), "is set up here.")
		wantText(t, e.as(t, "alice", false, "/claim 197001 moon"), "sbx006")
		steps := []struct {
			line  string
			wants []string
		}{
			{"/drop edit 197001 ends:2031-01-01 12:00", []string{"Changed **Sandbox Demo Drop**", "• ends: 2030-01-01 at 00:00 UTC → 2031-01-01 at 12:00 UTC"}},
			{"/drop edit 197001 starts:2026-12-01 18:00", []string{"• starts: none (open now) → 2026-12-01 at 18:00 UTC"}},
			{"/drop edit 197001 starts:none", []string{"• starts: 2026-12-01 at 18:00 UTC → none (open now)"}},
			{"/drop edit 197001 codeword:sun", []string{"• codeword: `moon` → `sun`"}},
			{"/drop edit 197001 codeword:none", []string{"• codeword: `sun` → none"}},
			{"/drop edit 197001 required_role:42", []string{"• required_role: none (everyone here) → the role or group `42`"}},
			{"/drop edit 197001 required_role:none", []string{"• required_role: the role or group `42` → none (everyone here)"}},
			{"/drop edit 197001 delivery:mint", []string{"• delivery: link → mint"}},
			{"/drop edit 197001 low_stock:0", []string{"• low_stock: 10 → 0 (never tell)"}},
			{"/drop edit 197001 low_stock:5 delivery:auto", []string{"• delivery: mint → auto", "• low_stock: 0 (never tell) → 5"}},
			{"/drop edit 197001 low_stock:5", []string{"Nothing changed: **Sandbox Demo Drop** (drop `197001`) has those settings already."}},
			{"/drop edit 197001 ends:none", []string{"• ends: 2031-01-01 at 12:00 UTC → none (never)"}},
		}
		for _, s := range steps {
			wantText(t, e.mod(t, s.line), s.wants...)
		}
		wantText(t, e.as(t, "alice", false, "/claim 197001"), "before; here is your mint link again", "sbx006")

		wantText(t, e.mod(t, "/drop edit 197001 ends:2031-01-01"), "• ends: none (never) → 2031-01-01 at 00:00 UTC")
		info := e.mod(t, "/drop info 197001").Text
		refusals := []struct{ line, want string }{
			{"/drop edit 197001 ends:2020-01-01", "That claim window can't work"},
			{"/drop edit 197001 starts:2031-06-01", "That claim window can't work"},
			{"/drop edit 197001 starts:tomorrow", "The option `starts` must be a date and time in UTC"},
			{"/drop edit 197001 delivery:pigeon", "The option `delivery` must be auto, link, mint or website"},
			{"/drop edit 197001 low_stock:-1", "must be a number of links"},
			{"/drop edit 197001 low_stock:lots", "must be a whole number"},
			{"/drop edit 197001 website:my-site", "goes with delivery:website only"},
			{"/drop edit 197001 delivery:website", "is required with delivery:website"},
			{"/drop edit 197001", "Give at least one setting to change"},
			{"/drop edit 5 codeword:x", "There is no drop `5` here."},
			{"/drop edit 0 codeword:x", "must be a drop id"},
		}
		for _, r := range refusals {
			wantText(t, e.mod(t, r.line), r.want)
		}
		wantText(t, e.as(t, "bob", false, "/drop edit 197001 codeword:x"), "Only moderators can run `/drop edit` here.")
		if got := e.mod(t, "/drop info 197001").Text; got != info {
			t.Errorf("/drop info after refused edits = %q, want %q unchanged", got, info)
		}
		wantText(t, e.mod(t, "/drop remove 197001"), "Stopped")
		wantText(t, e.mod(t, "/drop edit 197001 codeword:x"), "There is no drop `197001` here.")
	})
}

// TestBot_Drop_AddAgain: a drop removed and added again gives each member
// the link they had, or tells a member minted to that they have it.
func TestBot_Drop_AddAgain(t *testing.T) {
	t.Parallel()
	eachDropEnv(t, func(t *testing.T, e *dropEnv) {
		e.mod(t, demoDrop)
		wantText(t, e.as(t, "alice", false, "/claim"), "sbx006")
		e.linkWallet(t, "carol", address(3))
		wantText(t, e.as(t, "carol", false, "/claim"), "Minted **Sandbox Demo Drop**")
		wantText(t, e.mod(t, "/drop remove 197001"), "Stopped **Sandbox Demo Drop**",
			"adding the drop here again with `/drop add 197001 <edit_code>` gives each member the same link back")
		wantText(t, e.mod(t, demoDrop+" codeword:sun"), "is set up here again: members who were given a link before get the same one back",
			"1 handed out · 1 minted")
		wantText(t, e.as(t, "alice", false, "/claim 197001 sun"), "before; here is your mint link again", "sbx006")
		wantText(t, e.as(t, "carol", false, "/claim 197001 sun"), "You have it already")
		bob := e.as(t, "bob", false, fmt.Sprintf("/claim %d sun", sandbox.DemoLinksDropID))
		wantText(t, bob, "Here is your mint link")
		if l := bob.Buttons; len(l) != 1 || l[0].URL == "https://poap.test/mint/sbx006" {
			t.Errorf("bob's claim buttons = %+v, want a link of his own", l)
		}
	})
}

// TestChangeText_Public: an answer the whole group reads leaves the
// codeword and the website claim's name out.
func TestChangeText_Public(t *testing.T) {
	before := core.Drop{EventID: 7, Name: "Meetup", Codeword: "moon", Method: core.ClaimLink}
	after := before
	after.Codeword, after.Method, after.Website = "sun", core.ClaimWebsite, "secret-site"
	got := changeText(core.DropChange{Before: before, After: after}, true)
	for _, leak := range []string{"moon", "sun", "secret-site"} {
		if strings.Contains(got, leak) {
			t.Errorf("changeText(public) = %q, shows %q", got, leak)
		}
	}
	for _, want := range []string{"• codeword: changed (not shown in the group)", "• delivery: link → website"} {
		if !strings.Contains(got, want) {
			t.Errorf("changeText(public) = %q, want %q", got, want)
		}
	}
}
