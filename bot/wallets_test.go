package bot

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

// TestBot_Link_Limits: past MAX_WALLETS and MAX_CHALLENGES /link is
// refused with the limit and what to do, and nothing is stored; relinking
// a wallet is not a new one.
func TestBot_Link_Limits(t *testing.T) {
	t.Parallel()
	eachLinkEnv(t, Options{}, func(t *testing.T, base *linkEnv) {
		e := base.withLimits(core.LinkLimits{Wallets: 2, Challenges: 3}, Options{})
		e.as(t, "alice", "/link "+testAddress)
		e.as(t, "alice", "/link alice@example.org")
		before := e.snapshot(t, "alice")
		e.obs.seen = nil
		wantText(t, e.as(t, "alice", "/link alice.eth"),
			"You have linked 2 wallets, the most a member can link here, so I linked nothing new.",
			"To link another, `/unlink <wallet>` one first")
		sameState(t, before, e.snapshot(t, "alice"))
		if len(e.obs.seen) != 1 || !strings.HasSuffix(e.obs.seen[0], "/user_error") {
			t.Errorf("observed %v, want one user_error", e.obs.seen)
		}
		wantText(t, e.as(t, "alice", "/link "+testAddress), "You linked `"+testAddress+"` before; nothing was replaced.")
		e.as(t, "alice", "/link "+testAddress)
		before = e.snapshot(t, "alice")
		wantText(t, e.as(t, "alice", "/link "+testAddress),
			"You have 3 wallet challenges waiting for a signature, the most at once",
			"send `/verify <signature>`, or wait until 17:10 UTC")
		sameState(t, before, e.snapshot(t, "alice"))
		wantText(t, e.as(t, "alice", "/wallet"), "**Your wallets**: 2 of at most 2; mints go to the primary:\n1. ")
	})
}

// TestBot_Link_OverLimit: a member who linked more wallets than a limit
// set later keeps them all, is told so, and links nothing new until under
// it.
func TestBot_Link_OverLimit(t *testing.T) {
	t.Parallel()
	eachLinkEnv(t, Options{}, func(t *testing.T, e *linkEnv) {
		for _, w := range []string{"a@example.org", "b@example.org", "c@example.org", "d@example.org"} {
			e.as(t, "alice", "/link "+w)
		}
		low := e.withLimits(core.LinkLimits{Wallets: 2}, Options{})
		wantText(t, low.as(t, "alice", "/wallet"),
			"**Your wallets**: 4, more than the 2 a member can link now. They stay linked; to link a new one, `/unlink` 3 first.",
			"4. `d@example.org`")
		wantText(t, low.as(t, "alice", "/link e@example.org"),
			"You have 4 linked wallets, more than the 2 a member can link now", "`/unlink <wallet>` 3 of them first")
		wantText(t, low.as(t, "alice", "/link b@example.org"), "You linked `b@example.org` before")
		low.as(t, "alice", "/unlink a@example.org")
		low.as(t, "alice", "/unlink b@example.org")
		wantText(t, low.as(t, "alice", "/link e@example.org"), "You have linked 2 wallets, the most")
		low.as(t, "alice", "/unlink c@example.org")
		wantText(t, low.as(t, "alice", "/link e@example.org"), "Linked `e@example.org`.")
	})
}

// TestBot_Wallet_Pages: /wallet shows ten wallets a page with Previous and
// Next buttons that run the next page, and every page stays well under
// Discord's 2,000 characters, also with the longest names.
func TestBot_Wallet_Pages(t *testing.T) {
	t.Parallel()
	eachLinkEnv(t, Options{}, func(t *testing.T, base *linkEnv) {
		e := base.withLimits(core.LinkLimits{Wallets: 50, Challenges: 50}, Options{})
		for i := range 23 {
			e.as(t, "alice", fmt.Sprintf("/link m%02d@example.org", i))
		}
		first := e.as(t, "alice", "/wallet")
		wantText(t, first, "**Your wallets**: 23 of at most 50; mints go to the primary (page 1 of 3):\n1. `m00@example.org`", "10. `m09@example.org`")
		if strings.Contains(first.Text, "m10@") {
			t.Errorf("page 1 shows the 11th wallet:\n%s", first.Text)
		}
		if diff := cmp.Diff([]Button{{Label: "Next", Command: "/wallet page:2"}}, first.Buttons, ignoreAction); diff != "" {
			t.Fatalf("page 1 buttons (-want +got):\n%s", diff)
		}
		second := e.as(t, "alice", first.Buttons[0].Command)
		wantText(t, second, "(page 2 of 3)", "11. `m10@example.org`", "20. `m19@example.org`")
		want := []Button{{Label: "Previous", Command: "/wallet page:1"}, {Label: "Next", Command: "/wallet page:3"}}
		if diff := cmp.Diff(want, second.Buttons, ignoreAction); diff != "" {
			t.Errorf("page 2 buttons (-want +got):\n%s", diff)
		}
		last := e.as(t, "alice", "/wallet page:3")
		wantText(t, last, "(page 3 of 3)", "23. `m22@example.org`")
		if diff := cmp.Diff([]Button{{Label: "Previous", Command: "/wallet page:2"}}, last.Buttons, ignoreAction); diff != "" {
			t.Errorf("page 3 buttons (-want +got):\n%s", diff)
		}
		wantText(t, e.as(t, "alice", "/wallet page:4"), "You have 23 linked wallets, on 3 pages; there is no page 4.")

		for i := range 12 {
			e.as(t, "bob", "/link "+longName(i))
		}
		seen := 0
		for page := 1; ; page++ {
			r := e.as(t, "bob", fmt.Sprintf("/wallet page:%d", page))
			if n := utf8.RuneCountInString(r.Text); n > 1800 {
				t.Errorf("page %d of long names has %d characters, want at most 1800", page, n)
			}
			seen += strings.Count(r.Text, ".eth`")
			if len(r.Buttons) == 0 || r.Buttons[len(r.Buttons)-1].Label != "Next" {
				break
			}
		}
		if seen != 12 {
			t.Errorf("the pages show %d of 12 long names", seen)
		}
	})
}

// longName is an ENS name of 252 characters, numbered i.
func longName(i int) string {
	return fmt.Sprintf("%02d", i) + strings.Repeat("a", 61) + "." + strings.Repeat("b", 63) + "." +
		strings.Repeat("c", 63) + "." + strings.Repeat("d", 56) + ".eth"
}

// TestBot_Verify_Locked: the 10th wrong signature locks the challenge and
// says to run /link again; the right signature is refused with the same
// words; a fresh challenge verifies.
func TestBot_Verify_Locked(t *testing.T) {
	t.Parallel()
	eachLinkEnv(t, Options{}, func(t *testing.T, e *linkEnv) {
		m := message(t, e.as(t, "alice", "/link "+testAddress))
		wrong := "/verify " + coretest.Sign(coretest.OtherKey, m)
		for range core.MaxWrongSignatures - 1 {
			wantText(t, e.as(t, "alice", wrong), "That signature doesn't match")
		}
		locked := "That challenge took 10 wrong signatures, so it is locked: it takes no signature now, not even the right one. " +
			"Run `/link <wallet>` again for a fresh challenge"
		wantText(t, e.as(t, "alice", wrong), locked)
		wantText(t, e.as(t, "alice", "/verify "+coretest.Sign(coretest.TestKey, m)), locked)
		wantText(t, e.as(t, "alice", e.linkAndSign(t, "alice", testAddress)), "Verified")
	})
}
