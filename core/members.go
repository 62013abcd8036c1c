package core

import "context"

// Members and their verified wallets, as every concern reads them: who has
// a role or is in a group among the members with a verified wallet (the
// Roster, answered by the GateService; ErrCannotListMembers and
// ErrRosterIncomplete), and the wallet a member's POAP is minted to.

// VerifiedMember is a user of a platform with the addresses of their
// verified wallets (lower-case 0x addresses).
type VerifiedMember struct {
	User      User
	Addresses []string
}

// Roster reads who has a role in a place, or belongs to a group, among the
// members with a verified wallet (core.GateService, through the platform's
// GateActions).
type Roster interface {
	// VerifiedMembersOf returns the users with a verified wallet who have
	// the role target in p (Discord, console) or, target empty, are in
	// the group p (Telegram), by user id. ErrRosterIncomplete when some
	// member's standing could not be read.
	VerifiedMembersOf(ctx context.Context, p Place, target string) ([]VerifiedMember, error)
}

// primaryWallet returns the value of the user's primary wallet, or
// ErrNotLinked, or the store's error.
func primaryWallet(ctx context.Context, members MemberStore, userID int64) (string, error) {
	w, err := primaryOf(ctx, members, userID)
	return w.Value, err
}

// primaryOf returns the user's primary wallet (the one a claim mints to:
// the one marked primary, else the first), or ErrNotLinked, or the
// store's error.
func primaryOf(ctx context.Context, members MemberStore, userID int64) (Wallet, error) {
	wallets, err := members.Wallets(ctx, userID)
	if err != nil {
		return Wallet{}, err
	}
	for _, w := range wallets {
		if w.Primary {
			return w, nil
		}
	}
	if len(wallets) > 0 {
		return wallets[0], nil
	}
	return Wallet{}, ErrNotLinked
}
