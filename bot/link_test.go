package bot

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

// testAddress is coretest.TestAddress as members read it (EIP-55).
var testAddress = core.ChecksumAddress(coretest.TestAddress)

// TestBot_Link_Refusals is the acceptance table: each bad input or bad
// signature gets its own clear message, and nothing is stored but the
// count of the challenge's wrong signatures (see TestBot_Verify_Locked).
func TestBot_Link_Refusals(t *testing.T) {
	t.Parallel()
	sign := func(key string, text string) string {
		k := coretest.TestKey
		if key == "other" {
			k = coretest.OtherKey
		}
		return "/verify " + coretest.Sign(k, text)
	}
	tests := []struct {
		name string
		// setup runs before the line under test and returns it.
		setup func(t *testing.T, e *linkEnv, who string) string
		want  string
	}{
		{"BadChecksum", line("/link 0x29C76e6aD8f28BB1004902578Fb108c507Be341B"), "checksum (EIP-55) does not match"},
		{"ShortAddress", line("/link 0x29c76e6ad8f28bb1004902578fb108c507be34"), "40 hex digits after 0x, this one has 38"},
		{"NonHexAddress", line("/link 0x29c76e6ad8f28bb1004902578fb108c507be341g"), "only the hex digits 0-9 and a-f"},
		{"BadENS", line("/link vіtalik.eth"), "the name mixes Latin and Cyrillic (U+0456), as look-alike names do"},
		{"BadEmail", line("/link alice@example"), "e-mail domain needs a dot"},
		{"MalformedSignature", func(t *testing.T, e *linkEnv, who string) string {
			e.as(t, who, "/link "+testAddress)
			return "/verify 0x1234"
		}, "130 of them for an ordinary wallet"},
		{"DifferentMessage/Earlier", func(t *testing.T, e *linkEnv, who string) string {
			first := message(t, e.as(t, who, "/link "+testAddress))
			e.as(t, who, "/link "+testAddress)
			return sign("test", first)
		}, "signature of an earlier challenge message"},
		{"DifferentMessage/Altered", func(t *testing.T, e *linkEnv, who string) string {
			m := message(t, e.as(t, who, "/link "+testAddress))
			return sign("test", strings.ReplaceAll(m, "\n", "\r\n"))
		}, "signed a slightly different text"},
		{"DifferentMessage/Other", func(t *testing.T, e *linkEnv, who string) string {
			e.as(t, who, "/link "+testAddress)
			return sign("test", "Hello, world?")
		}, "doesn't match `" + testAddress + "`, the wallet you are verifying: it was made by `0x"},
		{"DifferentKey", func(t *testing.T, e *linkEnv, who string) string {
			m := message(t, e.as(t, who, "/link "+testAddress))
			return sign("other", m)
		}, "doesn't match `" + testAddress + "`, the wallet you are verifying: it was made by `" + core.ChecksumAddress(coretest.OtherAddress) + "`."},
		{"ExpiredNonce", func(t *testing.T, e *linkEnv, who string) string {
			verify := e.linkAndSign(t, who, testAddress)
			e.clock.Add(11 * time.Minute)
			return verify
		}, "expired after 10 minutes"},
		{"ReplayedNonce", func(t *testing.T, e *linkEnv, who string) string {
			verify := e.linkAndSign(t, who, testAddress)
			wantText(t, e.as(t, who, verify), "Verified")
			return verify
		}, "used already"},
		{"NoChallenge", line(sign("test", "anything")), "no wallet waiting for verification"},
		{"EmailNotVerifiable", func(t *testing.T, e *linkEnv, who string) string {
			e.as(t, who, "/link "+who+"@example.org")
			return sign("test", "anything")
		}, "can't sign a message"},
	}
	eachLinkEnv(t, Options{}, func(t *testing.T, e *linkEnv) {
		seen := map[string]string{}
		for _, tt := range tests {
			who := strings.ToLower(strings.ReplaceAll(tt.name, "/", "-"))
			l := tt.setup(t, e, who)
			before := e.snapshot(t, who)
			e.obs.seen = nil
			r := e.as(t, who, l)
			if !strings.Contains(r.Text, tt.want) {
				t.Errorf("%s: %s = %q, want it to contain %q", tt.name, l, r.Text, tt.want)
			}
			if len(e.obs.seen) != 1 || !strings.HasSuffix(e.obs.seen[0], "/user_error") {
				t.Errorf("%s: observed %v, want one user_error", tt.name, e.obs.seen)
			}
			if other, ok := seen[r.Text]; ok {
				t.Errorf("%s and %s get the same message %q", tt.name, other, r.Text)
			}
			seen[r.Text] = tt.name
			sameState(t, before, e.snapshot(t, who), cmpopts.IgnoreFields(core.Challenge{}, "WrongSignatures"))
		}
	})
}

// line is a setup that only returns the line under test.
func line(l string) func(*testing.T, *linkEnv, string) string {
	return func(*testing.T, *linkEnv, string) string { return l }
}

