package core

import "context"

// claimDelivery would mint the drop to the member's address on its
// delivery's list. Deliveries from the chat are not built yet (issue 13,
// item 2): no command sets a drop to DeliveryList (AddDrop refuses it as
// ErrInvalidDelivery), so a claim reaches this only through a drop stored
// by hand, and is told the method is not available.
func (s *DropService) claimDelivery(_ context.Context, d Drop, _ User) (ClaimResult, error) {
	return ClaimResult{}, dropError(d, ErrMethodUnavailable)
}
