package core

import (
	"context"
	"errors"
	"time"
)

// Member is the person behind a command: the platform, the platform's own
// id for them, and the display name the platform gave.
type Member struct {
	Platform   Platform
	ExternalID string
	Name       string
}

// user is the member as a User to upsert.
func (m Member) user() User {
	return User{Platform: m.Platform, ExternalID: m.ExternalID, Name: m.Name}
}

// Errors of linking and unlinking, beside the challenge errors.
var (
	// ErrWalletNotLinked means the member has not linked the wallet they
	// named.
	ErrWalletNotLinked = errors.New("wallet not linked by the member")
	// ErrSignatureAltered means the linked wallet signed an altered copy
	// of the challenge message (other line endings, added or trimmed
	// spaces), not the exact text.
	ErrSignatureAltered = errors.New("signature of an altered copy of the message")
)

// SignatureError says which address a signature recovered to, and which
// address the challenge wanted. It matches ErrSignatureMismatch with
// errors.Is.
type SignatureError struct {
	Recovered string
	Want      string
}

func (e *SignatureError) Error() string {
	return "signature recovers to " + e.Recovered + ", want " + e.Want
}

// Is makes errors.Is(err, ErrSignatureMismatch) true.
func (e *SignatureError) Is(target error) bool { return target == ErrSignatureMismatch }

// The actions of the audit log written by linking. Details never hold a
// signature, a nonce or a member's name.
const (
	AuditWalletLinked    = "wallet linked"
	AuditWalletVerified  = "wallet verified"
	AuditWalletMoved     = "wallet moved"
	AuditWalletUnlinked  = "wallet unlinked"
	AuditMemberForgotten = "member forgotten"
)

// WalletStore is what wallet linking needs from stored state, beside Store.
// Every method is one atomic step (one transaction) that also writes its
// audit entries. storage.DB satisfies it.
type WalletStore interface {
	// LinkWallet upserts the user u and links the wallet w to them unless
	// they linked w.Value already (the existing wallet is returned, with
	// Existed set); a user's first wallet becomes primary. When c is not
	// nil and the wallet is not verified, c is stored as a new challenge
	// for it, with its UserID, Platform, WalletID and Wallet filled in.
	LinkWallet(ctx context.Context, u User, w Wallet, c *Challenge) (Linked, error)
	// ChallengeByNonce returns the challenge with that nonce, or
	// ErrNotFound.
	ChallengeByNonce(ctx context.Context, nonce string) (Challenge, error)
	// RecentChallenges returns up to limit of the user's challenges,
	// newest first.
	RecentChallenges(ctx context.Context, userID int64, limit int) ([]Challenge, error)
	// UseChallenge marks the challenge with that nonce used, if it is
	// unused and unexpired at at, and verifies its wallet as address. A
	// wallet of another member of the platform (or another wallet of the
	// same member) verified as that address loses it: it stays linked,
	// unverified, and the move is audited. It returns ErrNoChallenge,
	// ErrChallengeUsed or ErrChallengeExpired when the challenge cannot be
	// used, and ErrConflict when the wallet cannot take that address.
	UseChallenge(ctx context.Context, nonce, address string, at time.Time) (Verification, error)
	// UnlinkWallets removes the user's wallet with that value, or all
	// their wallets when value is empty. When the primary goes, the
	// oldest remaining wallet becomes primary. It returns ErrNotFound when
	// nothing matched.
	UnlinkWallets(ctx context.Context, userID int64, value string) (Unlinked, error)
	// ForgetUser deletes the user with that platform id and, with it, their
	// wallets and challenges; audit entries stay without naming them. It
	// returns ErrNotFound when no such user is stored.
	ForgetUser(ctx context.Context, p Platform, externalID string) (Forgotten, error)
}

// Linked is what LinkWallet did.
type Linked struct {
	User   User
	Wallet Wallet
	// Existed is true when the user had linked the value already.
	Existed bool
	// Challenge is the new challenge, or nil when none was stored.
	Challenge *Challenge
}

// Verification is what UseChallenge did: the wallet now verified, and the
// wallets that held its address before and lost it.
type Verification struct {
	User   User
	Wallet Wallet
	Moved  []Wallet
}

// Unlinked is what UnlinkWallets did.
type Unlinked struct {
	User    User
	Removed []Wallet
	// NewPrimary is the wallet promoted to primary, or nil.
	NewPrimary *Wallet
}

// Forgotten is what ForgetUser deleted. A zero User means nothing was
// stored about the member.
type Forgotten struct {
	User       User
	Wallets    []Wallet
	Challenges int
}

// Events is told about changes to verified wallets, after they are stored.
// Role and group gating subscribes to re-evaluate the members concerned;
// until then, NopEvents ignores them. Implementations must not block for
// long: they run inside the member's command.
type Events interface {
	// WalletVerified: w was proven by user; moved are the wallets of the
	// platform that held the same address before and lost it.
	WalletVerified(ctx context.Context, user User, w Wallet, moved []Wallet)
	// WalletUnlinked: the wallets are no longer linked to user (by /unlink
	// or /forget).
	WalletUnlinked(ctx context.Context, user User, wallets []Wallet)
}

// NopEvents ignores every event.
type NopEvents struct{}

// WalletVerified does nothing.
func (NopEvents) WalletVerified(context.Context, User, Wallet, []Wallet) {}

// WalletUnlinked does nothing.
func (NopEvents) WalletUnlinked(context.Context, User, []Wallet) {}

// LinkResult is the answer to Link.
type LinkResult struct {
	Wallet Wallet
	// AlreadyLinked is true when the member had linked the wallet before;
	// nothing was replaced.
	AlreadyLinked bool
	// Challenge is the ownership challenge to sign, or nil for an e-mail
	// or a wallet verified already.
	Challenge *Challenge
}

// Link links the wallet the member typed: a 0x address (mixed case must
// pass the EIP-55 checksum), an ENS name or an e-mail. The member's first
// wallet becomes primary. A wallet linked before is returned as it is, with
// AlreadyLinked set. Unverified addresses and ENS names come with a fresh
// challenge to sign; e-mails can receive mints but cannot be verified, so
// they get none. Errors: *WalletError (ErrInvalidWallet) for bad input, or
// the store's error.
func (s *Service) Link(ctx context.Context, m Member, input string) (LinkResult, error) {
	kind, value, err := ParseWallet(input)
	if err != nil {
		return LinkResult{}, err
	}
	ls, err := s.linkStore()
	if err != nil {
		return LinkResult{}, err
	}
	var c *Challenge
	if kind != KindEmail {
		if c, err = s.newChallenge(m, kind, value); err != nil {
			return LinkResult{}, err
		}
	}
	linked, err := ls.LinkWallet(ctx, m.user(), Wallet{Kind: kind, Value: value}, c)
	if err != nil {
		return LinkResult{}, wrap("link", err)
	}
	return LinkResult{Wallet: linked.Wallet, AlreadyLinked: linked.Existed, Challenge: linked.Challenge}, nil
}

// errNoLinkStore is returned by the linking methods of a Service whose
// store does not implement WalletStore.
var errNoLinkStore = errors.New("the store cannot link wallets")

// linkStore returns the store as a WalletStore.
func (s *Service) linkStore() (WalletStore, error) {
	if s.links == nil {
		return nil, errNoLinkStore
	}
	return s.links, nil
}
