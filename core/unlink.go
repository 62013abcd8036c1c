package core

import (
	"context"
	"errors"
	"strings"
)

// Wallets lists the member's wallets, the primary first. A member who
// linked nothing has none, and no error. It returns the store's error.
func (s *Service) Wallets(ctx context.Context, m Member) ([]Wallet, error) {
	user, err := s.store.FindUser(ctx, m.Platform, m.ExternalID)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, wrap("wallets", err)
	}
	wallets, err := s.store.Wallets(ctx, user.ID)
	if err != nil {
		return nil, wrap("wallets", err)
	}
	return wallets, nil
}

// Unlink removes the member's wallet named by wallet (as /link took it),
// or all their wallets when wallet is empty or "all". When the primary
// goes, the oldest remaining wallet becomes primary. Events learn of the
// removal (gating re-evaluates the member there). Errors: *WalletError for
// a malformed wallet, ErrNotLinked when the member has no wallet,
// ErrWalletNotLinked when they did not link that one.
func (s *Service) Unlink(ctx context.Context, m Member, wallet string) (Unlinked, error) {
	ls, err := s.linkStore()
	if err != nil {
		return Unlinked{}, err
	}
	value := ""
	if w := strings.TrimSpace(wallet); w != "" && !strings.EqualFold(w, "all") {
		if _, value, err = ParseWallet(w); err != nil {
			return Unlinked{}, err
		}
	}
	user, err := s.store.FindUser(ctx, m.Platform, m.ExternalID)
	if errors.Is(err, ErrNotFound) {
		return Unlinked{}, ErrNotLinked
	}
	if err != nil {
		return Unlinked{}, wrap("unlink", err)
	}
	u, err := ls.UnlinkWallets(ctx, user.ID, value)
	switch {
	case errors.Is(err, ErrNotFound) && value == "":
		return Unlinked{}, ErrNotLinked
	case errors.Is(err, ErrNotFound):
		return Unlinked{}, ErrWalletNotLinked
	case err != nil:
		return Unlinked{}, wrap("unlink", err)
	}
	s.events.WalletUnlinked(ctx, u.User, u.Removed)
	return u, nil
}

// Forget deletes everything stored about the member: their profile,
// wallets and challenges. The audit log keeps its entries without naming
// them, and notes that a member was forgotten. A member with nothing
// stored gets a zero Forgotten and no error. It returns the store's error.
func (s *Service) Forget(ctx context.Context, m Member) (Forgotten, error) {
	ls, err := s.linkStore()
	if err != nil {
		return Forgotten{}, err
	}
	f, err := ls.ForgetUser(ctx, m.Platform, m.ExternalID)
	if errors.Is(err, ErrNotFound) {
		return Forgotten{}, nil
	}
	if err != nil {
		return Forgotten{}, wrap("forget", err)
	}
	if len(f.Wallets) > 0 {
		s.events.WalletUnlinked(ctx, f.User, f.Wallets)
	}
	return f, nil
}