func TestBot_LinkVerify(t *testing.T) {
	t.Parallel()
	eachLinkEnv(t, Options{PublicURL: "https://bot.example/"}, func(t *testing.T, e *linkEnv) {
		r := e.as(t, "alice", "/link "+testAddress)
		wantText(t, r, "Linked `"+testAddress+"` as your primary wallet.", "/verify <signature>", "before 17:10 UTC",
			"Your wallet shows it as a sign-in to `bot.example`")
		m := message(t, r)
		nonce := regexp.MustCompile(`(?m)^Nonce: ([0-9a-f]{32,})$`).FindStringSubmatch(m)
		if nonce == nil {
			t.Fatalf("message has no nonce of 128 bits or more:\n%s", m)
		}
		// With PUBLIC_URL, an EIP-4361 message for the page.
		for _, want := range []string{"bot.example wants you to sign in with your Ethereum account:\n" + core.ChecksumAddress(testAddress) + "\n\n",
			"POAP bot asks you to prove you own this wallet, to link it to the Console member alice.", "URI: https://bot.example/verify/" + nonce[1],
			"Issued At: 2026-11-22T17:00:00Z", "Expiration Time: 2026-11-22T17:10:00Z"} {
			if !strings.Contains(m, want) {
				t.Errorf("message lacks %q:\n%s", want, m)
			}
		}
		wantButton := Button{Label: "Verify in your browser", URL: "https://bot.example/verify/" + nonce[1]}
		if len(r.Buttons) != 1 || r.Buttons[0] != wantButton {
			t.Errorf("buttons = %+v, want %+v", r.Buttons, wantButton)
		}
		e.clock.Add(9 * time.Minute)
		wantText(t, e.as(t, "alice", "/verify "+coretest.Sign(coretest.TestKey, m)), "Verified: `"+testAddress+"` is now proven yours.")
		wantText(t, e.as(t, "alice", "/wallet"), "1. `"+testAddress+"` — primary · verified")
		wantText(t, e.as(t, "alice", "/link "+testAddress), "You linked `"+testAddress+"` before, and it is verified. Nothing changed.")
		if len(e.events.verified) != 1 {
			t.Errorf("WalletVerified events = %v, want 1", e.events.verified)
		}
	})
}

func TestBot_Link_NoPublicURL(t *testing.T) {
	t.Parallel()
	eachLinkEnv(t, Options{}, func(t *testing.T, e *linkEnv) {
		r := e.as(t, "alice", "/link "+coretest.TestAddress)
		if len(r.Buttons) != 0 || strings.Contains(r.Text, "browser") {
			t.Errorf("reply without PUBLIC_URL = %q, %+v, want no page", r.Text, r.Buttons)
		}
		again := e.as(t, "alice", "/link "+coretest.TestAddress)
		wantText(t, again, "You linked `"+testAddress+"` before; nothing was replaced.")
		if message(t, again) == message(t, r) {
			t.Errorf("linking again gave the same challenge, want a fresh one")
		}
		second := e.as(t, "alice", "/link alice@example.org")
		wantText(t, second, "Linked `alice@example.org`. Your primary wallet stays", "cannot sign a message")
		if strings.Contains(second.Text, "```") {
			t.Errorf("e-mail link shows a challenge:\n%s", second.Text)
		}
	})
}

func TestBot_Link_ENS(t *testing.T) {
	t.Parallel()
	eachLinkEnv(t, Options{}, func(t *testing.T, e *linkEnv) {
		verify := e.linkAndSign(t, "alice", "Alice.ETH")
		wantText(t, e.as(t, "alice", verify), "Verified: `alice.eth` is now proven yours, as the address `"+testAddress+"` that signed.")
		wantText(t, e.as(t, "alice", "/wallet"), "`alice.eth` — primary · verified as `"+testAddress+"`")
	})
}

// TestBot_Link_Exact: what a member sees of a wallet is exactly what is
// stored, markup characters included, on the console and in Telegram's
// rendering alike; an ENS name is shown normalised, as stored, without the
// invisible characters ENSIP-15 drops.
func TestBot_Link_Exact(t *testing.T) {
	t.Parallel()
	eachLinkEnv(t, Options{}, func(t *testing.T, e *linkEnv) {
		r := e.as(t, "alice", "/link `id`@x.org")
		if got := PlainText(r.Text); !strings.Contains(got, "`id`@x.org") {
			t.Errorf("/link `id`@x.org shows %q, want the address with its backquotes", got)
		}
		if got := PlainText(e.as(t, "alice", "/wallet").Text); !strings.Contains(got, "`id`@x.org") {
			t.Errorf("/wallet shows %q, want the address with its backquotes", got)
		}
		wantText(t, e.as(t, "bob", "/link vitalik\u200b.eth"), "`vitalik.eth`")
		wantText(t, e.as(t, "bob", "/link ｖｉｔａｌｉｋ.eth"), "`vitalik.eth`")
		wantText(t, e.as(t, "bob", "/wallet"), "1. `vitalik.eth` — primary")
	})
}

