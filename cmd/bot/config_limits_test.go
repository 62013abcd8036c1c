package main

import (
	"strings"
	"testing"
)

// TestConfig_Limits: MAX_WALLETS and MAX_CHALLENGES default to 10 and 5,
// and are refused outside 1 to 100, each naming its variable.
func TestConfig_Limits(t *testing.T) {
	t.Parallel()
	c, err := configFrom(mapLookup(nil))
	if err != nil || c.MaxWallets != 10 || c.MaxChallenges != 5 {
		t.Fatalf("LoadConfig() = %d wallets, %d challenges, %v; want 10 and 5", c.MaxWallets, c.MaxChallenges, err)
	}
	tests := []struct {
		name                string
		wallets, challenges int
		want                []string
	}{
		{"Defaults", 10, 5, nil},
		{"Bounds", 1, 100, nil},
		{"Zero", 0, 0, []string{"MAX_WALLETS must be between 1 and 100", "MAX_CHALLENGES must be between 1 and 100"}},
		{"Negative", -1, 5, []string{"MAX_WALLETS must be between 1 and 100 wallets per member (default 10), not -1"}},
		{"TooMany", 101, 6000, []string{"MAX_WALLETS must be between 1 and 100", "MAX_CHALLENGES must be between 1 and 100 open challenges per member (default 5), not 6000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := c
			c.MaxWallets, c.MaxChallenges = tt.wallets, tt.challenges
			err := c.Validate(true, true)
			got := ""
			if err != nil {
				got = err.Error()
			}
			for _, want := range tt.want {
				if !strings.Contains(got, want) {
					t.Errorf("Validate() = %q, want it to say %q", got, want)
				}
			}
			if tt.want == nil && err != nil {
				t.Errorf("Validate() = %v, want nil", err)
			}
		})
	}
	ten := func(name string) (string, bool) { return "ten", name == "MAX_WALLETS" }
	if _, err := configFrom(ten); err == nil || !strings.Contains(err.Error(), `MAX_WALLETS: "ten" is not a valid whole number`) {
		t.Errorf("LoadConfig(MAX_WALLETS=ten) = %v, want it named as not a whole number", err)
	}
}
