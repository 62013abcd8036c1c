package poap_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/poapbot/poapbot/poap"
)

// windowFake is a service with testdata/drop.json as drop 175300 (one day,
// 2025-03-07) that accepts every secret request.
func windowFake(t *testing.T) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /events/id/175300", serveFixture(t, http.StatusOK, "drop.json"))
	mux.Handle("/secret-requests", serveFixture(t, http.StatusOK, "secret_request.json"))
	return mux
}

// TestClient_SecretRequest_Window checks that the window is sent as RFC 3339
// date-times in UTC, as the OpenAPI definition asks, whatever form the
// member gave it in.
func TestClient_SecretRequest_Window(t *testing.T) {
	tests := []struct {
		name, from, to   string
		wantFrom, wantTo string
		wantDropRead     bool
		loc              *time.Location // SecretRequest.Location
	}{
		{"ClockOnDropDays", "18:00", "18:10", "2025-03-07T18:00:00Z", "2025-03-07T18:10:00Z", true, nil},
		{"Zoneless", "2025-03-07T18:00", "2025-03-07T18:10:00.000", "2025-03-07T18:00:00Z", "2025-03-07T18:10:00Z", false, nil},
		{"SpaceSeparated", "2025-03-07 18:00", "2025-03-08 06:00:30", "2025-03-07T18:00:00Z", "2025-03-08T06:00:30Z", false, nil},
		{"Offset", "2025-03-07T18:00:00+02:00", "2025-03-07T18:10:00Z", "2025-03-07T16:00:00Z", "2025-03-07T18:10:00Z", false, nil},
		{"ClockInLocation", "18:00", "2025-03-07T18:10", "2025-03-07T17:00:00Z", "2025-03-07T17:10:00Z", true, time.FixedZone("CET", 3600)},
	}
	calls := map[string]func(context.Context, *poap.Client, poap.SecretRequest) error{
		"Create": func(ctx context.Context, c *poap.Client, in poap.SecretRequest) error {
			_, err := c.CreateSecretRequest(ctx, in)
			return err
		},
		"Edit": func(ctx context.Context, c *poap.Client, in poap.SecretRequest) error {
			return c.EditSecretRequest(ctx, in, true)
		},
	}
	for call, do := range calls {
		for _, tc := range tests {
			t.Run(call+"/"+tc.name, func(t *testing.T) {
				c, rec := opsClient(t, windowFake(t))
				in := websiteRequest()
				in.From, in.To = tc.from, tc.to
				in.Location = tc.loc
				if err := do(context.Background(), c, in); err != nil {
					t.Fatalf("error = %v", err)
				}
				reqs := rec.all()
				if read := len(reqs) == 2 && reqs[0].Path == "/events/id/175300"; read != tc.wantDropRead || len(reqs) == 0 {
					t.Fatalf("%d requests, the first to %s, want the drop read first: %v", len(reqs), reqs[0].Path, tc.wantDropRead)
				}
				body, _ := jsonValue(t, reqs[len(reqs)-1].Body).(map[string]any)
				if body["from"] != tc.wantFrom || body["to"] != tc.wantTo || body["timezone"] != 0.0 {
					t.Errorf("window = %v to %v (timezone %v), want %s to %s (0)", body["from"], body["to"], body["timezone"], tc.wantFrom, tc.wantTo)
				}
			})
		}
	}
	t.Run("ToNotAfterFrom", func(t *testing.T) {
		c, rec := opsClient(t, windowFake(t))
		in := websiteRequest()
		in.From, in.To = "18:10", "18:00"
		_, err := c.CreateSecretRequest(context.Background(), in)
		var fe *poap.FieldError
		if !errors.As(err, &fe) || fe.Field != "to" || len(rec.all()) != 1 {
			t.Errorf("CreateSecretRequest() = %v after %d requests, want a FieldError on to after the drop read", err, len(rec.all()))
		}
	})
}
