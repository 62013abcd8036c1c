package poap_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// TestSandbox_WebsiteClaimThrottled claims through the demo website claim of
// a sandbox that throttles website claims to one a second, on a clock that
// does not move: the second claim is refused with ErrRateLimited and a
// Retry-After, sent once (a mint is not retried, even on a 429), and mints
// nothing.
func TestSandbox_WebsiteClaimThrottled(t *testing.T) {
	at := time.Date(2026, time.March, 10, 12, 0, 0, 0, time.UTC)
	s := sandbox.New(sandbox.Options{
		APIKey: testKey, Now: func() time.Time { return at },
		WebsiteClaimRate: 1, WebsiteClaimBurst: 1,
	})
	s.SeedDemo()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c, err := poap.NewClient(poap.Options{BaseURL: srv.URL, APIKey: testKey, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	before := s.MintCount(sandbox.DemoLinksDropID)
	if _, err := c.WebsiteClaim(ctx, sandbox.DemoWebsite, collector); err != nil {
		t.Fatalf("WebsiteClaim() within the burst error = %v", err)
	}
	_, err = c.WebsiteClaim(ctx, sandbox.DemoWebsite, collector2)
	var apiErr *poap.APIError
	if !errors.Is(err, poap.ErrRateLimited) || !errors.As(err, &apiErr) || apiErr.RetryAfter <= 0 {
		t.Fatalf("WebsiteClaim() over the rate error = %#v, want ErrRateLimited with a RetryAfter", err)
	}
	if apiErr.RetryAfter != time.Second {
		t.Errorf("RetryAfter = %v, want 1s", apiErr.RetryAfter)
	}
	if n := s.Requests(wire.OpWebsiteClaim); n != 2 {
		t.Errorf("the sandbox received %d website claims, want 2: the throttled one sent once", n)
	}
	if n := s.MintCount(sandbox.DemoLinksDropID); n != before+1 {
		t.Errorf("MintCount() = %d, want %d: the throttled claim minted nothing", n, before+1)
	}
	if slices.Contains(s.Holders(sandbox.DemoLinksDropID), collector2) {
		t.Errorf("%s holds the drop after a throttled claim", collector2)
	}
}
