package poap_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/wire"
)

// allSentinels are the errors an operation's failure is tested against; each
// failure must match exactly one.
var allSentinels = []error{
	poap.ErrNotFound, poap.ErrUnauthorized, poap.ErrRateLimited, poap.ErrInvalidAddress, poap.ErrUnavailable,
	poap.ErrQRClaimed, poap.ErrQRExpired, poap.ErrAlreadyMinted, poap.ErrInvalidEditCode,
	poap.ErrLimitExceeded, poap.ErrEventExpired, poap.ErrInvalidInput, poap.ErrNotListed, poap.ErrSlugTaken,
}

// sentinelCalls are the operations the sentinel tests run, by name.
var sentinelCalls = map[string]func(context.Context, *poap.Client) error{
	wire.OpMint: func(ctx context.Context, c *poap.Client) error {
		_, err := c.MintWithSecret(ctx, poap.MintInput{QRHash: "k9x4mq", Address: alice}, "")
		return err
	},
	wire.OpClaimStatus: func(ctx context.Context, c *poap.Client) error {
		_, err := c.ClaimStatus(ctx, "zzzzzz")
		return err
	},
	wire.OpMintLinks: func(ctx context.Context, c *poap.Client) error {
		_, err := c.MintLinks(ctx, 175300, editCode)
		return err
	},
	wire.OpRequestMintLinks: func(ctx context.Context, c *poap.Client) error {
		_, err := c.RequestMintLinks(ctx, poap.RedeemRequest{EventID: 175300, Count: 5, EditCode: editCode})
		return err
	},
	wire.OpWebsiteClaim: func(ctx context.Context, c *poap.Client) error {
		_, err := c.WebsiteClaim(ctx, "increase-group-student", alice)
		return err
	},
	wire.OpClaimDelivery: func(ctx context.Context, c *poap.Client) error {
		_, err := c.ClaimDelivery(ctx, 812, alice)
		return err
	},
	wire.OpDeliveryBySlug: func(ctx context.Context, c *poap.Client) error {
		_, err := c.DeliveryBySlug(ctx, "poapbot-test-delivery")
		return err
	},
	wire.OpSecret: func(ctx context.Context, c *poap.Client) error {
		_, err := c.Secret(ctx, "increase-group-student")
		return err
	},
	wire.OpDrop: func(ctx context.Context, c *poap.Client) error {
		_, err := c.Drop(ctx, 175300)
		return err
	},
	wire.OpHolders: func(ctx context.Context, c *poap.Client) error {
		_, err := c.HoldersPage(ctx, 175300, 0, 0)
		return err
	},
}

