package poap_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// gateSandbox serves an empty sandbox on loopback and returns it with the
// gate issuer of a client that sends key, does not retry and is not rate
// limited.
func gateSandbox(t *testing.T, key string) (*sandbox.Server, poap.GateIssuer) {
	t.Helper()
	sb := sandbox.New(sandbox.Options{APIKey: testKey})
	srv := httptest.NewServer(sb)
	t.Cleanup(srv.Close)
	c, err := poap.NewClient(poap.Options{BaseURL: srv.URL, APIKey: core.Secret(key), Retry: noRetry, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	return sb, poap.NewGateIssuer(c)
}

// holderAddress returns the i-th holder of the tests, in the mixed case of
// a checksummed address.
func holderAddress(i int) string {
	return fmt.Sprintf("0x%040X", 0xabcdef000+i)
}

// seedHolders adds a drop with n holders to sb and returns its id.
func seedHolders(t *testing.T, sb *sandbox.Server, n int) int64 {
	t.Helper()
	d := sb.AddDrop(sandbox.Drop{Name: "Gated"})
	addresses := make([]string, n)
	for i := range addresses {
		addresses[i] = holderAddress(i)
	}
	if err := sb.SeedHolders(d.ID, addresses); err != nil {
		t.Fatal(err)
	}
	return d.ID
}

func TestGateIssuer_DropHolders(t *testing.T) {
	sb, g := gateSandbox(t, testKey)
	drop := seedHolders(t, sb, 650)
	seen := map[string]bool{}
	var sizes []int
	for offset := 0; offset < 650; offset += core.HoldersPageSize {
		page, err := g.DropHolders(t.Context(), drop, offset)
		if err != nil {
			t.Fatalf("DropHolders(%d, %d) error = %v", drop, offset, err)
		}
		if page.Total != 650 {
			t.Errorf("DropHolders(%d, %d).Total = %d, want 650", drop, offset, page.Total)
		}
		sizes = append(sizes, len(page.Addresses))
		for _, a := range page.Addresses {
			if a != strings.ToLower(a) {
				t.Errorf("address %s is not lower case", a)
			}
			seen[a] = true
		}
	}
	if diff := cmp.Diff([]int{300, 300, 50}, sizes); diff != "" {
		t.Errorf("page sizes mismatch (-want +got):\n%s", diff)
	}
	for i := range 650 {
		if a := strings.ToLower(holderAddress(i)); !seen[a] {
			t.Fatalf("holder %s missing from the pages", a)
		}
	}
	if n := sb.Requests(wire.OpHolders); n != 3 {
		t.Errorf("requests = %d, want one a page", n)
	}
}

func TestGateIssuer_DropHolders_Errors(t *testing.T) {
	tests := []struct {
		name  string
		key   string
		drop  int64 // 0: the seeded drop
		fail  int   // a status the holders endpoint answers once
		wants []error
	}{
		{name: "UnknownEvent", key: testKey, drop: 999999, wants: []error{core.ErrUnknownEvent, poap.ErrNotFound}},
		{name: "InvalidID", key: testKey, drop: -1, wants: []error{core.ErrUnknownEvent, poap.ErrInvalidInput}},
		{name: "Unavailable", key: testKey, fail: http.StatusServiceUnavailable, wants: []error{core.ErrIssuerUnavailable, poap.ErrUnavailable}},
		{name: "RateLimited", key: testKey, fail: http.StatusTooManyRequests, wants: []error{core.ErrIssuerUnavailable, poap.ErrRateLimited}},
		{name: "RefusedKey", key: "wrong-key", wants: []error{core.ErrIssuerRejected, poap.ErrUnauthorized}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb, g := gateSandbox(t, tt.key)
			drop := seedHolders(t, sb, 3)
			if tt.drop != 0 {
				drop = tt.drop
			}
			if tt.fail != 0 {
				sb.FailNextOp(wire.OpHolders, 1, tt.fail)
			}
			page, err := g.DropHolders(t.Context(), drop, 0)
			for _, want := range tt.wants {
				if !errors.Is(err, want) {
					t.Errorf("DropHolders(%d, 0) = %+v, %v, want an error matching %v", drop, page, err, want)
				}
			}
		})
	}
	t.Run("Canceled", func(t *testing.T) {
		sb, g := gateSandbox(t, testKey)
		drop := seedHolders(t, sb, 3)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := g.DropHolders(ctx, drop, 0); !errors.Is(err, context.Canceled) || errors.Is(err, core.ErrIssuerUnavailable) {
			t.Errorf("DropHolders() with a cancelled context = %v, want context.Canceled alone", err)
		}
	})
}

// TestGateIssuer_DropHolders_Owners checks the owners a page skips: the zero
// address (a burned POAP) and none at all; a migrated POAP still counts.
func TestGateIssuer_DropHolders_Owners(t *testing.T) {
	const body = `{"limit":300,"offset":0,"total":4,"transferCount":1,"tokens":[
		{"id":"1","created":"2025-03-07 18:02:51","migrated":"2025-03-20 08:00:00","transferCount":"0",
		 "owner":{"id":"0xFB6916095ca1df60bB79Ce92cE3Ea74c37c5d359","tokensOwned":3,"ens":""}},
		{"id":"2","created":"2025-03-07 18:02:52","migrated":null,"transferCount":"1",
		 "owner":{"id":"0x0000000000000000000000000000000000000000","tokensOwned":9000,"ens":""}},
		{"id":"3","created":"2025-03-07 18:02:53","migrated":null,"transferCount":"0","owner":{"id":""}},
		{"id":"4","created":"2025-03-07 18:02:54","migrated":null,"transferCount":"0",
		 "owner":{"id":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed","tokensOwned":1,"ens":"alice.eth"}}]}`
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	}), poap.Options{})
	page, err := poap.NewGateIssuer(c).DropHolders(t.Context(), 175300, 0)
	want := core.HolderPage{Total: 4, Addresses: []string{
		"0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed",
	}}
	if diff := cmp.Diff(want, page); err != nil || diff != "" {
		t.Errorf("DropHolders() error = %v, mismatch (-want +got):\n%s", err, diff)
	}
}

