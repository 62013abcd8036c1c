package poap_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap"
)

func TestClient_CreateSecretRequest(t *testing.T) {
	c, _ := opsClient(t, serveFixture(t, http.StatusOK, "secret_request.json"))
	got, err := c.CreateSecretRequest(context.Background(), websiteRequest())
	if err != nil || got != "5120" {
		t.Errorf("CreateSecretRequest() = %q, %v, want \"5120\"", got, err)
	}
	t.Run("ZonelessWindowInLocation", func(t *testing.T) {
		c, rec := opsClient(t, serveFixture(t, http.StatusOK, "secret_request.json"))
		in := websiteRequest()
		in.From, in.To, in.Type = "2025-03-07T18:00:00.000", "2025-03-07T18:10", "secret"
		in.Location = time.FixedZone("UTC+2", 2*3600)
		if _, err := c.CreateSecretRequest(context.Background(), in); err != nil {
			t.Fatalf("CreateSecretRequest() error = %v", err)
		}
		body, _ := jsonValue(t, rec.only(t).Body).(map[string]any)
		if body["from"] != "2025-03-07T16:00:00Z" || body["to"] != "2025-03-07T16:10:00Z" || body["secret_type"] != "secret" {
			t.Errorf("body = %v, want the window in UTC and the type as given", body)
		}
	})
	tests := []struct {
		name  string
		edit  func(*poap.SecretRequest)
		field string
	}{
		{"NoEvent", func(in *poap.SecretRequest) { in.EventID = 0 }, "event_id"},
		{"NoName", func(in *poap.SecretRequest) { in.ClaimName = "" }, "claim_name"},
		{"BadFrom", func(in *poap.SecretRequest) { in.From = "6pm" }, "from"},
		{"BadTo", func(in *poap.SecretRequest) { in.To = "24:10" }, "to"},
		{"BadCode", func(in *poap.SecretRequest) { in.EditCode = "abcdef" }, "secret_code"},
		{"BadType", func(in *poap.SecretRequest) { in.Type = "qr_code" }, "secret_type"},
		{"NoCount", func(in *poap.SecretRequest) { in.Count = 0 }, "requested_codes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, rec := opsClient(t, serveFixture(t, http.StatusOK, "secret_request.json"))
			in := websiteRequest()
			tc.edit(&in)
			_, err := c.CreateSecretRequest(context.Background(), in)
			var fe *poap.FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || len(rec.all()) != 0 {
				t.Errorf("CreateSecretRequest() error = %v after %d requests, want a FieldError on %s and none",
					err, len(rec.all()), tc.field)
			}
		})
	}
}

func TestClient_WebsiteClaim(t *testing.T) {
	c, _ := opsClient(t, serveFixture(t, http.StatusOK, "website_claim.json"))
	got, err := c.WebsiteClaim(context.Background(), "increase-group-student", "0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359")
	if err != nil {
		t.Fatalf("WebsiteClaim() error = %v", err)
	}
	want := poap.Claim{
		ID: 13894783, QRHash: "x1k9qz", EventID: 175300, Event: claimEvent(), Claimed: true, IsActive: true,
		Beneficiary: "0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359", UserInput: "0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359",
		Signer: "0xc33557d52ed424a5b7014f06e4d98c4bfc71ef59", TxStatus: "waiting_tx",
		ClaimedDate: time.Date(2025, 3, 7, 18, 20, 3, 117e6, time.UTC),
		CreatedDate: time.Date(2025, 3, 2, 8, 15, 27, 41e6, time.UTC),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WebsiteClaim() mismatch (-want +got):\n%s", diff)
	}
	t.Run("EmptyAddress", func(t *testing.T) {
		c, rec := opsClient(t, serveFixture(t, http.StatusOK, "website_claim.json"))
		if _, err := c.WebsiteClaim(context.Background(), "increase-group-student", ""); !errors.Is(err, poap.ErrInvalidAddress) || len(rec.all()) != 0 {
			t.Errorf("WebsiteClaim() error = %v, want ErrInvalidAddress before sending", err)
		}
	})
}

// TestClient_Secret reads the record in the published shape and in the one
// seen live, which share only a few fields.
func TestClient_Secret(t *testing.T) {
	tests := []struct {
		fixture string
		want    poap.SecretClaim
	}{
		{"secret_oas.json", poap.SecretClaim{
			ID: 5120, EventID: 175300, Event: claimEvent(), ClaimName: "increase-group-student", Type: "website",
			Active: true, From: utc(2025, 3, 7, 18, 0, 0), To: utc(2025, 3, 7, 18, 10, 0), Timezone: "0",
			Total: 10, Claimed: 4, CreatedDate: utc(2025, 3, 5, 0, 0, 0), CollectorsGame: true,
		}},
		{"secret_live.json", poap.SecretClaim{Type: "website", Active: true, Claimed: 4}},
	}
	for _, tc := range tests {
		c, _ := opsClient(t, serveFixture(t, http.StatusOK, tc.fixture))
		got, err := c.Secret(context.Background(), "increase-group-student")
		if err != nil {
			t.Fatalf("%s: Secret() error = %v", tc.fixture, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: Secret() mismatch (-want +got):\n%s", tc.fixture, diff)
		}
	}
}

// TestClient_SecretPath: a name reaches the service as one escaped path
// segment under /secret/, and a dot segment, which no escaping keeps one,
// is refused before any request.
func TestClient_SecretPath(t *testing.T) {
	var mu sync.Mutex
	var uris []string
	fix := serveFixture(t, http.StatusOK, "secret_live.json")
	c, _ := opsClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		uris = append(uris, r.RequestURI)
		mu.Unlock()
		fix(w, r)
	}))
	for _, name := range []string{"..", ".", " .. "} {
		if _, err := c.Secret(context.Background(), name); !errors.Is(err, poap.ErrInvalidInput) || !errors.Is(err, poap.ErrNotSent) {
			t.Errorf("Secret(%q) = %v, want ErrInvalidInput, not sent", name, err)
		}
	}
	for _, name := range []string{"../events/1", "a/b?c#d", "..%2F", "x y"} {
		if _, err := c.Secret(context.Background(), name); err != nil {
			t.Errorf("Secret(%q) = %v", name, err)
		}
	}
	want := []string{"/secret/..%2Fevents%2F1", "/secret/a%2Fb%3Fc%23d", "/secret/..%252F", "/secret/x%20y"}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff(want, uris); diff != "" {
		t.Errorf("request URIs (-want +got):\n%s", diff)
	}
}
