package poap_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap"
)

func TestClient_CreateDelivery(t *testing.T) {
	c, _ := opsClient(t, serveFixture(t, http.StatusOK, "delivery.json"))
	got, err := c.CreateDelivery(context.Background(), testDelivery())
	if err != nil {
		t.Fatalf("CreateDelivery() error = %v", err)
	}
	want := poap.Delivery{
		ID: 812, Slug: "poapbot-test-delivery", CardTitle: "poapbot test delivery",
		CardText: "Test delivery of the poapbot integration.", PageTitle: "Claim your test POAP",
		PageText:       "If your address is on the list, claim below.",
		PageTitleImage: "https://assets.poap.xyz/4f1d2a7e-0c3b-4e8f-9a61-2d5b7c9e0f13.png",
		Image:          "https://assets.poap.xyz/4f1d2a7e-0c3b-4e8f-9a61-2d5b7c9e0f13.png",
		MetadataTitle:  "poapbot test delivery", MetadataDescription: "Test delivery of the poapbot integration.",
		EventIDs: []int64{175300, 175301}, TotalAddresses: 2,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CreateDelivery() mismatch (-want +got):\n%s", diff)
	}
	tests := []struct {
		name   string
		edit   func(*poap.DeliveryInput)
		target error
	}{
		{"NoSlug", func(in *poap.DeliveryInput) { in.Slug = "" }, poap.ErrInvalidInput},
		{"NoDrops", func(in *poap.DeliveryInput) { in.Drops = nil }, poap.ErrInvalidInput},
		{"BadCode", func(in *poap.DeliveryInput) { in.Drops[1].EditCode = "65432" }, poap.ErrInvalidEditCode},
		{"NoAddresses", func(in *poap.DeliveryInput) { in.Addresses = nil }, poap.ErrInvalidInput},
		{"EmptyAddress", func(in *poap.DeliveryInput) { in.Addresses[1].Address = " " }, poap.ErrInvalidAddress},
		{"NoEvents", func(in *poap.DeliveryInput) { in.Addresses[0].Events = nil }, poap.ErrInvalidInput},
		{"OtherDrop", func(in *poap.DeliveryInput) { in.Addresses[0].Events = []int64{999} }, poap.ErrInvalidInput},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, rec := opsClient(t, serveFixture(t, http.StatusOK, "delivery.json"))
			in := testDelivery()
			tc.edit(&in)
			if _, err := c.CreateDelivery(context.Background(), in); !errors.Is(err, tc.target) || len(rec.all()) != 0 {
				t.Errorf("CreateDelivery() error = %v after %d requests, want %v and none", err, len(rec.all()), tc.target)
			}
		})
	}
}

func TestClient_ClaimDelivery(t *testing.T) {
	for _, fixture := range []string{"delivery_claim.json", "delivery_claim_queue_id.json"} {
		c, _ := opsClient(t, serveFixture(t, http.StatusOK, fixture))
		got, err := c.ClaimDelivery(context.Background(), 812, alice)
		if want := "5d1e9c7a-3b2f-4e8d-a1c0-7f6e5d4c3b2a"; err != nil || got != want {
			t.Errorf("%s: ClaimDelivery() = %q, %v, want %q", fixture, got, err, want)
		}
	}
}

