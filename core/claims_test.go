package core_test

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
)

func TestDropService_Claim(t *testing.T) {
	t.Parallel()
	starts, ends := t0.Add(time.Hour), t0.Add(2*time.Hour)
	t.Run("OK", func(t *testing.T) {
		dt := newDropTest(t)
		dt.add(t, 3, 1, core.AddDropOptions{Method: core.ClaimLink})
		alice := dt.member(t, "alice", wallet(1))
		res, err := dt.claim(t, alice, core.ClaimOptions{})
		if err != nil || res.URL != "https://mint.test/mint/e4242-2" || res.Again || res.Outcome == core.ResultMinted || res.Outcome == core.ResultMintPending {
			t.Fatalf("Claim() = %+v, %v, want the first free link", res, err)
		}
		again, err := dt.claim(t, alice, core.ClaimOptions{EventID: 0})
		if err != nil || again.URL != res.URL || !again.Again {
			t.Errorf("Claim() again = %+v, %v, want the same link, again", again, err)
		}
		bob, err := dt.claim(t, dt.member(t, "bob", ""), core.ClaimOptions{})
		if err != nil || bob.URL != "https://mint.test/mint/e4242-3" {
			t.Errorf("Claim() by bob = %+v, %v, want the next link", bob, err)
		}
		_, err = dt.claim(t, dt.member(t, "carol", ""), core.ClaimOptions{})
		if !errors.Is(err, core.ErrNoMintLinksLeft) {
			t.Errorf("Claim() by carol = %v, want ErrNoMintLinksLeft", err)
		}
		if got := dt.stock(t); got != (core.Stock{Total: 3, HandedOut: 2, ClaimedElsewhere: 1}) {
			t.Errorf("stock = %+v", got)
		}
	})
	refusals := []struct {
		name   string
		opts   core.AddDropOptions
		claim  core.ClaimOptions
		before time.Duration
		want   error
	}{
		{"ErrClaimNotStarted", core.AddDropOptions{Starts: &starts, Codeword: "x"}, core.ClaimOptions{}, 0, core.ErrClaimNotStarted},
		{"ErrClaimEnded", core.AddDropOptions{Ends: &ends, Codeword: "x"}, core.ClaimOptions{}, 3 * time.Hour, core.ErrClaimEnded},
		{"ErrWrongCodeword/Missing", core.AddDropOptions{Codeword: "Sesame", RequiredRole: "7"}, core.ClaimOptions{}, 0, core.ErrWrongCodeword},
		{"ErrWrongCodeword/Wrong", core.AddDropOptions{Codeword: "Sesame"}, core.ClaimOptions{Codeword: "open"}, 0, core.ErrWrongCodeword},
		{"ErrMissingRole", core.AddDropOptions{Codeword: "Sesame", RequiredRole: "7"}, core.ClaimOptions{Codeword: " sesame ", MemberRoles: []string{"8"}}, 0, core.ErrMissingRole},
		{"ErrNoSuchDrop", core.AddDropOptions{}, core.ClaimOptions{EventID: 1}, 0, core.ErrNoSuchDrop},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			dt := newDropTest(t)
			dt.add(t, 3, 0, tt.opts)
			dt.clock.Add(tt.before)
			_, err := dt.claim(t, dt.member(t, "alice", ""), tt.claim)
			var dropErr *core.DropError
			if !errors.Is(err, tt.want) || !errors.As(err, &dropErr) {
				t.Fatalf("Claim() = %v, want a *DropError with %v", err, tt.want)
			}
			if got := dt.stock(t); got.HandedOut != 0 {
				t.Errorf("a refused claim handed out a link: %+v", got)
			}
		})
	}
	t.Run("Allowed", func(t *testing.T) {
		dt := newDropTest(t)
		dt.add(t, 3, 0, core.AddDropOptions{Starts: &starts, Ends: &ends, Codeword: "Sesame", RequiredRole: "7"})
		dt.clock.Add(90 * time.Minute)
		res, err := dt.claim(t, dt.member(t, "alice", ""), core.ClaimOptions{Codeword: "SESAME", MemberRoles: []string{"3", "7"}})
		if err != nil || res.URL == "" {
			t.Errorf("Claim() inside the window with codeword and role = %+v, %v", res, err)
		}
	})
}

