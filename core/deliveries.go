package core

import "context"

// claimDelivery mints the drop to the member's address on its delivery's
// list.
func (s *DropService) claimDelivery(ctx context.Context, d Drop, user User) (ClaimResult, error) {
	return ClaimResult{}, dropError(d, ErrMethodUnavailable)
}
