package poap_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/wire"
)

func TestClient_MintLinks(t *testing.T) {
	c, _ := opsClient(t, serveFixture(t, http.StatusOK, "mint_links.json"))
	got, err := c.MintLinks(context.Background(), 175300, editCode)
	if err != nil {
		t.Fatalf("MintLinks() error = %v", err)
	}
	want := []poap.MintLink{{QRHash: "2abwt1", Claimed: true}, {QRHash: "k9x4mq"}, {QRHash: "7hd0pz"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("MintLinks() mismatch (-want +got):\n%s", diff)
	}
	t.Run("BadCode", func(t *testing.T) {
		c, rec := opsClient(t, serveFixture(t, http.StatusOK, "mint_links.json"))
		if _, err := c.MintLinks(context.Background(), 175300, "1234"); !errors.Is(err, poap.ErrInvalidEditCode) || len(rec.all()) != 0 {
			t.Errorf("MintLinks(\"1234\") error = %v after %d requests, want ErrInvalidEditCode and none", err, len(rec.all()))
		}
	})
	t.Run("NoCredentials", func(t *testing.T) {
		c := newClient(t, serveFixture(t, http.StatusOK, "mint_links.json"), poap.Options{})
		if _, err := c.MintLinks(context.Background(), 175300, editCode); !errors.Is(err, poap.ErrUnauthorized) {
			t.Errorf("MintLinks() without tokens: error = %v, want ErrUnauthorized", err)
		}
	})
}

func TestClient_ValidateEditCode(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		fixture string
		code    string
		want    bool
		sent    bool
	}{
		{"Valid", 200, "validate_valid.json", editCode, true, true},
		{"Invalid", 200, "validate_invalid.json", "654321", false, true},
		{"Refused", 400, "error_invalid_secret_code.json", "654321", false, true},
		{"Malformed", 200, "validate_valid.json", "12 456", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, rec := opsClient(t, serveFixture(t, tc.status, tc.fixture))
			got, err := c.ValidateEditCode(context.Background(), 175300, core.Secret(tc.code))
			if err != nil || got != tc.want {
				t.Errorf("ValidateEditCode() = %v, %v, want %v, nil", got, err, tc.want)
			}
			if sent := len(rec.all()) == 1; sent != tc.sent {
				t.Errorf("sent = %v, want %v", sent, tc.sent)
			}
		})
	}
	t.Run("ErrUnauthorized", func(t *testing.T) {
		c, _ := opsClient(t, serveFixture(t, http.StatusForbidden, "error_403.json"))
		if _, err := c.ValidateEditCode(context.Background(), 175300, editCode); !errors.Is(err, poap.ErrUnauthorized) {
			t.Errorf("ValidateEditCode() error = %v, want ErrUnauthorized", err)
		}
	})
}

func TestClient_RequestMintLinks(t *testing.T) {
	for _, fixture := range []string{"redeem_request.json", "redeem_request_number.json", "redeem_request_bare.json"} {
		c, _ := opsClient(t, serveFixture(t, http.StatusOK, fixture))
		got, err := c.RequestMintLinks(context.Background(), poap.RedeemRequest{EventID: 175300, Count: 10, EditCode: editCode})
		if err != nil || got != "40211" {
			t.Errorf("%s: RequestMintLinks() = %q, %v, want \"40211\"", fixture, got, err)
		}
	}
	for _, in := range []poap.RedeemRequest{
		{EventID: 0, Count: 10, EditCode: editCode},
		{EventID: 175300, Count: 0, EditCode: editCode},
		{EventID: 175300, Count: wire.MaxRequestedCodes + 1, EditCode: editCode},
		{EventID: 175300, Count: 10, EditCode: editCode, Type: "qr"},
		{EventID: 175300, Count: 10, EditCode: ""},
	} {
		c, rec := opsClient(t, serveFixture(t, http.StatusOK, "redeem_request.json"))
		if _, err := c.RequestMintLinks(context.Background(), in); !errors.Is(err, poap.ErrInvalidInput) || len(rec.all()) != 0 {
			t.Errorf("RequestMintLinks(%+v) error = %v after %d requests, want ErrInvalidInput and none", in, err, len(rec.all()))
		}
	}
}

// TestClient_PendingRequests reads the count as the documented object and as
// production's array, empty when none is pending.
func TestClient_PendingRequests(t *testing.T) {
	tests := []struct {
		fixture string
		want    int
	}{
		{"pending_count_object.json", 1},
		{"pending_count_array.json", 1},
		{"pending_count_empty.json", 0},
	}
	for _, tc := range tests {
		c, _ := opsClient(t, serveFixture(t, http.StatusOK, tc.fixture))
		got, err := c.PendingRequests(context.Background(), 175300, poap.RedeemQRCode)
		if err != nil || got != tc.want {
			t.Errorf("%s: PendingRequests() = %d, %v, want %d", tc.fixture, got, err, tc.want)
		}
	}
	t.Run("OtherTypes", func(t *testing.T) {
		c, _ := opsClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`[{"active":2,"type":"qr_code"},{"active":1,"type":"secret_website"}]`))
		}))
		if got, err := c.PendingRequests(context.Background(), 175300, poap.RedeemSecretWebsite); err != nil || got != 1 {
			t.Errorf("PendingRequests() = %d, %v, want 1 (the website request only)", got, err)
		}
	})
	t.Run("NoType", func(t *testing.T) {
		c, rec := opsClient(t, serveFixture(t, http.StatusOK, "pending_count_empty.json"))
		if _, err := c.PendingRequests(context.Background(), 175300, ""); !errors.Is(err, poap.ErrInvalidInput) || len(rec.all()) != 0 {
			t.Errorf("PendingRequests(\"\") error = %v, want ErrInvalidInput before sending (the service answers 503)", err)
		}
	})
}
