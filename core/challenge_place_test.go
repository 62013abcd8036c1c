package core_test

import (
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

// TestWalletService_LinkIn_Place: the challenge keeps the community /link
// ran in, one line and without direction controls, as the verification
// page reads it back by nonce; a private chat's challenge has none.
func TestWalletService_LinkIn_Place(t *testing.T) {
	t.Parallel()
	siweServices(t, func(t *testing.T, s, _ *core.WalletService, _ *coretest.Clock) {
		c := mustLinkIn(t, s, alice, "Café\u202E <b>POAP</b>\nfriends", coretest.TestAddress)
		got, err := s.Challenge(t.Context(), c.Nonce)
		if want := "Café <b>POAP</b> friends"; err != nil || got.Place != want || c.Place != want {
			t.Errorf("Challenge(nonce).Place = %q, %v (LinkIn gave %q), want %q", got.Place, err, c.Place, want)
		}
		private := mustLinkIn(t, s, alice, "", "alice.eth")
		if got, err := s.Challenge(t.Context(), private.Nonce); err != nil || got.Place != "" {
			t.Errorf("Challenge(private).Place = %q, %v, want none", got.Place, err)
		}
	})
}