func TestGateIssuer_MoveToken(t *testing.T) {
	sb, g := gateSandbox(t, testKey)
	drop := seedHolders(t, sb, 2)
	from, to := holderAddress(0), holderAddress(7)
	if _, err := sb.MoveToken(drop, from, to); err != nil {
		t.Fatal(err)
	}
	page, err := g.DropHolders(t.Context(), drop, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{strings.ToLower(holderAddress(1)), strings.ToLower(to)}
	if diff := cmp.Diff(want, page.Addresses, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("holders after the move mismatch (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		wallet string
		n      int
	}{{from, 0}, {to, 1}} {
		held, err := g.Holdings(t.Context(), tc.wallet)
		if err != nil || len(held) != tc.n {
			t.Errorf("Holdings(%s) = %d POAPs, %v, want %d", tc.wallet, len(held), err, tc.n)
		}
	}
}

func TestGateIssuer_Holdings(t *testing.T) {
	sb, g := gateSandbox(t, testKey)
	first, second := seedHolders(t, sb, 2), seedHolders(t, sb, 1)
	held, err := g.Holdings(t.Context(), strings.ToLower(holderAddress(0)))
	if err != nil {
		t.Fatal(err)
	}
	drops := map[int64]bool{}
	for _, h := range held {
		drops[h.DropID] = true
	}
	if len(held) != 2 || !drops[first] || !drops[second] {
		t.Errorf("Holdings() = %+v, want one POAP of drops %d and %d", held, first, second)
	}
}

func TestGateIssuer_DropDetails(t *testing.T) {
	sb, g := gateSandbox(t, testKey)
	drop := seedHolders(t, sb, 1)
	d, err := g.DropDetails(t.Context(), drop)
	if err != nil || d.Name != "Gated" {
		t.Errorf("DropDetails(%d) = %+v, %v, want the drop named Gated", drop, d, err)
	}
	if _, err := g.DropDetails(t.Context(), drop+1); !errors.Is(err, core.ErrUnknownEvent) {
		t.Errorf("DropDetails(%d) error = %v, want core.ErrUnknownEvent", drop+1, err)
	}
}
