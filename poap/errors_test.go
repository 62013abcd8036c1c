package poap_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/wire"
)

var sentinels = []error{poap.ErrNotFound, poap.ErrUnauthorized, poap.ErrRateLimited, poap.ErrInvalidAddress, poap.ErrUnavailable}

func TestAPIError_Decode(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		fixture string
		header  []string
		want    poap.APIError
		is      error
	}{
		{"NotFound", 404, "error_404.json", nil,
			poap.APIError{Status: 404, Code: "Not Found", Message: "Address does not have token for this event"}, poap.ErrNotFound},
		{"BadAddress", 400, "error_400.json", nil,
			poap.APIError{Status: 400, Code: "Bad Request", Message: "Address is not valid"}, poap.ErrInvalidAddress},
		{"GatewayForbidden", 403, "error_403.json", nil,
			poap.APIError{Status: 403, Message: "Forbidden"}, poap.ErrUnauthorized},
		{"ExplicitDeny", 403, "error_403_deny.json", nil,
			poap.APIError{Status: 403, Message: "User is not authorized to access this resource with an explicit deny"}, poap.ErrUnauthorized},
		{"Unauthorized", 401, "error_403.json", nil,
			poap.APIError{Status: 401, Message: "Forbidden"}, poap.ErrUnauthorized},
		{"RateLimited", 429, "error_429.json", []string{"Retry-After", "7"},
			poap.APIError{Status: 429, Message: "Too Many Requests", RetryAfter: 7 * time.Second}, poap.ErrRateLimited},
		{"Unavailable", 503, "error_503.json", []string{"Retry-After", "soon"},
			poap.APIError{Status: 503, Message: "Service Unavailable"}, poap.ErrUnavailable},
		{"PlainText", 502, "error_502.txt", nil,
			poap.APIError{Status: 502, Message: "upstream connect error or disconnect/reset before headers. reset reason: connection termination"}, poap.ErrUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, serveFixture(t, tc.status, tc.fixture, tc.header...), poap.Options{Retry: noRetry})
			_, err := c.ScanEvent(context.Background(), holder, 1)
			var got *poap.APIError
			if !errors.As(err, &got) {
				t.Fatalf("ScanEvent() error = %v, want an *APIError", err)
			}
			tc.want.Operation = wire.OpScanEvent
			if diff := cmp.Diff(&tc.want, got); diff != "" {
				t.Errorf("APIError mismatch (-want +got):\n%s", diff)
			}
			for _, s := range sentinels {
				if got, want := errors.Is(err, s), s == tc.is; got != want {
					t.Errorf("errors.Is(err, %v) = %v, want %v", s, got, want)
				}
			}
		})
	}
}

func TestAPIError_Is(t *testing.T) {
	tests := []struct {
		err  poap.APIError
		want error
	}{
		{poap.APIError{Operation: "claim_qr", Status: 400, Message: "Address is not valid"}, poap.ErrInvalidAddress},
		{poap.APIError{Operation: "claim_qr", Status: 400, Message: "QR Claim already claimed"}, nil},
		{poap.APIError{Operation: wire.OpScan, Status: 400}, poap.ErrInvalidAddress},
		{poap.APIError{Operation: wire.OpScan, Status: 500}, poap.ErrUnavailable},
		{poap.APIError{Operation: wire.OpScan, Status: 504}, poap.ErrUnavailable},
		{poap.APIError{Operation: wire.OpScan, Status: 409}, nil},
	}
	for _, tc := range tests {
		for _, s := range sentinels {
			if got, want := errors.Is(&tc.err, s), s == tc.want; got != want {
				t.Errorf("errors.Is(%v, %v) = %v, want %v", &tc.err, s, got, want)
			}
		}
	}
}

func TestAPIError_Error(t *testing.T) {
	t.Run("NoKeyNoHugeBody", func(t *testing.T) {
		body := "request with key " + testKey + " failed: " + strings.Repeat("x", 5000)
		c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, body, http.StatusInternalServerError)
		}), poap.Options{})
		_, err := c.Scan(context.Background(), holder)
		if err == nil {
			t.Fatal("Scan() error = nil, want an error")
		}
		msg := err.Error()
		if strings.Contains(msg, testKey) || len(msg) > 300 || !strings.HasPrefix(msg, "poap: scan: ") {
			t.Errorf("Error() = %q (%d bytes), want a short message prefixed by the operation, without the key", msg, len(msg))
		}
	})
	t.Run("Format", func(t *testing.T) {
		err := &poap.APIError{Operation: wire.OpScanEvent, Status: 404, Code: "Not Found", Message: "Address does not have token for this event"}
		want := "poap: scan_event: status 404 (Not Found): Address does not have token for this event"
		if got := err.Error(); got != want {
			t.Errorf("Error() = %q, want %q", got, want)
		}
	})
}
