package bot

import (
	"fmt"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/core"
)

// TestContractText words the refusals of smart-contract wallet checks.
func TestContractText(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"ChainError", &core.ChainError{Chain: 8453, Err: core.ErrChainUnavailable}, "I could not reach Base (chain 8453)"},
		{"TooManyChecks", fmt.Errorf("%w: %w", core.ErrTooManyChainChecks, core.ErrChainUnavailable), "wait a few minutes"},
		{"ContractWithoutChains", core.ErrChainsNotConfigured, "Nothing was counted against you"},
		{"NoKeyNoContract", &core.SignatureError{Want: "0x00000000000000000000000000000000000000aa"}, "no smart-contract wallet at that address"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := contractText(tt.err)
			if !ok || !strings.Contains(got, tt.want) {
				t.Errorf("contractText(%v) = %q, %v, want one with %q", tt.err, got, ok, tt.want)
			}
		})
	}
}