func TestDropService_Claim_ChooseDrop(t *testing.T) {
	t.Parallel()
	dt := newDropTest(t)
	alice := dt.member(t, "alice", "")
	if _, err := dt.svc.Claim(t.Context(), alice, dt.place, core.ClaimOptions{}); !errors.Is(err, core.ErrNoActiveDrop) {
		t.Errorf("Claim() with no drop = %v, want ErrNoActiveDrop", err)
	}
	later := t0.Add(time.Hour)
	dt.add(t, 2, 0, core.AddDropOptions{Starts: &later})
	_, err := dt.svc.Claim(t.Context(), alice, dt.place, core.ClaimOptions{})
	if !errors.Is(err, core.ErrClaimNotStarted) {
		t.Errorf("Claim() with one upcoming drop = %v, want ErrClaimNotStarted", err)
	}
	dt.issuer.addEvent(77, "111111", 2, 0)
	if _, err := dt.svc.AddDrop(t.Context(), dt.mod, dt.place, core.AddDropOptions{EventID: 77, EditCode: "111111"}); err != nil {
		t.Fatal(err)
	}
	res, err := dt.svc.Claim(t.Context(), alice, dt.place, core.ClaimOptions{})
	if err != nil || res.Drop.EventID != 77 {
		t.Errorf("Claim() = %+v, %v, want drop 77, the one open", res.Drop, err)
	}
	dt.clock.Add(2 * time.Hour)
	var choice *core.ChoiceError
	_, err = dt.svc.Claim(t.Context(), alice, dt.place, core.ClaimOptions{})
	if !errors.As(err, &choice) || !errors.Is(err, core.ErrNoActiveDrop) || len(choice.Open) != 2 {
		t.Errorf("Claim() with two open drops = %v, want a *ChoiceError of 2", err)
	}
}

