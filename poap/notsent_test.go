package poap_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// spentTokens is a TokenSource whose budget is spent: Token returns token
// (empty: the budget error), Renew the budget error.
type spentTokens core.Secret

var errSpent = fmt.Errorf("poap: access token: 4 requests in the last hour: %w", poap.ErrTokenBudget)

func (s spentTokens) Token(context.Context, string) (core.Secret, error) {
	if s == "" {
		return "", errSpent
	}
	return core.Secret(s), nil
}

func (spentTokens) Renew(context.Context, string, core.Secret) (core.Secret, error) {
	return "", errSpent
}

// TestDropIssuer_Mint_NotSent checks that a mint that never reached the
// service says so (core.ErrNotSent, poap.ErrNotSent), so that the caller
// may release the link at once, and that one that did never says so.
func TestDropIssuer_Mint_NotSent(t *testing.T) {
	const wallet = "0x00000000000000000000000000000000000a11ce"
	tests := []struct {
		name    string
		tokens  poap.TokenSource
		plan    func(s *sandbox.Server)
		wallet  string
		notSent bool
		sent    int // mints the sandbox received
		want    error
	}{
		{"NoToken", spentTokens(""), nil, wallet, true, 0, poap.ErrTokenBudget},
		// The service refuses a token it never issued; no other can be had.
		{"RefusedNoRenewal", spentTokens("not-a-token"), nil, wallet, true, 0, poap.ErrTokenBudget},
		{"StatusUnread", nil, func(s *sandbox.Server) { s.FailNextOp(wire.OpClaimStatus, 4, http.StatusServiceUnavailable) }, wallet, true, 0, poap.ErrUnavailable},
		{"NoWallet", nil, nil, " ", true, 0, poap.ErrInvalidInput},
		{"Sent502", nil, func(s *sandbox.Server) { s.FailNextOp(wire.OpMint, 1, http.StatusBadGateway) }, wallet, false, 1, poap.ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sandbox.New(sandbox.Options{APIKey: testKey})
			s.SeedDemo()
			srv := httptest.NewServer(s)
			t.Cleanup(srv.Close)
			tokens := tt.tokens
			if tokens == nil {
				tokens = momentTokens(s.IssueToken(sandbox.DefaultAudience))
			}
			c, err := poap.NewClient(poap.Options{
				BaseURL: srv.URL, APIKey: testKey, Audience: sandbox.DefaultAudience, Tokens: tokens,
				RateLimit: -1, Timeout: 5 * time.Second, Retry: poap.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: time.Millisecond},
			})
			if err != nil {
				t.Fatal(err)
			}
			if tt.plan != nil {
				tt.plan(s)
			}
			_, err = poap.NewDropIssuer(c).Mint(t.Context(), "sbx006", tt.wallet)
			if err == nil || !errors.Is(err, tt.want) {
				t.Fatalf("Mint() = %v, want %v", err, tt.want)
			}
			if got := errors.Is(err, core.ErrNotSent); got != tt.notSent {
				t.Errorf("Mint() = %v: matches core.ErrNotSent %v, want %v", err, got, tt.notSent)
			}
			if got := errors.Is(err, poap.ErrNotSent); got != tt.notSent {
				t.Errorf("Mint() = %v: matches poap.ErrNotSent %v, want %v", err, got, tt.notSent)
			}
			if n := s.Requests(wire.OpMint); n != tt.sent || s.LinkClaimed("sbx006") {
				t.Errorf("the sandbox got %d mints (link claimed: %v), want %d and unclaimed", n, s.LinkClaimed("sbx006"), tt.sent)
			}
		})
	}
}
