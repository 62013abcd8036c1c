package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestLink_MaxWallets: MAX_WALLETS from the environment reaches the
// linking: past it /link is refused with the limit and what to do, and
// /wallet says how many of how many.
func TestLink_MaxWallets(t *testing.T) {
	t.Parallel()
	for name, url := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startMainWith(t, map[string]string{"DATABASE_URL": url, "MAX_WALLETS": "2"}, true)
			fmt.Fprint(s.stdin, "/as alice\n/link a@example.org\n/link b@example.org\n/link c@example.org\n/wallet\n")
			waitOutput(t, s, "Your wallets: 2 of at most 2")
			out := s.out.String()
			if !strings.Contains(out, "You have linked 2 wallets, the most a member can link here") {
				t.Errorf("console output lacks the refusal past MAX_WALLETS=2:\n%s", out)
			}
			if strings.Contains(out, "Linked c@example.org") || strings.Contains(out, "3. ") {
				t.Errorf("c@example.org was linked past the limit:\n%s", out)
			}
		})
	}
}