func TestDropService_Claim_Mint(t *testing.T) {
	t.Parallel()
	t.Run("OK", func(t *testing.T) {
		dt := newDropTest(t)
		dt.add(t, 3, 0, core.AddDropOptions{})
		alice := dt.member(t, "alice", wallet(1))
		res, err := dt.claim(t, alice, core.ClaimOptions{})
		if err != nil || res.Outcome != core.ResultMinted || res.Wallet != wallet(1) || res.URL != "" || res.MintLink.State != core.MintLinkMinted {
			t.Fatalf("Claim() = %+v, %v, want minted to the wallet", res, err)
		}
		again, err := dt.claim(t, alice, core.ClaimOptions{})
		if err != nil || again.Outcome != core.ResultMinted || !again.Again || again.MintLink.TransactionID != "1" {
			t.Errorf("Claim() again = %+v, %v, want the same mint", again, err)
		}
		if n := dt.issuer.mints("e4242-1"); n != 1 {
			t.Errorf("%d mints of the link, want 1", n)
		}
	})
	t.Run("LostAnswer", func(t *testing.T) {
		dt := newDropTest(t)
		dt.add(t, 3, 0, core.AddDropOptions{Method: core.ClaimMint})
		dt.issuer.set(func(f *dropIssuer) { f.dropNext = 1 })
		res, err := dt.claim(t, dt.member(t, "alice", wallet(1)), core.ClaimOptions{})
		if err != nil || res.Outcome != core.ResultMinted {
			t.Fatalf("Claim() with a lost answer = %+v, %v, want minted (read from the status)", res, err)
		}
		if n := dt.issuer.mints("e4242-1"); n != 1 {
			t.Errorf("%d mints of the link, want 1", n)
		}
	})
	t.Run("FailedBeforeApplied", func(t *testing.T) {
		dt := newDropTest(t)
		dt.add(t, 3, 0, core.AddDropOptions{Method: core.ClaimMint})
		dt.issuer.set(func(f *dropIssuer) { f.failMints = 1 })
		alice := dt.member(t, "alice", wallet(1))
		if _, err := dt.claim(t, alice, core.ClaimOptions{}); !errors.Is(err, core.ErrIssuerUnavailable) {
			t.Fatalf("Claim() with a failed mint = %v, want ErrIssuerUnavailable", err)
		}
		if got := dt.store.Links(1)[0].State; got != core.MintLinkHandedOut {
			t.Errorf("after a failed mint the link is %s, want handed_out", got)
		}
		res, err := dt.claim(t, alice, core.ClaimOptions{})
		if err != nil || res.Outcome != core.ResultMinted || res.MintLink.QRHash != "e4242-1" {
			t.Errorf("Claim() again = %+v, %v, want the same link minted", res, err)
		}
		dt.issuer.checkNoBlindRetry(t)
	})
	t.Run("NotSent", func(t *testing.T) {
		// No access token can be had: neither the mint nor a status read
		// reaches the service. The link goes back to the member at once
		// instead of staying minting until a status read gets through.
		dt := newDropTest(t)
		dt.add(t, 3, 0, core.AddDropOptions{Method: core.ClaimMint})
		dt.issuer.set(func(f *dropIssuer) { f.unsent = true })
		alice := dt.member(t, "alice", wallet(1))
		res, err := dt.claim(t, alice, core.ClaimOptions{})
		if !errors.Is(err, core.ErrIssuerUnavailable) || !errors.Is(err, core.ErrNotSent) {
			t.Fatalf("Claim() with the mint not sent = %+v, %v, want ErrIssuerUnavailable and ErrNotSent", res, err)
		}
		if got := dt.store.Links(1)[0]; got.State != core.MintLinkHandedOut {
			t.Errorf("after a mint not sent the link is %s, want handed_out", got.State)
		}
		if n := dt.issuer.mints("e4242-1"); n != 0 {
			t.Errorf("%d mints of the link reached the service, want 0", n)
		}
		dt.issuer.set(func(f *dropIssuer) { f.unsent = false })
		res, err = dt.claim(t, alice, core.ClaimOptions{})
		if err != nil || res.Outcome != core.ResultMinted || res.MintLink.QRHash != "e4242-1" {
			t.Errorf("Claim() again = %+v, %v, want the same link minted", res, err)
		}
	})
	t.Run("ClaimedElsewhere", func(t *testing.T) {
		dt := newDropTest(t)
		dt.add(t, 3, 0, core.AddDropOptions{Method: core.ClaimMint})
		dt.issuer.claimOutside("e4242-1")
		dt.issuer.claimOutside("e4242-2")
		res, err := dt.claim(t, dt.member(t, "alice", wallet(1)), core.ClaimOptions{})
		if err != nil || res.Outcome != core.ResultMinted || res.MintLink.QRHash != "e4242-3" {
			t.Fatalf("Claim() = %+v, %v, want the third link minted", res, err)
		}
		if got := dt.stock(t); got != (core.Stock{Total: 3, Minted: 1, ClaimedElsewhere: 2}) {
			t.Errorf("stock = %+v, want 2 claimed elsewhere", got)
		}
	})
	t.Run("ErrWalletHoldsDrop", func(t *testing.T) {
		dt := newDropTest(t)
		dt.add(t, 3, 0, core.AddDropOptions{Method: core.ClaimMint})
		dt.issuer.set(func(f *dropIssuer) { f.links["e4242-3"].claimed, f.links["e4242-3"].beneficiary = true, wallet(1) })
		_, err := dt.claim(t, dt.member(t, "alice", wallet(1)), core.ClaimOptions{})
		var dropErr *core.DropError
		if !errors.Is(err, core.ErrWalletHoldsDrop) || !errors.As(err, &dropErr) || dropErr.Wallet != wallet(1) {
			t.Errorf("Claim() = %v, want ErrWalletHoldsDrop naming the wallet", err)
		}
	})
	t.Run("ErrWalletClaimed", func(t *testing.T) {
		dt := newDropTest(t)
		dt.add(t, 3, 0, core.AddDropOptions{Method: core.ClaimMint})
		if _, err := dt.claim(t, dt.member(t, "alice", wallet(1)), core.ClaimOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := dt.claim(t, dt.member(t, "bob", wallet(1)), core.ClaimOptions{}); !errors.Is(err, core.ErrWalletClaimed) {
			t.Errorf("Claim() by bob with alice's wallet = %v, want ErrWalletClaimed", err)
		}
	})
	t.Run("ErrNotLinked", func(t *testing.T) {
		dt := newDropTest(t)
		dt.add(t, 3, 0, core.AddDropOptions{Method: core.ClaimMint})
		if _, err := dt.claim(t, dt.member(t, "alice", ""), core.ClaimOptions{}); !errors.Is(err, core.ErrNotLinked) {
			t.Errorf("Claim() of a mint drop without a wallet = %v, want ErrNotLinked", err)
		}
	})
	t.Run("AutoKeepsTheLink", func(t *testing.T) {
		dt := newDropTest(t)
		dt.add(t, 3, 0, core.AddDropOptions{})
		first, err := dt.claim(t, dt.member(t, "alice", ""), core.ClaimOptions{})
		if err != nil || first.URL == "" {
			t.Fatalf("Claim() without a wallet = %+v, %v, want a link", first, err)
		}
		res, err := dt.claim(t, dt.member(t, "alice", wallet(1)), core.ClaimOptions{})
		if err != nil || res.URL != first.URL || res.Outcome == core.ResultMinted || !res.Again {
			t.Errorf("Claim() after linking a wallet = %+v, %v, want the same link, not minted", res, err)
		}
	})
}

func TestDropService_Claim_Pending(t *testing.T) {
	t.Parallel()
	dt := newDropTest(t)
	dt.add(t, 3, 0, core.AddDropOptions{Method: core.ClaimMint})
	dt.issuer.set(func(f *dropIssuer) { f.dropNext, f.failStatus = 1, 1 })
	alice := dt.member(t, "alice", wallet(1))
	res, err := dt.claim(t, alice, core.ClaimOptions{})
	if err != nil || res.Outcome != core.ResultMintPending || res.Outcome == core.ResultMinted {
		t.Fatalf("Claim() with a lost answer and no status = %+v, %v, want pending", res, err)
	}
	dt.issuer.set(func(f *dropIssuer) { f.failStatus = 1 })
	res, err = dt.claim(t, alice, core.ClaimOptions{})
	if err != nil || res.Outcome != core.ResultMintPending || !res.Again {
		t.Errorf("Claim() again while pending = %+v, %v, want pending again", res, err)
	}
	res, err = dt.claim(t, alice, core.ClaimOptions{})
	if err != nil || res.Outcome != core.ResultMinted {
		t.Errorf("Claim() once the status reads = %+v, %v, want minted", res, err)
	}
	if n := dt.issuer.mints("e4242-1"); n != 1 {
		t.Errorf("%d mints of the link, want 1", n)
	}
}

func TestDropService_Claim_StaleMint(t *testing.T) {
	t.Parallel()
	dt := newDropTest(t)
	dt.add(t, 3, 0, core.AddDropOptions{Method: core.ClaimMint})
	dt.issuer.set(func(f *dropIssuer) { f.failMints, f.failStatus = 1, 1 })
	alice := dt.member(t, "alice", wallet(1))
	if res, err := dt.claim(t, alice, core.ClaimOptions{}); err != nil || res.Outcome != core.ResultMintPending {
		t.Fatalf("Claim() = %+v, %v, want pending", res, err)
	}
	dt.clock.Add(core.MintLease)
	res, err := dt.claim(t, alice, core.ClaimOptions{})
	if err != nil || res.Outcome != core.ResultMinted || res.MintLink.QRHash != "e4242-1" {
		t.Errorf("Claim() after the lease = %+v, %v, want the link read unclaimed, then minted", res, err)
	}
	dt.issuer.checkNoBlindRetry(t)
}

func TestMintLinkService_ReconcileMints(t *testing.T) {
	t.Parallel()
	dt := newDropTest(t)
	dt.add(t, 4, 0, core.AddDropOptions{Method: core.ClaimMint})
	// Alice's mint went through, Bob's did not; neither outcome was read.
	dt.issuer.set(func(f *dropIssuer) { f.dropNext, f.failStatus = 1, 1 })
	alice := dt.member(t, "alice", wallet(1))
	if res, _ := dt.claim(t, alice, core.ClaimOptions{}); res.Outcome != core.ResultMintPending {
		t.Fatalf("alice's claim = %+v, want pending", res)
	}
	dt.issuer.set(func(f *dropIssuer) { f.failMints, f.failStatus = 1, 1 })
	if res, _ := dt.claim(t, dt.member(t, "bob", wallet(2)), core.ClaimOptions{}); res.Outcome != core.ResultMintPending {
		t.Fatalf("bob's claim = %+v, want pending", res)
	}
	dt.issuer.set(func(f *dropIssuer) { f.failStatus = 1 })
	n, err := dt.links.ReconcileMints(t.Context())
	if err != nil || n != 1 {
		t.Fatalf("ReconcileMints() with one status failing = %d, %v, want 1 settled", n, err)
	}
	if n, err = dt.links.ReconcileMints(t.Context()); err != nil || n != 1 {
		t.Fatalf("ReconcileMints() = %d, %v, want the other settled", n, err)
	}
	links := dt.store.Links(1)
	if links[0].State != core.MintLinkMinted || links[1].State != core.MintLinkHandedOut {
		t.Errorf("after ReconcileMints: %s, %s, want minted, handed_out", links[0].State, links[1].State)
	}
	if n, _ := dt.links.ReconcileMints(t.Context()); n != 0 {
		t.Errorf("ReconcileMints() with nothing left = %d", n)
	}
	if res, err := dt.claim(t, alice, core.ClaimOptions{}); err != nil || res.Outcome != core.ResultMinted || !res.Again {
		t.Errorf("alice's claim after reconciling = %+v, %v, want minted", res, err)
	}
	dt.issuer.checkNoBlindRetry(t)
}

func TestDropService_Claim_LowStock(t *testing.T) {
	t.Parallel()
	dt := newDropTest(t)
	dt.add(t, 5, 0, core.AddDropOptions{Method: core.ClaimLink, LowStock: 3})
	ref := core.PostRef{Platform: core.Console, Place: dt.place.ExternalID, Channel: "c", Message: "m"}
	if err := dt.svc.RecordPost(t.Context(), ref, eventID, ""); err != nil {
		t.Fatal(err)
	}
	var low []bool
	var told []int
	for _, who := range []string{"a", "b", "c", "d", "a"} {
		if _, err := dt.claim(t, dt.member(t, who, ""), core.ClaimOptions{}); err != nil {
			t.Fatal(err)
		}
		notices, err := dt.svc.LowStockNotices(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		low = append(low, len(notices) > 0)
		for _, n := range notices {
			told = append(told, n.Stock.Available)
		}
	}
	if want := []bool{false, false, true, false, false}; !slices.Equal(low, want) {
		t.Errorf("low-stock notice after each claim = %v, want %v", low, want)
	}
	if len(told) != 1 || told[0] != 2 {
		t.Errorf("low-stock notices = %v available, want one with 2 available", told)
	}
}

// TestDropService_Claim_Concurrent has many members claim at once, some twice:
// each gets one link, no link goes to two, and lost answers never lead to a
// second mint.
func TestDropService_Claim_Concurrent(t *testing.T) {
	t.Parallel()
	const members = 60
	dt := newDropTest(t)
	dt.add(t, members+5, 0, core.AddDropOptions{Method: core.ClaimMint})
	dt.issuer.set(func(f *dropIssuer) { f.dropNext = 6 })
	var wg sync.WaitGroup
	for i := range members * 2 {
		m := dt.member(t, "m"+string(rune('A'+i%members)), "")
		if i < members {
			m = dt.member(t, m.ExternalID, wallet(i))
		}
		wg.Go(func() {
			if _, err := dt.claim(t, m, core.ClaimOptions{}); err != nil {
				t.Errorf("Claim() by %s = %v", m.ExternalID, err)
			}
		})
	}
	wg.Wait()
	st := dt.stock(t)
	if st.Minted+st.Minting != members || st.HandedOut != 0 {
		t.Errorf("stock = %+v, want %d minted or minting", st, members)
	}
	for _, l := range dt.store.Links(1) {
		if n := dt.issuer.mints(l.QRHash); n > 1 {
			t.Errorf("link %s minted %d times", l.QRHash, n)
		}
	}
	dt.issuer.checkNoBlindRetry(t)
}

// TestDropService_Claim_Audit checks that hand-outs, mints, failures and
// moderator actions are audited, without mint links nor edit codes.
func TestDropService_Claim_Audit(t *testing.T) {
	t.Parallel()
	dt := newDropTest(t)
	dt.add(t, 4, 0, core.AddDropOptions{})
	dt.issuer.claimOutside("e4242-2")
	dt.issuer.set(func(f *dropIssuer) { f.failMints = 1 })
	alice := dt.member(t, "alice", wallet(1))
	if _, err := dt.claim(t, alice, core.ClaimOptions{}); !errors.Is(err, core.ErrIssuerUnavailable) {
		t.Fatalf("Claim() = %v, want the failed mint", err)
	}
	for _, who := range []string{"alice", "bob"} {
		m := dt.member(t, who, "")
		if who == "bob" {
			m = dt.member(t, who, wallet(2))
		}
		if _, err := dt.claim(t, m, core.ClaimOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := dt.svc.TopUp(t.Context(), dt.mod, dt.place, eventID, 3); err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range dt.store.AuditLog() {
		actions = append(actions, e.Action)
		if strings.Contains(e.Detail, "e4242-") || strings.Contains(e.Detail, editCode.Reveal()) {
			t.Errorf("audit detail %q names a mint link or the edit code", e.Detail)
		}
	}
	want := []string{core.AuditDropAdded, core.AuditMintLinkHandedOut, core.AuditMintFailed, core.AuditMinted,
		core.AuditMintLinkHandedOut, core.AuditClaimedElsewhere, core.AuditMintLinkHandedOut, core.AuditMinted, core.AuditTopUpRequested}
	if !slices.Equal(actions, want) {
		t.Errorf("audit actions = %q, want %q", actions, want)
	}
}

// TestDropService_Claim_DoubtNewWallet: a mint to wallet A times out and
// reads as unclaimed, the member makes wallet B primary, the late mint to A
// lands, and the member claims again: their claim settles the mint in doubt
// first, tells them it went to A, and mints nothing to B. With the status
// still unclaimed, the link is minted to B, and a mint to A that lands
// meanwhile still counts as theirs: one POAP per member either way.
func TestDropService_Claim_DoubtNewWallet(t *testing.T) {
	t.Parallel()
	a, b := wallet(1), wallet(2)
	setup := func(t *testing.T) (*dropTest, core.Member) {
		dt := newDropTest(t)
		dt.add(t, 5, 0, core.AddDropOptions{Method: core.ClaimMint})
		alice := dt.member(t, "alice", a)
		dt.issuer.set(func(f *dropIssuer) { f.late = 1 })
		if _, err := dt.claim(t, alice, core.ClaimOptions{}); !errors.Is(err, core.ErrIssuerUnavailable) {
			t.Fatalf("Claim() with a mint timing out = %v, want ErrIssuerUnavailable", err)
		}
		u, _ := dt.store.FindUser(t.Context(), alice.Platform, alice.ExternalID)
		if _, err := dt.store.AddWallet(t.Context(), core.Wallet{UserID: u.ID, Kind: core.KindAddress, Value: b}); err != nil {
			t.Fatal(err)
		}
		dt.store.SetPrimary(t.Context(), u.ID, b)
		return dt, alice
	}
	t.Run("LandedLate", func(t *testing.T) {
		dt, alice := setup(t)
		dt.issuer.applyLate()
		res, err := dt.claim(t, alice, core.ClaimOptions{})
		if err != nil || res.Outcome != core.ResultMinted || res.Wallet != a {
			t.Errorf("Claim() after the late mint = %+v, %v; want minted to %s", res, err, a)
		}
		if n := dt.issuer.holders(eventID, a, b); n != 1 {
			t.Errorf("the member's wallets hold %d POAPs of the drop, want 1", n)
		}
		dt.issuer.checkNoBlindRetry(t)
	})
	t.Run("LandsDuringTheNewMint", func(t *testing.T) {
		dt, alice := setup(t)
		// The status read says unclaimed; the late mint lands before the
		// new one, which the service then refuses as already claimed.
		dt.issuer.set(func(f *dropIssuer) { f.failStatus = 0 })
		res, err := dt.claimAfterStatus(t, alice, dt.issuer.applyLate)
		if err != nil || res.Outcome != core.ResultMinted {
			t.Errorf("Claim() = %+v, %v; want minted", res, err)
		}
		if n := dt.issuer.holders(eventID, a, b); n != 1 {
			t.Errorf("the member's wallets hold %d POAPs of the drop, want 1", n)
		}
	})
	t.Run("LandedLateAfterAnotherWallet", func(t *testing.T) {
		dt, alice := setup(t)
		// The mint to B times out too and never lands; the member makes
		// C primary; then the mint to A lands.
		u, _ := dt.store.FindUser(t.Context(), alice.Platform, alice.ExternalID)
		dt.issuer.set(func(f *dropIssuer) { f.late = 1 })
		if _, err := dt.claim(t, alice, core.ClaimOptions{}); !errors.Is(err, core.ErrIssuerUnavailable) {
			t.Fatalf("Claim() with the mint to B timing out = %v", err)
		}
		dt.issuer.set(func(f *dropIssuer) { f.delayed = f.delayed[:1] }) // only A's lands
		c := wallet(3)
		if _, err := dt.store.AddWallet(t.Context(), core.Wallet{UserID: u.ID, Kind: core.KindAddress, Value: c}); err != nil {
			t.Fatal(err)
		}
		dt.store.SetPrimary(t.Context(), u.ID, c)
		dt.issuer.applyLate()
		res, err := dt.claim(t, alice, core.ClaimOptions{})
		if err != nil || res.Outcome != core.ResultMinted || res.Wallet != a {
			t.Errorf("Claim() = %+v, %v; want minted to %s", res, err, a)
		}
		if n := dt.issuer.holders(eventID, a, b, c); n != 1 {
			t.Errorf("the member's wallets hold %d POAPs of the drop, want 1", n)
		}
	})
	t.Run("NeverLanded", func(t *testing.T) {
		dt, alice := setup(t)
		dt.issuer.set(func(f *dropIssuer) { f.delayed = nil })
		res, err := dt.claim(t, alice, core.ClaimOptions{})
		if err != nil || res.Outcome != core.ResultMinted || res.Wallet != b {
			t.Errorf("Claim() = %+v, %v; want minted to %s", res, err, b)
		}
		if n := dt.issuer.holders(eventID, a, b); n != 1 {
			t.Errorf("the member's wallets hold %d POAPs of the drop, want 1", n)
		}
	})
}

// TestDropService_Claim_MethodNotOffered: a drop stored with a claim
// method whose service this process was not given (a website claim here)
// is refused with ErrMethodNotOffered, inside a *DropError, and nothing is
// handed out; /drop add refuses the method before asking the issuer.
func TestDropService_Claim_MethodNotOffered(t *testing.T) {
	t.Parallel()
	dt := newDropTest(t)
	st := dt.add(t, 2, 0, core.AddDropOptions{Method: core.ClaimLink})
	edit := core.DropEdit{Method: core.Change[core.ClaimMethod]{Set: true, To: core.ClaimWebsite}, Website: "site"}
	if _, _, err := dt.store.EditDrop(t.Context(), st.Drop.ID, edit); err != nil {
		t.Fatal(err)
	}
	_, err := dt.claim(t, dt.member(t, "alice", ""), core.ClaimOptions{})
	var de *core.DropError
	if !errors.Is(err, core.ErrMethodNotOffered) || !errors.As(err, &de) || de.Drop.EventID != eventID {
		t.Fatalf("Claim() of a website drop without the website service = %v, want a *DropError with ErrMethodNotOffered", err)
	}
	if stock, _ := dt.store.Stock(t.Context(), st.Drop.ID); stock.HandedOut != 0 {
		t.Errorf("%d links handed out, want none", stock.HandedOut)
	}
	_, err = dt.svc.AddDrop(t.Context(), dt.mod, dt.place, core.AddDropOptions{EventID: eventID + 1, EditCode: editCode,
		Method: core.ClaimWebsite, Website: "site"})
	if !errors.Is(err, core.ErrMethodNotOffered) {
		t.Errorf("AddDrop(website) without the website service = %v, want ErrMethodNotOffered", err)
	}
}
