package poap_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// Addresses of the delivery tests: two listed, one not.
const (
	listed1  = "0x00000000000000000000000000000000000D0001"
	listed2  = "0x00000000000000000000000000000000000d0002"
	unlisted = "0x00000000000000000000000000000000000d0003"
)

// deliveryDrop adds a drop to s and returns a delivery request of it to
// listed1 and listed2.
func deliveryDrop(t *testing.T, s *sandbox.Server, slug string) core.DeliveryRequest {
	t.Helper()
	d, code := s.CreateDrop(sandbox.Drop{Name: "Delivery test"}, 0)
	return core.DeliveryRequest{
		EventID: d.ID, EditCode: core.Secret(code), Slug: slug,
		CardTitle: "Card", CardText: "Card text", PageTitle: "Page", PageText: "Page text",
		Image: "https://example.org/card.png", Addresses: []string{listed1, listed2},
	}
}

func TestDropIssuer_Delivery(t *testing.T) {
	s, di := startDropIssuer(t)
	ctx := context.Background()
	r := deliveryDrop(t, s, "round-trip")
	id, err := di.CreateDelivery(ctx, r)
	if err != nil || id == 0 {
		t.Fatalf("CreateDelivery() = %d, %v, want an id", id, err)
	}
	want := core.DeliveryStatus{ID: id, Slug: "round-trip", EventIDs: []int64{r.EventID}, Active: true, Total: 2}
	got, err := di.DeliveryBySlug(ctx, "Round-Trip")
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("DeliveryBySlug() error = %v, mismatch (-want +got):\n%s", err, diff)
	}
	if got, want := s.DeliveryAddresses("round-trip"), []string{strings.ToLower(listed1), listed2}; !slices.Equal(got, want) {
		t.Errorf("the sandbox's list = %v, want %v", got, want)
	}
	if uid, err := di.ClaimDelivery(ctx, id, listed1); err != nil || uid == "" {
		t.Fatalf("ClaimDelivery() = %q, %v, want a queue id", uid, err)
	}
	if !s.DeliveryClaimed("round-trip", listed1) || !slices.Contains(s.Holders(r.EventID), listed1) {
		t.Errorf("after the claim: claimed %v, holders %v, want the address claimed and holding the drop",
			s.DeliveryClaimed("round-trip", listed1), s.Holders(r.EventID))
	}
	claims := []struct {
		name    string
		id      int64
		address string
		want    error
		notSent bool
	}{
		{"Twice", id, listed1, core.ErrWalletHoldsDrop, false},
		{"NotListed", id, unlisted, core.ErrNotListed, false},
		{"BadAddress", id, "0xnope", core.ErrInvalidWallet, false},
		{"NoAddress", id, " ", core.ErrInvalidWallet, false},
		{"UnknownDelivery", id + 1000, listed2, core.ErrMintRefused, false},
		{"NoID", 0, listed2, core.ErrMintRefused, false},
	}
	for _, tc := range claims {
		_, err := di.ClaimDelivery(ctx, tc.id, tc.address)
		if !errors.Is(err, tc.want) || errors.Is(err, core.ErrIssuerUnavailable) || errors.Is(err, core.ErrNotSent) != tc.notSent {
			t.Errorf("%s: ClaimDelivery() = %v, want %v (not sent: %v) and no core.ErrIssuerUnavailable", tc.name, err, tc.want, tc.notSent)
		}
	}
	if got, err := di.DeliveryBySlug(ctx, "round-trip"); err != nil || got.Claimed != 1 {
		t.Errorf("DeliveryBySlug() after one claim = %+v, %v, want 1 claimed", got, err)
	}
}

// TestDropIssuer_CreateDelivery_Request checks what CreateDelivery sends.
func TestDropIssuer_CreateDelivery_Request(t *testing.T) {
	c, rec := opsClient(t, serveFixture(t, http.StatusOK, "delivery.json"))
	id, err := poap.NewDropIssuer(c).CreateDelivery(context.Background(), core.DeliveryRequest{
		EventID: 175300, EditCode: editCode, Slug: "poapbot-test-delivery",
		CardTitle: "Card", CardText: "Card text", PageTitle: "Page", PageText: "Page text",
		Image: "https://example.org/card.png", Addresses: []string{alice, listed1},
	})
	if err != nil || id != 812 {
		t.Fatalf("CreateDelivery() = %d, %v, want 812", id, err)
	}
	checkBody(t, rec.only(t), `{"slug":"poapbot-test-delivery","card_title":"Card","card_text":"Card text",
		"page_title":"Page","page_text":"Page text","event_ids":"175300","secret_codes":"123456",
		"image":"https://example.org/card.png","page_title_image":"https://example.org/card.png",
		"metadata_title":"Page","metadata_description":"Page text",
		"addresses":[{"address":"`+alice+`","events":[175300]},{"address":"`+listed1+`","events":[175300]}]}`)
}

