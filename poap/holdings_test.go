package poap_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
)

func TestClient_Holdings(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		c := newClient(t, serveFixture(t, http.StatusOK, "scan.json"), poap.Options{})
		got, err := c.Holdings(context.Background(), holder)
		if err != nil {
			t.Fatalf("Holdings() error = %v", err)
		}
		var want []core.Holding
		for _, tok := range wantScan() {
			want = append(want, core.Holding{
				TokenID: tok.TokenID, DropID: tok.Event.ID, DropName: tok.Event.Name, FancyID: tok.Event.FancyID,
				Chain: tok.Chain, Owner: tok.Owner, MintedAt: tok.Created, ImageURL: tok.Event.ImageURL,
			})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Holdings() mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		c := newClient(t, serveFixture(t, http.StatusOK, "scan_empty.json"), poap.Options{})
		got, err := c.Holdings(context.Background(), holder)
		if err != nil || got == nil || len(got) != 0 {
			t.Errorf("Holdings() = %#v, %v, want an empty list", got, err)
		}
	})
}

func TestClient_Holdings_Errors(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		fixture  string
		wantCore error
		wantPoap error
	}{
		{"ErrIssuerRejected", 403, "error_403.json", core.ErrIssuerRejected, poap.ErrUnauthorized},
		{"ErrInvalidWallet", 400, "error_400.json", core.ErrInvalidWallet, poap.ErrInvalidAddress},
		{"RateLimited", 429, "error_429.json", core.ErrIssuerUnavailable, poap.ErrRateLimited},
		{"ServerError", 502, "error_502.txt", core.ErrIssuerUnavailable, poap.ErrUnavailable},
		{"Unexpected404", 404, "error_404.json", core.ErrIssuerRefused, poap.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, serveFixture(t, tc.status, tc.fixture), poap.Options{Retry: noRetry})
			_, err := c.Holdings(context.Background(), holder)
			if !errors.Is(err, tc.wantCore) || !errors.Is(err, tc.wantPoap) {
				t.Errorf("Holdings() error = %v, want %v and %v", err, tc.wantCore, tc.wantPoap)
			}
		})
	}
}
