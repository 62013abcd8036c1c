package bot

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// TestBot_Claim_Pending loses a mint's answer while the service cannot tell
// the link's status: the member hears it is pending, nothing is sent again,
// and ReconcileMints settles it once the status reads.
func TestBot_Claim_Pending(t *testing.T) {
	t.Parallel()
	eachDropEnv(t, func(t *testing.T, e *dropEnv) {
		id, code := e.createDrop(t, "Pending drop", 3)
		e.mod(t, fmt.Sprintf("/drop add %d %s delivery:mint", id, code))
		e.linkWallet(t, "alice", address(1))
		e.sb.DropNextMintResponses(1)
		e.calls.setStatusDown(true)
		claim := fmt.Sprintf("/claim %d", id)
		wantText(t, e.as(t, "alice", false, claim), "Pending: **Pending drop**", "never minted twice", "Run `"+claim+"` again in a few minutes")
		wantText(t, e.as(t, "alice", false, claim), "Pending: **Pending drop**")
		if n := e.sb.Requests(wire.OpMint); n != 1 {
			t.Errorf("%d mint requests, want 1", n)
		}
		e.calls.setStatusDown(false)
		n, err := e.services.Links.ReconcileMints(t.Context())
		if err != nil || n != 1 {
			t.Fatalf("ReconcileMints() = %d, %v, want 1 settled", n, err)
		}
		wantText(t, e.as(t, "alice", false, claim), "You have it already: **Pending drop** (drop `", "was minted to `"+core.ChecksumAddress(address(1))+"`")
		if n := e.sb.MintCount(id); n != 1 {
			t.Errorf("MintCount() = %d, want 1", n)
		}
		e.calls.checkNoBlindRetry(t)
	})
}

// TestBot_ReconcileMints settles mints a crash left behind: one whose
// request reached the service, one whose request never left.
func TestBot_ReconcileMints(t *testing.T) {
	t.Parallel()
	eachDropEnv(t, func(t *testing.T, e *dropEnv) {
		id, code := e.createDrop(t, "Crash drop", 3)
		e.mod(t, fmt.Sprintf("/drop add %d %s delivery:mint", id, code))
		place, err := e.store.UpsertPlace(t.Context(), core.Place{Platform: core.Console, ExternalID: "guild"})
		if err != nil {
			t.Fatal(err)
		}
		d, err := e.store.DropByEvent(t.Context(), place.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		var begun []core.MintLink
		for i, who := range []string{"alice", "bob"} {
			e.linkWallet(t, who, address(i))
			u, _ := e.store.UpsertUser(t.Context(), core.User{Platform: core.Console, ExternalID: who})
			l, _, err := e.store.ClaimMintLink(t.Context(), d.ID, u.ID, address(i), t0)
			if err != nil {
				t.Fatal(err)
			}
			if l, err = e.store.BeginMint(t.Context(), l.ID, address(i), t0); err != nil {
				t.Fatal(err)
			}
			begun = append(begun, l)
		}
		if _, err := e.poap.Mint(t.Context(), poap.MintInput{QRHash: begun[0].QRHash, Address: address(0)}); err != nil {
			t.Fatalf("alice's mint before the crash: %v", err)
		}
		e.clock.Add(core.MintLease) // the crashed process's lease runs out
		n, err := e.services.Links.ReconcileMints(t.Context())
		if err != nil || n != 2 {
			t.Fatalf("ReconcileMints() = %d, %v, want 2 settled", n, err)
		}
		wantText(t, e.mod(t, fmt.Sprintf("/drop info %d", id)), "3 in total · 1 available · 1 handed out · 1 minted")
		wantText(t, e.as(t, "alice", false, fmt.Sprintf("/claim %d", id)), "You have it already")
		wantText(t, e.as(t, "bob", false, fmt.Sprintf("/claim %d", id)), "Minted **Crash drop**")
		if n := e.sb.MintCount(id); n != 2 {
			t.Errorf("MintCount() = %d, want 2", n)
		}
	})
}

// TestBot_Claim_ClaimedElsewhere: a link used outside the bot is found out
// at the mint, set aside, and the member gets the next one.
func TestBot_Claim_ClaimedElsewhere(t *testing.T) {
	t.Parallel()
	eachDropEnv(t, func(t *testing.T, e *dropEnv) {
		id, code := e.createDrop(t, "Leaky drop", 3)
		e.mod(t, fmt.Sprintf("/drop add %d %s delivery:mint", id, code))
		first := e.sb.MintLinksOf(id)[0]
		if _, err := e.poap.Mint(t.Context(), poap.MintInput{QRHash: first, Address: sandbox.DemoWallet2}); err != nil {
			t.Fatal(err)
		}
		e.linkWallet(t, "alice", address(1))
		r := e.as(t, "alice", false, fmt.Sprintf("/claim %d", id))
		wantText(t, r, "Minted **Leaky drop**")
		wantText(t, e.mod(t, fmt.Sprintf("/drop info %d", id)), "3 in total · 1 available · 0 handed out · 1 minted · 1 claimed elsewhere")
		if n := e.calls.mints()[first]; n != 1 {
			t.Errorf("the used link got %d mint requests, want only the outsider's", n)
		}
	})
}

// TestBot_Claim_LowStock tells the moderators once when the stock runs low.
func TestBot_Claim_LowStock(t *testing.T) {
	t.Parallel()
	eachDropEnv(t, func(t *testing.T, e *dropEnv) {
		id, code := e.createDrop(t, "Small drop", core.DefaultLowStock+2)
		e.mod(t, fmt.Sprintf("/drop add %d %s delivery:link", id, code))
		e.publishIn(t, e.mod(t, fmt.Sprintf("/distribute %d", id)), "c", "m")
		var told []string
		for i := range 5 {
			wantText(t, e.as(t, fmt.Sprintf("m%d", i), false, fmt.Sprintf("/claim %d", id)), "Here is your mint link")
			for _, text := range e.notices(t) {
				told = append(told, text)
			}
		}
		want := fmt.Sprintf("Only %d mint links left", core.DefaultLowStock-1)
		if len(told) != 1 || !strings.HasPrefix(told[0], want) {
			t.Errorf("low-stock notices = %q, want one: %s...", told, want)
		}
	})
}

func TestBot_Claim_Options(t *testing.T) {
	t.Parallel()
	b, _ := newTestBot(stubIssuer{})
	req := &Request{Place: core.Place{Platform: core.Console, ExternalID: "guild"}, Caller: Caller{ExternalID: "alice"}}
	r, _ := b.HandleLine(context.Background(), req, "/claim -3", "")
	wantText(t, r, "The option `drop` must be a drop id")
	r, _ = b.HandleLine(context.Background(), req, "/claim x", "")
	wantText(t, r, "The option `drop` must be a whole number")
}