func TestDropIssuer_CreateDelivery_Errors(t *testing.T) {
	s, di := startDropIssuer(t)
	ctx := context.Background()
	if _, err := di.CreateDelivery(ctx, deliveryDrop(t, s, "taken")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		plan    func(*core.DeliveryRequest)
		want    error
		notSent bool
		sent    int // requests that reach the sandbox
	}{
		{"WrongCode", func(r *core.DeliveryRequest) { r.EditCode = "000000" }, core.ErrWrongEditCode, false, 1},
		{"SlugTaken", func(r *core.DeliveryRequest) { r.Slug = "TAKEN" }, core.ErrSlugTaken, false, 1},
		{"BadAddress", func(r *core.DeliveryRequest) { r.Addresses = []string{"x@example.org"} }, core.ErrInvalidWallet, false, 1},
		{"UnknownDrop", func(r *core.DeliveryRequest) { r.EventID = 999999999 }, core.ErrUnknownEvent, false, 1},
		{"ShortCode", func(r *core.DeliveryRequest) { r.EditCode = "12" }, core.ErrWrongEditCode, true, 0},
		{"NoSlug", func(r *core.DeliveryRequest) { r.Slug = " " }, core.ErrInvalidSlug, false, 0},
		{"NoAddresses", func(r *core.DeliveryRequest) { r.Addresses = nil }, core.ErrEmptyDelivery, false, 0},
		{"Down", func(*core.DeliveryRequest) { s.FailNextOp(wire.OpCreateDelivery, 1, http.StatusBadGateway) }, core.ErrIssuerUnavailable, false, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := deliveryDrop(t, s, "errors-"+strings.ToLower(tc.name))
			tc.plan(&r)
			before := s.Requests(wire.OpCreateDelivery)
			_, err := di.CreateDelivery(ctx, r)
			if !errors.Is(err, tc.want) || errors.Is(err, core.ErrNotSent) != tc.notSent {
				t.Errorf("CreateDelivery() = %v, want %v (not sent: %v)", err, tc.want, tc.notSent)
			}
			if n := s.Requests(wire.OpCreateDelivery) - before; n != tc.sent {
				t.Errorf("CreateDelivery() sent %d requests, want %d", n, tc.sent)
			}
			if r.Slug != "TAKEN" {
				if _, err := di.DeliveryBySlug(ctx, r.Slug); !errors.Is(err, core.ErrNotFound) {
					t.Errorf("DeliveryBySlug() after the failure = %v, want core.ErrNotFound: nothing created", err)
				}
			}
		})
	}
}

func TestDropIssuer_CreateDelivery_Busy(t *testing.T) {
	s, di := startDropIssuer(t)
	r := deliveryDrop(t, s, "busy")
	s.FailNextOp(wire.OpCreateDelivery, 1, http.StatusTooManyRequests)
	_, err := di.CreateDelivery(context.Background(), r)
	var busy *core.BusyError
	if !errors.As(err, &busy) || busy.RetryAfter != time.Second || !errors.Is(err, core.ErrIssuerBusy) || errors.Is(err, core.ErrIssuerUnavailable) {
		t.Errorf("CreateDelivery() answered 429 = %v, want a *core.BusyError waiting 1s", err)
	}
	if got := s.DeliveryAddresses("busy"); got != nil {
		t.Errorf("the sandbox's list after a 429 = %v, want no delivery", got)
	}
}

// TestDropIssuer_CreateDelivery_Lost: the sandbox creates the delivery and
// loses the answer; the caller hears an outcome it cannot know, and settles
// it by reading the slug.
func TestDropIssuer_CreateDelivery_Lost(t *testing.T) {
	s, di := startDropIssuer(t)
	ctx := context.Background()
	r := deliveryDrop(t, s, "lost-answer")
	s.DropNextDeliveryResponses(1)
	_, err := di.CreateDelivery(ctx, r)
	if !errors.Is(err, core.ErrIssuerUnavailable) || errors.Is(err, core.ErrNotSent) {
		t.Fatalf("CreateDelivery() with the answer lost = %v, want core.ErrIssuerUnavailable, sent", err)
	}
	if n := s.Requests(wire.OpCreateDelivery); n != 1 {
		t.Errorf("the creation was sent %d times, want once", n)
	}
	got, err := di.DeliveryBySlug(ctx, r.Slug)
	if err != nil || got.ID == 0 || got.Total != 2 || !slices.Equal(got.EventIDs, []int64{r.EventID}) {
		t.Errorf("DeliveryBySlug() after the lost answer = %+v, %v, want the delivery of 2 addresses", got, err)
	}
	if _, err := di.CreateDelivery(ctx, r); !errors.Is(err, core.ErrSlugTaken) {
		t.Errorf("CreateDelivery() sent again = %v, want core.ErrSlugTaken", err)
	}
}

