package core

import (
	"fmt"
	"time"
)

// The defaults of MAX_WALLETS and MAX_CHALLENGES.
const (
	DefaultMaxWallets    = 10
	DefaultMaxChallenges = 5
)

// LinkLimits are the most one member holds, so that no member takes the
// issuing service's budget (every verified wallet is scanned) or fills the
// database: Wallets linked wallets of every kind (MAX_WALLETS) and
// Challenges open challenges, unused and unexpired (MAX_CHALLENGES). A
// member who holds more than Wallets already (linked before the limit was
// set or lowered) keeps every wallet; only new links are refused until
// they /unlink enough to be under it.
type LinkLimits struct {
	Wallets    int
	Challenges int
}

// orDefaults fills zero or negative fields with their defaults.
func (l LinkLimits) orDefaults() LinkLimits {
	if l.Wallets <= 0 {
		l.Wallets = DefaultMaxWallets
	}
	if l.Challenges <= 0 {
		l.Challenges = DefaultMaxChallenges
	}
	return l
}

// WalletLimitError says a member holding Held wallets asked to link one
// more, past Limit (MAX_WALLETS). Held may exceed Limit for a member who
// linked them before the limit. It matches ErrTooManyWallets.
type WalletLimitError struct {
	Limit int
	Held  int
}

func (e *WalletLimitError) Error() string {
	return fmt.Sprintf("%d linked wallets, limit %d", e.Held, e.Limit)
}

// Is makes errors.Is(err, ErrTooManyWallets) true.
func (e *WalletLimitError) Is(target error) bool { return target == ErrTooManyWallets }

// ChallengeLimitError says a member holding Limit open challenges
// (MAX_CHALLENGES) asked for one more; the first of them expires at Next,
// and verifying one also frees its place. It matches ErrTooManyChallenges.
type ChallengeLimitError struct {
	Limit int
	Next  time.Time
}

func (e *ChallengeLimitError) Error() string {
	return fmt.Sprintf("%d open challenges, the first expires at %s", e.Limit, e.Next.UTC().Format(time.RFC3339))
}

// Is makes errors.Is(err, ErrTooManyChallenges) true.
func (e *ChallengeLimitError) Is(target error) bool { return target == ErrTooManyChallenges }