// TestBot_Link_Move verifies one address from two members: it moves, and
// neither sees the other's wallets.
func TestBot_Link_Move(t *testing.T) {
	t.Parallel()
	eachLinkEnv(t, Options{}, func(t *testing.T, e *linkEnv) {
		wantText(t, e.as(t, "alice", e.linkAndSign(t, "alice", testAddress)), "Verified")
		e.as(t, "bob", "/link bob.eth")
		wantText(t, e.as(t, "bob", e.linkAndSign(t, "bob", testAddress)), "Verified")
		wantText(t, e.as(t, "alice", "/wallet"), "`"+testAddress+"` — primary · not verified")
		bobs := e.as(t, "bob", "/wallet")
		wantText(t, bobs, "1. `bob.eth` — primary · not verified", "2. `"+testAddress+"` — verified")
		if len(e.events.moved) != 1 || e.events.moved[0].Value != coretest.TestAddress {
			t.Errorf("moved events = %+v, want alice's wallet", e.events.moved)
		}
	})
}

// TestBot_Link_Race verifies one address from two members at once: exactly
// one holds it at the end, and both get a proper reply.
func TestBot_Link_Race(t *testing.T) {
	t.Parallel()
	eachLinkEnv(t, Options{}, func(t *testing.T, e *linkEnv) {
		lines := []string{e.linkAndSign(t, "alice", testAddress), e.linkAndSign(t, "bob", testAddress)}
		replies := make([]Reply, 2)
		runConcurrently(2, func(i int) { replies[i] = e.as(t, []string{"alice", "bob"}[i], lines[i]) })
		for _, r := range replies {
			wantText(t, r, "Verified")
		}
		holders := 0
		for _, who := range []string{"alice", "bob"} {
			if strings.Contains(e.as(t, who, "/wallet").Text, "· verified") {
				holders++
			}
		}
		if holders != 1 {
			t.Errorf("%d members hold the address, want 1", holders)
		}
	})
}

func TestBot_Unlink(t *testing.T) {
	t.Parallel()
	eachLinkEnv(t, Options{}, func(t *testing.T, e *linkEnv) {
		for _, w := range []string{testAddress, "second.eth", "third@example.org"} {
			e.as(t, "alice", "/link "+w)
		}
		wantText(t, e.as(t, "alice", "/unlink "+coretest.TestAddress), "Unlinked `"+testAddress+"`. `second.eth` is now your primary wallet.")
		wantText(t, e.as(t, "alice", "/wallet"), "1. `second.eth` — primary", "2. `third@example.org` — e-mail")
		wantText(t, e.as(t, "alice", "/unlink other.eth"), "You haven't linked that wallet.")
		wantText(t, e.as(t, "alice", "/unlink"), "Unlinked `second.eth`, `third@example.org`.")
		wantText(t, e.as(t, "alice", "/unlink"), "There is no wallet linked yet.")
		wantText(t, e.as(t, "alice", "/wallet"), "You have no wallet linked.")
		if len(e.events.unlinked) != 3 {
			t.Errorf("unlinked events = %+v, want 3 wallets", e.events.unlinked)
		}
	})
}

func TestBot_Forget(t *testing.T) {
	t.Parallel()
	eachLinkEnv(t, Options{}, func(t *testing.T, e *linkEnv) {
		wantText(t, e.as(t, "alice", e.linkAndSign(t, "alice", testAddress)), "Verified")
		e.as(t, "alice", "/link alice.eth")
		user, err := e.db.FindUser(t.Context(), core.Console, "alice")
		if err != nil {
			t.Fatal(err)
		}
		wantText(t, e.as(t, "alice", "/forget"), "deleted everything I stored about you: your profile, 2 linked wallets and 2 ownership challenges")
		if got := e.snapshot(t, "alice"); got.Known {
			t.Errorf("after /forget the member is still stored: %+v", got)
		}
		wallets, _ := e.db.Wallets(t.Context(), user.ID)
		challenges, _ := e.db.RecentChallenges(t.Context(), user.ID, 10)
		if len(wallets) != 0 || len(challenges) != 0 {
			t.Errorf("after /forget: wallets %+v, challenges %+v, want none", wallets, challenges)
		}
		wantText(t, e.as(t, "alice", "/forget"), "I had nothing stored about you")
		if len(e.events.unlinked) != 2 {
			t.Errorf("unlinked events = %+v, want the 2 wallets", e.events.unlinked)
		}
	})
}

// TestBot_Verify_PublicURLMoved: a challenge made for the page of another
// PUBLIC_URL is refused by /verify in words that say why and what to do.
func TestBot_Verify_PublicURLMoved(t *testing.T) {
	t.Parallel()
	eachLinkEnv(t, Options{PublicURL: "https://bot.example/"}, func(t *testing.T, e *linkEnv) {
		verify := e.linkAndSign(t, "alice", testAddress)
		moved := e.withLimits(core.LinkLimits{}, Options{PublicURL: "https://new.example/"})
		wantText(t, moved.as(t, "alice", verify), "The signed message is a sign-in to another site than this bot's verification page",
			"Run `/link <wallet>` again for a fresh challenge")
	})
}
