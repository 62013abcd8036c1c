package poap_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// startSandbox serves a seeded sandbox on loopback and returns it with a
// client that sends the right key.
func startSandbox(t *testing.T) (*sandbox.Server, *poap.Client, string) {
	t.Helper()
	s := sandbox.New(sandbox.Options{APIKey: testKey})
	s.SeedDemo()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c, err := poap.NewClient(poap.Options{BaseURL: srv.URL, APIKey: testKey, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return s, c, srv.URL
}

func TestSandbox_Scan(t *testing.T) {
	_, c, _ := startSandbox(t)
	ctx := context.Background()
	tokens, err := c.Scan(ctx, sandbox.DemoWallet)
	if err != nil {
		t.Fatalf("Scan(DemoWallet) error = %v", err)
	}
	if len(tokens) != 14 {
		t.Fatalf("Scan(DemoWallet) = %d tokens, want 14", len(tokens))
	}
	chains, days := map[string]bool{}, map[string]bool{}
	for _, tok := range tokens {
		chains[tok.Chain] = true
		days[tok.Created.Format(time.DateOnly)] = true
		if tok.TokenID == "" || tok.Created.IsZero() || tok.Event.ID == 0 || tok.Event.Name == "" ||
			tok.Event.StartDate.IsZero() || tok.Event.ExpiryDate.IsZero() || tok.Event.Supply == 0 ||
			!strings.HasPrefix(tok.Event.ImageURL, "https://assets.poap.xyz/") ||
			!strings.EqualFold(tok.Owner, sandbox.DemoWallet) {
			t.Errorf("token %+v has an empty or wrong field", tok)
		}
	}
	for _, chain := range []string{"xdai", "homestead", "base", "matic"} {
		if !chains[chain] {
			t.Errorf("no token on %s, want several chains: %v", chain, chains)
		}
	}
	if len(days) != 14 {
		t.Errorf("%d distinct mint days, want 14", len(days))
	}
	first := tokens[0]
	wantEvent := poap.Event{
		ID: 190115, FancyID: "new-year-2025-collectors-toast-2025", Name: "New Year 2025 Collectors' Toast",
		Description: "Raised a glass with fellow collectors.",
		EventURL:    "https://events.example.org/new-year-2025-collectors-toast-2025",
		ImageURL:    "https://assets.poap.xyz/new-year-2025-collectors-toast-2025-logo-1735689600000.png",
		Year:        2025, Supply: 1, Timezone: "UTC",
		StartDate:  poap.Date{Year: 2025, Month: time.January, Day: 1},
		EndDate:    poap.Date{Year: 2025, Month: time.January, Day: 1},
		ExpiryDate: poap.Date{Year: 2025, Month: time.January, Day: 31},
	}
	if diff := cmp.Diff(wantEvent, first.Event); diff != "" || !first.Created.Equal(utc(2025, 1, 1, 0, 10, 0)) {
		t.Errorf("newest token created %v, event mismatch (-want +got):\n%s", first.Created, diff)
	}
}

func TestSandbox_ScanOthers(t *testing.T) {
	s, c, _ := startSandbox(t)
	ctx := context.Background()
	drop := s.AddDrop(sandbox.Drop{Name: "Test drop 1 of 3", StartDate: utc(2025, 6, 1, 0, 0, 0)})
	if _, err := s.Mint(drop.ID, "a+b@example.org", "", time.Time{}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		address string
		want    int
	}{
		{sandbox.DemoENS, 14},
		{strings.ToLower(sandbox.DemoWallet), 14},
		{sandbox.DemoWallet2, 2},
		{sandbox.DemoEmail, 1},
		{sandbox.EmptyWallet, 0},
		{"A+B@example.org", 1},
	}
	for _, tc := range tests {
		got, err := c.Scan(ctx, tc.address)
		if err != nil || len(got) != tc.want {
			t.Errorf("Scan(%q) = %d tokens, %v, want %d", tc.address, len(got), err, tc.want)
		}
	}
	email, _ := c.Scan(ctx, sandbox.DemoEmail)
	if len(email) == 1 && (email[0].TokenID != "" || email[0].Migrated != nil) {
		t.Errorf("Scan(DemoEmail) = %+v, want a POAP without token id", email[0])
	}
	migrated := 0
	all, _ := c.Scan(ctx, sandbox.DemoWallet)
	for _, tok := range all {
		if tok.Migrated != nil {
			migrated++
		}
	}
	if migrated != 1 {
		t.Errorf("%d migrated tokens, want 1", migrated)
	}
}

func TestSandbox_ScanEvent(t *testing.T) {
	_, c, _ := startSandbox(t)
	ctx := context.Background()
	got, err := c.ScanEvent(ctx, sandbox.DemoENS, sandbox.DemoDropID)
	if err != nil {
		t.Fatalf("ScanEvent() error = %v", err)
	}
	if got.Event.ID != sandbox.DemoDropID || got.TokenID == "" || got.Event.Supply != 0 || got.Chain != "" ||
		got.Event.StartDate != (poap.Date{Year: 2021, Month: time.December, Day: 7}) {
		t.Errorf("ScanEvent() = %+v, want the demo drop without chain or supply", got)
	}
	if _, err := c.ScanEvent(ctx, sandbox.EmptyWallet, sandbox.DemoDropID); !errors.Is(err, poap.ErrNotFound) {
		t.Errorf("ScanEvent(EmptyWallet) error = %v, want ErrNotFound", err)
	}
}

func TestSandbox_Errors(t *testing.T) {
	s, c, base := startSandbox(t)
	ctx := context.Background()
	if _, err := c.Scan(ctx, "0xnot-an-address"); !errors.Is(err, poap.ErrInvalidAddress) {
		t.Errorf("Scan(bad) error = %v, want ErrInvalidAddress", err)
	}
	if _, err := c.Holdings(ctx, "0x12"); !errors.Is(err, core.ErrInvalidWallet) {
		t.Errorf("Holdings(bad) error = %v, want core.ErrInvalidWallet", err)
	}
	bad, err := poap.NewClient(poap.Options{BaseURL: base, APIKey: "wrong"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Scan(ctx, sandbox.DemoWallet); !errors.Is(err, poap.ErrUnauthorized) {
		t.Errorf("Scan() with a wrong key error = %v, want ErrUnauthorized", err)
	}
	if _, err := bad.Holdings(ctx, sandbox.DemoWallet); !errors.Is(err, core.ErrIssuerRejected) {
		t.Errorf("Holdings() with a wrong key error = %v, want core.ErrIssuerRejected", err)
	}
	// Without retries, each failure shows as it is.
	once, err := poap.NewClient(poap.Options{BaseURL: base, APIKey: testKey, Retry: poap.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	s.FailNext(1, http.StatusServiceUnavailable)
	if _, err := once.Scan(ctx, sandbox.DemoWallet); !errors.Is(err, poap.ErrUnavailable) {
		t.Errorf("Scan() after FailNext(1, 503) error = %v, want ErrUnavailable", err)
	}
	s.FailNext(1, http.StatusTooManyRequests)
	_, err = once.Scan(ctx, sandbox.DemoWallet)
	var apiErr *poap.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, poap.ErrRateLimited) || apiErr.RetryAfter != time.Second {
		t.Errorf("Scan() after FailNext(1, 429) error = %#v, want ErrRateLimited with RetryAfter 1s", err)
	}
	// With the default policy, a scan rides out a 503.
	s.FailNext(1, http.StatusServiceUnavailable)
	if got, err := c.Scan(ctx, sandbox.DemoWallet); err != nil || len(got) != 14 {
		t.Errorf("Scan() after one 503 = %d tokens, %v, want 14 on the retry", len(got), err)
	}
}

func TestSandbox_TimeoutAndCounters(t *testing.T) {
	s, _, base := startSandbox(t)
	rec := &recorder{}
	c, err := poap.NewClient(poap.Options{BaseURL: base, APIKey: testKey, Timeout: 50 * time.Millisecond, Observer: rec,
		Retry: poap.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c.Scan(ctx, sandbox.DemoWallet)
	c.ScanEvent(ctx, sandbox.DemoWallet, sandbox.DemoDropID)
	c.ScanEvent(ctx, sandbox.EmptyWallet, sandbox.DemoDropID)
	s.SetLatency(time.Minute)
	_, err = c.Holdings(ctx, sandbox.DemoWallet)
	if !errors.Is(err, core.ErrIssuerUnavailable) || !errors.Is(err, poap.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Holdings() with a slow sandbox error = %v, want unavailable and a deadline", err)
	}
	want := []observation{{wire.OpScan, "200"}, {wire.OpScanEvent, "200"}, {wire.OpScanEvent, "404"}, {wire.OpScan, poap.StatusTimeout}}
	if diff := cmp.Diff(want, rec.observations()); diff != "" {
		t.Errorf("observations mismatch (-want +got):\n%s", diff)
	}
	if s.Requests(wire.OpScan) != 2 || s.Requests(wire.OpScanEvent) != 2 {
		t.Errorf("sandbox counted %d scans and %d scans by event, want 2 and 2", s.Requests(wire.OpScan), s.Requests(wire.OpScanEvent))
	}
}