func TestDropIssuer_ClaimDelivery_Failures(t *testing.T) {
	s, di := startDropIssuer(t)
	ctx := context.Background()
	r := deliveryDrop(t, s, "claim-failures")
	id, err := di.CreateDelivery(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	s.FailNextOp(wire.OpClaimDelivery, 1, http.StatusTooManyRequests)
	_, err = di.ClaimDelivery(ctx, id, listed1)
	var busy *core.BusyError
	if !errors.As(err, &busy) || busy.RetryAfter != time.Second || s.DeliveryClaimed(r.Slug, listed1) {
		t.Errorf("ClaimDelivery() answered 429 = %v, want a *core.BusyError waiting 1s, nothing claimed", err)
	}
	s.FailNextOp(wire.OpClaimDelivery, 1, http.StatusBadGateway)
	if _, err := di.ClaimDelivery(ctx, id, listed1); !errors.Is(err, core.ErrIssuerUnavailable) || errors.Is(err, core.ErrNotSent) {
		t.Errorf("ClaimDelivery() answered 502 = %v, want core.ErrIssuerUnavailable, sent", err)
	}
	s.DropNextMintResponses(1)
	if _, err := di.ClaimDelivery(ctx, id, listed1); !errors.Is(err, core.ErrIssuerUnavailable) || errors.Is(err, core.ErrNotSent) {
		t.Errorf("ClaimDelivery() with the answer lost = %v, want core.ErrIssuerUnavailable, sent", err)
	}
	if !s.DeliveryClaimed(r.Slug, listed1) || s.Requests(wire.OpClaimDelivery) != 3 {
		t.Errorf("after the lost answer: claimed %v after %d requests, want claimed after 3 (none retried)",
			s.DeliveryClaimed(r.Slug, listed1), s.Requests(wire.OpClaimDelivery))
	}
}

// TestDropIssuer_DeliveryAnswers: what the service may answer that the
// sandbox does not.
func TestDropIssuer_DeliveryAnswers(t *testing.T) {
	ctx := context.Background()
	issuer := func(status int, body string) poap.DropIssuer {
		c, _ := opsClient(t, answer(status, body))
		return poap.NewDropIssuer(c)
	}
	claims := []struct {
		name, body string
		want       error
	}{
		{"Expired", `{"statusCode":400,"error":"Bad Request","message":"EVENT_EXPIRED"}`, core.ErrDropExpired},
		{"NotAllowed", `{"statusCode":400,"message":"Address not allowed to claim this delivery"}`, core.ErrNotListed},
		{"Claimed", `{"statusCode":400,"message":"Delivery already claimed"}`, core.ErrWalletHoldsDrop},
		{"Unknown", `{"statusCode":400,"message":"Delivery is not active"}`, core.ErrMintRefused},
	}
	for _, tc := range claims {
		if _, err := issuer(http.StatusBadRequest, tc.body).ClaimDelivery(ctx, 812, alice); !errors.Is(err, tc.want) {
			t.Errorf("%s: ClaimDelivery() = %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := issuer(http.StatusOK, `{"slug":"poapbot-test-delivery"}`).CreateDelivery(ctx, core.DeliveryRequest{
		EventID: 175300, EditCode: editCode, Slug: "poapbot-test-delivery", Addresses: []string{alice},
	}); !errors.Is(err, core.ErrIssuerUnavailable) || errors.Is(err, core.ErrNotSent) {
		t.Errorf("CreateDelivery() answered without an id = %v, want core.ErrIssuerUnavailable, sent", err)
	}
	reads := []struct {
		name   string
		status int
		body   string
		want   error
	}{
		{"NoID", http.StatusOK, `{"slug":"poapbot-test-delivery"}`, core.ErrIssuerUnavailable},
		{"Down", http.StatusServiceUnavailable, `{"message":"Service Unavailable"}`, core.ErrIssuerUnavailable},
		{"Refused", http.StatusForbidden, `{"message":"Forbidden"}`, core.ErrIssuerRejected},
		{"Missing", http.StatusNotFound, `{"statusCode":404,"message":"Delivery not found"}`, core.ErrNotFound},
	}
	for _, tc := range reads {
		if _, err := issuer(tc.status, tc.body).DeliveryBySlug(ctx, "poapbot-test-delivery"); !errors.Is(err, tc.want) {
			t.Errorf("%s: DeliveryBySlug() = %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := issuer(http.StatusOK, `{}`).DeliveryBySlug(ctx, " "); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("DeliveryBySlug(blank) = %v, want core.ErrNotFound", err)
	}
}
