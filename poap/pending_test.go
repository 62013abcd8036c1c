package poap_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
)

// pendingFake refuses every request submission with status and message, and
// answers the pending count, as production does, with an array: one request
// of the method asked about when pending, none otherwise.
func pendingFake(t *testing.T, status int, message string, pending bool) http.Handler {
	t.Helper()
	mux := http.NewServeMux()
	refuse := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"statusCode":%d,"error":%q,"message":%q}`, status, http.StatusText(status), message)
	}
	mux.HandleFunc("POST /redeem-requests", refuse)
	mux.HandleFunc("POST /secret-requests", refuse)
	mux.HandleFunc("GET /redeem-requests/active/count", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if !pending {
			w.Write([]byte("[]"))
			return
		}
		fmt.Fprintf(w, `[{"active":1,"type":%q}]`, r.URL.Query().Get("redeem_type"))
	})
	return mux
}

// TestDropIssuer_RequestMintLinks_Pending checks that a refusal is read as
// "a request is already pending" from its status and the pending count,
// whatever its wording.
func TestDropIssuer_RequestMintLinks_Pending(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		message string
		counted bool // the pending count shows a request of the method
		want    bool // core.ErrTopUpPending
	}{
		{"OtherWording", 400, "There is already an active request of this type for the event", true, true},
		{"Conflict", 409, "Conflict", true, true},
		{"WordPendingButNone", 400, "requested_codes is pending validation", false, false},
		{"EditCodeWhilePending", 400, "INVALID_SECRET_CODE", true, false},
		{"ServerError", 500, "pending", true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := opsClient(t, pendingFake(t, tc.status, tc.message, tc.counted))
			err := poap.NewDropIssuer(c).RequestMintLinks(context.Background(), 175300, "123456", 10)
			if got := errors.Is(err, core.ErrTopUpPending); got != tc.want {
				t.Errorf("RequestMintLinks() = %v, want core.ErrTopUpPending %v", err, tc.want)
			}
			var apiErr *poap.APIError
			if !errors.As(err, &apiErr) || apiErr.Status != tc.status {
				t.Errorf("RequestMintLinks() = %v, want the service's *APIError with status %d kept", err, tc.status)
			}
		})
	}
}

func TestClient_DistributionRequest_Pending(t *testing.T) {
	const refusal = "There is already an active request of this type for the event"
	t.Run("RequestMintLinks", func(t *testing.T) {
		c, rec := opsClient(t, pendingFake(t, http.StatusBadRequest, refusal, true))
		_, err := c.RequestMintLinks(context.Background(), poap.RedeemRequest{EventID: 175300, Count: 10, EditCode: "123456"})
		if !errors.Is(err, poap.ErrRequestPending) {
			t.Errorf("RequestMintLinks() = %v, want ErrRequestPending", err)
		}
		if reqs := rec.all(); len(reqs) != 2 || reqs[1].Query != "event_id=175300&redeem_type=qr_code" {
			t.Errorf("requests = %+v, want the submission, then the qr_code pending count", reqs)
		}
	})
	t.Run("CreateSecretRequest", func(t *testing.T) {
		c, rec := opsClient(t, pendingFake(t, http.StatusBadRequest, refusal, true))
		_, err := c.CreateSecretRequest(context.Background(), poap.SecretRequest{
			EventID: 175300, EditCode: "123456", ClaimName: "increase-group-student", Type: poap.SecretTypeWebsite,
			From: "2026-03-10T18:00:00Z", To: "2026-03-10T20:00:00Z", Count: 10,
		})
		if !errors.Is(err, poap.ErrRequestPending) {
			t.Errorf("CreateSecretRequest() = %v, want ErrRequestPending", err)
		}
		if reqs := rec.all(); len(reqs) != 2 || reqs[1].Query != "event_id=175300&redeem_type=secret_website" {
			t.Errorf("requests = %+v, want the submission, then the secret_website pending count", reqs)
		}
	})
	t.Run("CountFails", func(t *testing.T) {
		mux := http.NewServeMux()
		mux.Handle("POST /redeem-requests", serveFixture(t, http.StatusBadRequest, "error_400_validation.json"))
		mux.Handle("GET /redeem-requests/active/count", serveFixture(t, http.StatusServiceUnavailable, "error_503.json"))
		c, _ := opsClient(t, mux)
		_, err := c.RequestMintLinks(context.Background(), poap.RedeemRequest{EventID: 175300, Count: 10, EditCode: "123456"})
		var apiErr *poap.APIError
		if errors.Is(err, poap.ErrRequestPending) || !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest {
			t.Errorf("RequestMintLinks() = %v, want the 400 as it is", err)
		}
	})
}
