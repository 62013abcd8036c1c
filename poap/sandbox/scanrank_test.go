package sandbox_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/poap/sandbox"
)

// TestServer_ScanRank: the rank of an address is the count of scans when
// its first scan was answered, whatever the case it was asked in; a later
// scan of it does not change it; an address never scanned has none.
func TestServer_ScanRank(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	h.SeedDemo()
	for _, a := range []string{sandbox.EmptyWallet, sandbox.DemoWallet, strings.ToLower(sandbox.EmptyWallet)} {
		if r := h.call(t, http.MethodGet, "/actions/scan/"+a, nil); r.status != http.StatusOK {
			t.Fatalf("scan of %s = %d", a, r.status)
		}
	}
	for a, want := range map[string]int{
		sandbox.EmptyWallet:                          1,
		strings.ToLower(sandbox.DemoWallet):          2,
		"0x00000000000000000000000000000000000000aa": 0,
	} {
		if got := h.ScanRank(a); got != want {
			t.Errorf("ScanRank(%s) = %d, want %d", a, got, want)
		}
	}
}
