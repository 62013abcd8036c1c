package core

import (
	"context"
	"strings"
)

// GateService is the MintEvents of the DropService: a member the bot
// minted a POAP to is re-evaluated within seconds, as after /verify.
var _ MintEvents = (*GateService)(nil)

// Minted re-evaluates the member in every gated place of their platform
// when wallet, the one the bot minted to, is one of their verified wallets
// (an unverified one counts for no gate): in the background, from one
// fresh read of that address (the holdings cache may still keep it from
// before the mint), their other verified addresses from the cache where it
// keeps them. Nothing a moderator took away is given back (no /verify).
func (s *GateService) Minted(_ context.Context, user User, wallet string) {
	s.background(func(ctx context.Context) {
		addr, err := s.verifiedAddressOf(ctx, user.ID, wallet)
		switch {
		case err != nil:
			s.log.Warn("a member minted to was not re-evaluated: the next sweep does", "user", user.ID, "err", err)
			return
		case addr == "":
			return
		}
		fresh := func(a string) bool { return a == addr }
		s.memberChanged(ctx, user, "", trigger{reason: "mint"}, fresh)
	})
}

// verifiedAddressOf returns the lower-case address of the user's verified
// wallet that wallet names (its address or what the member typed, a name
// say), or "" when none does.
func (s *GateService) verifiedAddressOf(ctx context.Context, userID int64, wallet string) (string, error) {
	ws, err := s.members.Wallets(ctx, userID)
	if err != nil {
		return "", err
	}
	for _, w := range ws {
		if !w.Verified() || w.Address == "" {
			continue
		}
		if strings.EqualFold(w.Address, wallet) || strings.EqualFold(w.Value, wallet) {
			return strings.ToLower(w.Address), nil
		}
	}
	return "", nil
}