// TestAPIError_Sentinels answers operations with production's error bodies
// (the backend's, the gateway's {message} and {Message}, plain text) and
// checks the one sentinel each matches.
func TestAPIError_Sentinels(t *testing.T) {
	tests := []struct {
		op      string
		status  int
		fixture string
		want    error
	}{
		{wire.OpMint, 400, "error_qr_claimed.json", poap.ErrQRClaimed},
		{wire.OpMint, 400, "error_qr_claimed_legacy.json", poap.ErrQRClaimed},
		{wire.OpMint, 400, "error_qr_expired.json", poap.ErrQRExpired},
		{wire.OpMint, 400, "error_already_minted.json", poap.ErrAlreadyMinted},
		{wire.OpMint, 400, "error_already_minted_legacy.json", poap.ErrAlreadyMinted},
		{wire.OpMint, 400, "error_400.json", poap.ErrInvalidAddress},
		{wire.OpMint, 404, "error_404.json", poap.ErrNotFound},
		{wire.OpClaimStatus, 400, "error_claim_not_found.json", poap.ErrNotFound},
		{wire.OpMintLinks, 400, "error_invalid_secret_code.json", poap.ErrInvalidEditCode},
		{wire.OpMintLinks, 400, "error_edit_code.json", poap.ErrInvalidEditCode},
		{wire.OpRequestMintLinks, 400, "error_invalid_secret_code.json", poap.ErrInvalidEditCode},
		{wire.OpWebsiteClaim, 400, "error_limit_exceeded.json", poap.ErrLimitExceeded},
		{wire.OpWebsiteClaim, 400, "error_event_expired.json", poap.ErrEventExpired},
		{wire.OpWebsiteClaim, 400, "error_invalid_secret.json", poap.ErrNotFound},
		{wire.OpWebsiteClaim, 429, "error_429.json", poap.ErrRateLimited},
		{wire.OpClaimDelivery, 400, "error_delivery_claimed.json", poap.ErrAlreadyMinted},
		{wire.OpDeliveryBySlug, 404, "error_404.json", poap.ErrNotFound},
		{wire.OpSecret, 401, "error_401.json", poap.ErrUnauthorized},
		{wire.OpDrop, 403, "error_403_deny.json", poap.ErrUnauthorized},
		{wire.OpDrop, 502, "error_502.txt", poap.ErrUnavailable},
		{wire.OpHolders, 503, "error_503.json", poap.ErrUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.op+"/"+tc.fixture, func(t *testing.T) {
			c, _ := opsClient(t, serveFixture(t, tc.status, tc.fixture))
			err := sentinelCalls[tc.op](context.Background(), c)
			var apiErr *poap.APIError
			if !errors.As(err, &apiErr) || apiErr.Operation != tc.op || apiErr.Status != tc.status || apiErr.Message == "" {
				t.Fatalf("error = %#v, want an *APIError of %s with status %d and a message", err, tc.op, tc.status)
			}
			for _, s := range allSentinels {
				if got, want := errors.Is(err, s), s == tc.want; got != want {
					t.Errorf("errors.Is(%v, %v) = %v, want %v", err, s, got, want)
				}
			}
		})
	}
}

// TestAPIError_Is_Wording checks the message rules that fixtures do not
// cover: whole-word codes, "expired" by operation, statuses other than 400.
func TestAPIError_Is_Wording(t *testing.T) {
	tests := []struct {
		err  poap.APIError
		want error
	}{
		{poap.APIError{Operation: wire.OpWebsiteClaim, Status: 400, Message: "INVALID_SECRET_CODE"}, poap.ErrInvalidEditCode},
		{poap.APIError{Operation: wire.OpWebsiteClaim, Status: 400, Code: "INVALID_SECRET"}, poap.ErrNotFound},
		{poap.APIError{Operation: wire.OpMint, Status: 400, Message: "INVALID_SECRET"}, nil},
		{poap.APIError{Operation: wire.OpMint, Status: 400, Message: "This mint link has expired"}, poap.ErrQRExpired},
		{poap.APIError{Operation: wire.OpWebsiteClaim, Status: 400, Message: "This drop has expired"}, poap.ErrEventExpired},
		{poap.APIError{Operation: wire.OpDrop, Status: 400, Message: "expired"}, nil},
		{poap.APIError{Operation: wire.OpMintLinks, Status: 400, Message: "Invalid secret code"}, poap.ErrInvalidEditCode},
		{poap.APIError{Operation: wire.OpValidateEditCode, Status: 400, Message: "SECRET_CODE_MISSING: secret_code is required"}, poap.ErrInvalidEditCode},
		{poap.APIError{Operation: wire.OpEditDrop, Status: 400, Code: "SECRET_CODE_MISSING"}, poap.ErrInvalidEditCode},
		{poap.APIError{Operation: wire.OpMint, Status: 401, Message: "QR Claim already claimed"}, poap.ErrUnauthorized},
		{poap.APIError{Operation: wire.OpClaimDelivery, Status: 400, Message: "Address is not valid"}, poap.ErrInvalidAddress},
		{poap.APIError{Operation: wire.OpClaimDelivery, Status: 400, Message: "This address is not on the delivery's list"}, poap.ErrNotListed},
		{poap.APIError{Operation: wire.OpClaimDelivery, Status: 400, Message: "Address 0xabc is not in the delivery"}, poap.ErrNotListed},
		{poap.APIError{Operation: wire.OpClaimDelivery, Status: 400, Message: "You are not allowed to claim this delivery"}, poap.ErrNotListed},
		{poap.APIError{Operation: wire.OpClaimDelivery, Status: 400, Message: "Delivery already claimed"}, poap.ErrAlreadyMinted},
		{poap.APIError{Operation: wire.OpClaimDelivery, Status: 403, Message: "not on the delivery's list"}, poap.ErrUnauthorized},
		{poap.APIError{Operation: wire.OpWebsiteClaim, Status: 400, Message: "This address is not on the delivery's list"}, nil},
		{poap.APIError{Operation: wire.OpCreateDelivery, Status: 400, Message: `slug "x" is already taken`}, poap.ErrSlugTaken},
		{poap.APIError{Operation: wire.OpCreateDelivery, Status: 400, Message: "Slug already exists"}, poap.ErrSlugTaken},
		{poap.APIError{Operation: wire.OpCreateDelivery, Status: 409, Message: "This slug is in use"}, poap.ErrSlugTaken},
		{poap.APIError{Operation: wire.OpCreateDelivery, Status: 409, Message: "Conflict"}, nil},
		{poap.APIError{Operation: wire.OpCreateDelivery, Status: 400, Message: "slug must be 1 to 100 letters, digits, hyphens or underscores"}, nil},
		{poap.APIError{Operation: wire.OpCreateDelivery, Status: 400, Message: "Invalid edit code"}, poap.ErrInvalidEditCode},
		{poap.APIError{Operation: wire.OpCreateSecretRequest, Status: 400, Message: "claim_name slug is already taken"}, nil},
	}
	for _, tc := range tests {
		for _, s := range allSentinels {
			if got, want := errors.Is(&tc.err, s), s == tc.want; got != want {
				t.Errorf("errors.Is(%v, %v) = %v, want %v", &tc.err, s, got, want)
			}
		}
	}
}

