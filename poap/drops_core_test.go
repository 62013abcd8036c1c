package poap_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// startDropIssuer serves a seeded sandbox and returns it with the client as
// a core.DropIssuer.
func startDropIssuer(t *testing.T) (*sandbox.Server, poap.DropIssuer) {
	t.Helper()
	s := sandbox.New(sandbox.Options{APIKey: testKey})
	s.SeedDemo()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c, err := poap.NewClient(poap.Options{
		BaseURL: srv.URL, APIKey: testKey, Audience: sandbox.DefaultAudience,
		Tokens: momentTokens(s.IssueToken(sandbox.DefaultAudience)), RateLimit: -1, Timeout: 5 * time.Second,
		Retry: poap.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, poap.NewDropIssuer(c)
}

func TestDropIssuer_Drop(t *testing.T) {
	_, di := startDropIssuer(t)
	ctx := context.Background()
	for code, want := range map[core.Secret]bool{sandbox.DemoEditCode: true, "654321": false, "12ab": false} {
		if ok, err := di.ValidateEditCode(ctx, sandbox.DemoLinksDropID, code); ok != want || err != nil {
			t.Errorf("ValidateEditCode(%v) = %v, %v, want %v", code, ok, err, want)
		}
	}
	if _, err := di.ValidateEditCode(ctx, 999999999, sandbox.DemoEditCode); !errors.Is(err, core.ErrUnknownEvent) || !errors.Is(err, poap.ErrNotFound) {
		t.Errorf("ValidateEditCode(unknown) = %v, want core.ErrUnknownEvent wrapping poap.ErrNotFound", err)
	}
	d, err := di.DropDetails(ctx, sandbox.DemoLinksDropID)
	want := core.DropDetails{Name: "Sandbox Demo Drop", ImageURL: "https://assets.poap.xyz/sandbox-demo-drop-2025-logo-1758326400000.png",
		ExpiresAt: time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC)}
	if err != nil || d != want {
		t.Errorf("DropDetails() = %+v, %v, want %+v", d, err, want)
	}
	if _, err := di.DropDetails(ctx, 0); !errors.Is(err, core.ErrUnknownEvent) {
		t.Errorf("DropDetails(0) = %v, want core.ErrUnknownEvent", err)
	}
	links, err := di.MintLinks(ctx, sandbox.DemoLinksDropID, sandbox.DemoEditCode)
	if err != nil || len(links) != 55 || links[0] != (core.ImportedMintLink{QRHash: "sbx001", Claimed: true}) || links[5].Claimed {
		t.Errorf("MintLinks() = %d links, %v, want 55, the first 5 claimed", len(links), err)
	}
	if _, err := di.MintLinks(ctx, sandbox.DemoLinksDropID, "654321"); !errors.Is(err, core.ErrWrongEditCode) {
		t.Errorf("MintLinks(wrong code) = %v, want core.ErrWrongEditCode", err)
	}
}

func TestDropIssuer_Mint(t *testing.T) {
	s, di := startDropIssuer(t)
	ctx := context.Background()
	const wallet = "0x00000000000000000000000000000000000a11ce"
	tx, err := di.Mint(ctx, "sbx006", wallet)
	if err != nil || tx == "" {
		t.Fatalf("Mint() = %q, %v, want a transaction id", tx, err)
	}
	st, err := di.ClaimStatus(ctx, "sbx006")
	if err != nil || !st.ClaimedBy(wallet) || !st.Active {
		t.Errorf("ClaimStatus() = %+v, %v, want claimed by the wallet", st, err)
	}
	if _, err := di.Mint(ctx, "sbx006", "0x00000000000000000000000000000000000b0b00"); !errors.Is(err, core.ErrMintLinkClaimed) {
		t.Errorf("Mint(claimed link) = %v, want core.ErrMintLinkClaimed", err)
	}
	if _, err := di.Mint(ctx, "sbx007", wallet); !errors.Is(err, core.ErrWalletHoldsDrop) {
		t.Errorf("Mint(to a holder) = %v, want core.ErrWalletHoldsDrop", err)
	}
	if _, err := di.Mint(ctx, "sbx007", "not-a-wallet"); !errors.Is(err, core.ErrInvalidWallet) {
		t.Errorf("Mint(bad address) = %v, want core.ErrInvalidWallet", err)
	}
	if err := s.SetLinkActive("sbx008", false); err != nil {
		t.Fatal(err)
	}
	if _, err := di.Mint(ctx, "sbx008", "0x00000000000000000000000000000000000c4a00"); !errors.Is(err, core.ErrMintLinkExpired) {
		t.Errorf("Mint(inactive link) = %v, want core.ErrMintLinkExpired", err)
	}
	s.DropNextMintResponses(1)
	if _, err := di.Mint(ctx, "sbx009", "0x00000000000000000000000000000000000c4a01"); !errors.Is(err, core.ErrIssuerUnavailable) {
		t.Errorf("Mint() with a lost answer = %v, want core.ErrIssuerUnavailable", err)
	}
	if st, err := di.ClaimStatus(ctx, "sbx009"); err != nil || !st.ClaimedBy("0x00000000000000000000000000000000000C4A01") {
		t.Errorf("ClaimStatus() after the lost answer = %+v, %v, want claimed", st, err)
	}
	s.FailNextOp(wire.OpMint, 1, http.StatusBadGateway)
	if _, err := di.Mint(ctx, "sbx010", "0x00000000000000000000000000000000000c4a02"); !errors.Is(err, core.ErrIssuerUnavailable) {
		t.Errorf("Mint() answered 502 = %v, want core.ErrIssuerUnavailable", err)
	}
	if s.LinkClaimed("sbx010") || s.Requests(wire.OpMint) != 5 {
		t.Errorf("a mint was retried or applied after a 502: %d requests", s.Requests(wire.OpMint))
	}
}

func TestDropIssuer_TopUp(t *testing.T) {
	s, di := startDropIssuer(t)
	ctx := context.Background()
	if n, err := di.PendingMintLinkRequests(ctx, sandbox.DemoLinksDropID); n != 0 || err != nil {
		t.Fatalf("PendingMintLinkRequests() = %d, %v, want 0", n, err)
	}
	if err := di.RequestMintLinks(ctx, sandbox.DemoLinksDropID, sandbox.DemoEditCode, 10); err != nil {
		t.Fatalf("RequestMintLinks() = %v", err)
	}
	if n, err := di.PendingMintLinkRequests(ctx, sandbox.DemoLinksDropID); n != 1 || err != nil {
		t.Errorf("PendingMintLinkRequests() = %d, %v, want 1", n, err)
	}
	if err := di.RequestMintLinks(ctx, sandbox.DemoLinksDropID, sandbox.DemoEditCode, 10); !errors.Is(err, core.ErrTopUpPending) {
		t.Errorf("RequestMintLinks() while pending = %v, want core.ErrTopUpPending", err)
	}
	if err := di.RequestMintLinks(ctx, sandbox.DemoLinksDropID, "654321", 10); !errors.Is(err, core.ErrWrongEditCode) {
		t.Errorf("RequestMintLinks(wrong code) = %v, want core.ErrWrongEditCode", err)
	}
	s.ApproveRequests(sandbox.DemoLinksDropID)
	if links, err := di.MintLinks(ctx, sandbox.DemoLinksDropID, sandbox.DemoEditCode); err != nil || len(links) != 65 {
		t.Errorf("MintLinks() after approval = %d links, %v, want 65", len(links), err)
	}
}
