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