// TestClient_Idempotency checks which operations are retried after a 503:
// reads, including those sent as POST, are; writes, above all the mint, are
// sent once.
func TestClient_Idempotency(t *testing.T) {
	writes := map[string]bool{
		wire.OpMint: true, wire.OpRequestMintLinks: true, wire.OpCreateSecretRequest: true,
		wire.OpEditSecretRequest: true, wire.OpWebsiteClaim: true, wire.OpCreateDelivery: true,
		wire.OpClaimDelivery: true, wire.OpSetMintingNetwork: true,
	}
	img := pngImage(t)
	ops := append(opCalls(),
		opCall{name: "CreateDrop", op: wire.OpCreateDrop, call: func(ctx context.Context, c *poap.Client) error {
			_, err := c.CreateDrop(ctx, testDropInput(img))
			return err
		}},
		opCall{name: "EditDrop", op: wire.OpEditDrop, call: func(ctx context.Context, c *poap.Client) error {
			in := testDropInput(img)
			// Complete, so that EditDrop reads nothing first and the PUT
			// is the one request.
			return c.EditDrop(ctx, "poapbot-test-drop-2-of-3-2025", poap.DropEdit{
				Name: in.Name, Description: in.Description, StartDate: in.StartDate, EndDate: in.EndDate,
				ExpiryDate: in.ExpiryDate, EditCode: editCode,
				VirtualEvent: ptr(false), PrivateEvent: ptr(true), EventTemplateID: ptr(int64(0)),
				Image: bytes.NewReader(img), ImageName: "art.png",
			})
		}})
	writes[wire.OpCreateDrop], writes[wire.OpEditDrop] = true, true
	for _, tc := range ops {
		rec := &capture{}
		c := newClient(t, rec.wrap(serveFixture(t, http.StatusServiceUnavailable, "error_503.json")), poap.Options{
			Tokens: fixedTokens{}, Audience: testAudience,
			Retry: poap.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond},
		})
		err := tc.call(context.Background(), c)
		want := 2
		if writes[tc.op] {
			want = 1
		}
		reqs := rec.all()
		if !errors.Is(err, poap.ErrUnavailable) || len(reqs) != want {
			t.Errorf("%s: error = %v after %d attempts, want ErrUnavailable after %d", tc.name, err, len(reqs), want)
		}
		if len(reqs) == 2 && !bytes.Equal(reqs[0].Body, reqs[1].Body) {
			t.Errorf("%s: the retry sent another body: %q then %q", tc.name, reqs[0].Body, reqs[1].Body)
		}
	}
}
