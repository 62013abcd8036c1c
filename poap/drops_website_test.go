package poap_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
)

// TestDropIssuer_MintWebsite_Refusals checks how a website claim's refusals
// read in the core's terms.
func TestDropIssuer_MintWebsite_Refusals(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		fixture string
		want    error
	}{
		{"Limit", 400, "error_limit_exceeded.json", core.ErrWebsiteLimit},
		{"Expired", 400, "error_event_expired.json", core.ErrDropExpired},
		{"UnknownName", 400, "error_invalid_secret.json", core.ErrWebsiteInactive},
		{"Holds", 400, "error_already_minted.json", core.ErrWalletHoldsDrop},
		{"BadAddress", 400, "error_400.json", core.ErrInvalidWallet},
		{"Busy", 429, "error_429.json", core.ErrIssuerBusy},
		{"Down", 503, "error_503.json", core.ErrIssuerUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := opsClient(t, serveFixture(t, tc.status, tc.fixture))
			_, err := poap.NewDropIssuer(c).MintWebsite(context.Background(), "increase-group-student", alice)
			if !errors.Is(err, tc.want) || errors.Is(err, core.ErrNotSent) {
				t.Errorf("MintWebsite() = %v, want %v, sent", err, tc.want)
			}
		})
	}
	worded := map[string]error{
		"This website claim is not active": core.ErrWebsiteInactive,
		"Claim not started":                core.ErrClaimNotStarted,
		"Something new":                    core.ErrMintRefused,
	}
	for msg, want := range worded {
		c, _ := opsClient(t, answer(http.StatusBadRequest, `{"statusCode":400,"message":"`+msg+`"}`))
		if _, err := poap.NewDropIssuer(c).MintWebsite(context.Background(), "increase-group-student", alice); !errors.Is(err, want) {
			t.Errorf("MintWebsite() refused %q = %v, want %v", msg, err, want)
		}
	}
	c, rec := opsClient(t, answer(http.StatusOK, `{}`))
	_, err := poap.NewDropIssuer(c).MintWebsite(context.Background(), "increase-group-student", " ")
	// Not core.ErrNotSent: the core sends again what was not sent, and
	// this refusal would come again.
	if !errors.Is(err, core.ErrInvalidWallet) || errors.Is(err, core.ErrNotSent) || len(rec.all()) != 0 {
		t.Errorf("MintWebsite(blank wallet) = %v after %d requests, want core.ErrInvalidWallet only, none sent", err, len(rec.all()))
	}
}