func TestClient_DeliveryBySlug(t *testing.T) {
	c, rec := opsClient(t, serveFixture(t, http.StatusOK, "delivery.json"))
	got, err := c.DeliveryBySlug(context.Background(), "poapbot-test-delivery")
	if err != nil || got.ID != 812 || got.Slug != "poapbot-test-delivery" || !cmp.Equal(got.EventIDs, []int64{175300, 175301}) ||
		got.TotalAddresses != 2 {
		t.Errorf("DeliveryBySlug() = %+v, %v, want delivery 812 of drops 175300 and 175301, 2 addresses", got, err)
	}
	if _, err := c.DeliveryBySlug(context.Background(), " "); !errors.Is(err, poap.ErrInvalidInput) || len(rec.all()) != 1 {
		t.Errorf("DeliveryBySlug(blank) error = %v after %d requests, want ErrInvalidInput and no new one", err, len(rec.all()))
	}
	shapes := []struct {
		name, body string
		want       poap.Delivery
	}{
		{"IDsString", `{"id":5,"slug":"s","event_ids":"1,2","active":true,"claimed_addresses":1,"total_addresses":3}`,
			poap.Delivery{ID: 5, Slug: "s", EventIDs: []int64{1, 2}, Active: true, ClaimedAddresses: 1, TotalAddresses: 3}},
		{"IDsArray", `{"id":"5","event_ids":[1,"2"],"active":"true","claimed_addresses":"1","total_addresses":3}`,
			poap.Delivery{ID: 5, EventIDs: []int64{1, 2}, Active: true, ClaimedAddresses: 1, TotalAddresses: 3}},
		{"OneID", `{"id":5,"event_ids":7}`, poap.Delivery{ID: 5, EventIDs: []int64{7}}},
		{"NoIDs", `{"id":5,"event_ids":null}`, poap.Delivery{ID: 5}},
	}
	for _, tc := range shapes {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := opsClient(t, answer(http.StatusOK, tc.body))
			got, err := c.DeliveryBySlug(context.Background(), "s")
			if err != nil {
				t.Fatalf("DeliveryBySlug() error = %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("DeliveryBySlug() mismatch (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("NotFound", func(t *testing.T) {
		var path string
		notFound := answer(http.StatusNotFound, `{"statusCode":404,"error":"Not Found","message":"Delivery not found"}`)
		c, _ := opsClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			path = r.URL.EscapedPath()
			notFound(w, r)
		}))
		if _, err := c.DeliveryBySlug(context.Background(), "Mixed Case/slug+1"); !errors.Is(err, poap.ErrNotFound) {
			t.Errorf("DeliveryBySlug() error = %v, want ErrNotFound", err)
		}
		if want := "/delivery/slug/Mixed%20Case%2Fslug%2B1"; path != want {
			t.Errorf("path = %q, want %q: the slug as one escaped segment", path, want)
		}
	})
}

// TestClient_CreateDelivery_SlugTaken: a refusal in words the client does
// not know is ErrSlugTaken when a delivery has the slug, and only then.
func TestClient_CreateDelivery_SlugTaken(t *testing.T) {
	refused := `{"statusCode":400,"error":"Bad Request","message":"duplicate key value violates unique constraint"}`
	tests := []struct {
		name         string
		status       int
		body         string
		readStatus   int
		wantTaken    bool
		wantRequests int
	}{
		{"Found", 400, refused, 200, true, 2},
		{"Conflict", 409, `{"message":"Conflict"}`, 200, true, 2},
		{"NotFound", 400, refused, 404, false, 2},
		{"ReadFails", 400, refused, 503, false, 2},
		{"Worded", 400, `{"statusCode":400,"message":"slug \"poapbot-test-delivery\" is already taken"}`, 404, true, 1},
		{"WrongCode", 400, `{"statusCode":400,"message":"Invalid edit code"}`, 200, false, 1},
		{"Down", 503, `{"message":"Service Unavailable"}`, 200, false, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, rec := opsClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet {
					serveFixture(t, tc.readStatus, "delivery.json")(w, r)
					return
				}
				answer(tc.status, tc.body)(w, r)
			}))
			_, err := c.CreateDelivery(context.Background(), testDelivery())
			var apiErr *poap.APIError
			if errors.Is(err, poap.ErrSlugTaken) != tc.wantTaken || !errors.As(err, &apiErr) || apiErr.Status != tc.status {
				t.Errorf("CreateDelivery() error = %v, want ErrSlugTaken %v on the service's %d", err, tc.wantTaken, tc.status)
			}
			reqs := rec.all()
			if len(reqs) != tc.wantRequests {
				t.Fatalf("requests = %d, want %d", len(reqs), tc.wantRequests)
			}
			if len(reqs) == 2 && reqs[1].Path != "/delivery/slug/poapbot-test-delivery" {
				t.Errorf("second request = %s %s, want the slug's read", reqs[1].Method, reqs[1].Path)
			}
		})
	}
}

// answer answers every request with status and the JSON body.
func answer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(body))
	}
}
