package core

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"
)

// WalletService links members to wallets and proves their ownership: /link
// issues an ownership challenge, /verify and the verification page complete
// it, /wallet lists, /unlink and /forget remove. It tells its WalletEvents
// of every verified and unlinked wallet.
type WalletService struct {
	base
	members MemberStore
	wallets WalletStore
	events  WalletEvents
	name    string
	limits  LinkLimits
	// contracts are the chains asked about smart-contract wallets.
	contracts []ContractWallets
	// site, when PUBLIC_URL is set, makes challenges of addresses
	// EIP-4361 messages for its verification pages.
	site *siweSite
	// budgets bound each member's checks of the chains.
	budgets chainBudgets
}

// WalletServiceDeps are the dependencies of a WalletService.
type WalletServiceDeps struct {
	// Members and Wallets are required; storage.DB is both.
	Members MemberStore
	Wallets WalletStore
	// Events is told of verified and unlinked wallets; nil tells nobody.
	Events WalletEvents
	// BotName is the bot's name in challenge messages; empty is
	// DefaultName.
	BotName string
	// PublicURL is PUBLIC_URL: when set, the challenge of a 0x address is
	// an EIP-4361 (Sign-In with Ethereum) message whose domain is its
	// authority and whose URI is the challenge's verification page.
	PublicURL string
	// ChainID is the EIP-155 chain id those messages name; zero is
	// DefaultChainID.
	ChainID int64
	// Limits are MAX_WALLETS and MAX_CHALLENGES; a zero field is its
	// default (DefaultMaxWallets, DefaultMaxChallenges).
	Limits LinkLimits
	// Clock defaults to the system clock, Logger to one that discards.
	Clock  Clock
	Logger *slog.Logger
	// Tally counts what the service does for the domain metrics; nil
	// counts nothing.
	Tally Tally
	// Contracts are the chains (CHAIN_RPC_URLS) asked whether a
	// smart-contract wallet accepts a signature; none checks keys only.
	Contracts []ContractWallets
}

// DefaultName is the bot name challenge messages carry unless
// WalletServiceDeps.BotName names another.
const DefaultName = "POAP bot"

// NewWalletService returns the wallet service. It returns an error wrapping
// ErrMissingDependency when Members or Wallets is nil, and an error when
// PublicURL is set but has no host or ChainID is negative.
func NewWalletService(d WalletServiceDeps) (*WalletService, error) {
	if err := missing("wallet service", "Members", d.Members, "Wallets", d.Wallets); err != nil {
		return nil, err
	}
	site, err := newSIWESite(d.PublicURL, d.ChainID)
	if err != nil {
		return nil, err
	}
	s := &WalletService{base: newBase(d.Clock, d.Logger, d.Tally), members: d.Members, wallets: d.Wallets,
		events: d.Events, name: d.BotName, limits: d.Limits.orDefaults(), contracts: d.Contracts, site: site}
	if isNil(s.events) {
		s.events = NopEvents{}
	}
	if s.name == "" {
		s.name = DefaultName
	}
	return s, nil
}

// WalletStore is what wallet linking needs from stored state, beside
// MemberStore. Every method is one atomic step (one transaction) that also
// writes its audit entries. storage.DB satisfies it.
type WalletStore interface {
	// LinkWallet upserts the user u and links the wallet w to them unless
	// they linked w.Value already (the existing wallet is returned, with
	// Existed set); a user's first wallet becomes primary. When c is not
	// nil and the wallet is not verified, c is stored as a new challenge
	// for it, with its UserID, Platform, WalletID and Wallet filled in.
	// The limits hold also when one member links from two places at once:
	// it returns a *WalletLimitError when w is new and the user holds
	// limits.Wallets wallets or more, and a *ChallengeLimitError when the
	// user holds limits.Challenges challenges unused and unexpired at
	// c.IssuedAt; nothing is stored then.
	LinkWallet(ctx context.Context, u User, w Wallet, c *Challenge, limits LinkLimits) (Linked, error)
	// ChallengeByNonce returns the challenge with that nonce, or
	// ErrNotFound.
	ChallengeByNonce(ctx context.Context, nonce string) (Challenge, error)
	// RecentChallenges returns up to limit of the user's challenges,
	// newest first.
	RecentChallenges(ctx context.Context, userID int64, limit int) ([]Challenge, error)
	// FailChallenge counts one more wrong signature against the unused
	// challenge with that nonce and returns how many it has taken, or
	// ErrNotFound when no unused challenge has that nonce.
	FailChallenge(ctx context.Context, nonce string) (int, error)
	// UseChallenge marks the challenge with that nonce used, if it is
	// unused, unexpired at at and not locked (fewer than
	// MaxWrongSignatures wrong signatures), and verifies its wallet as
	// address; chain, when not zero, is the chain on which a
	// smart-contract wallet accepted the signature, for the audit log. A
	// wallet of another member of the platform (or another wallet of the
	// same member) verified as that address loses it: it
	// stays linked, unverified, and the move is audited. It returns
	// ErrNoChallenge, ErrChallengeUsed, ErrChallengeLocked or
	// ErrChallengeExpired when the challenge cannot be used, and
	// ErrConflict when the wallet cannot take that address.
	UseChallenge(ctx context.Context, nonce, address string, chain int64, at time.Time) (Verification, error)
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
	// Grants are the gate grants the bot had made to the member: the
	// roles and groups gating takes back.
	Grants []Grant
}

// WalletEvents is told about changes to verified wallets, after they are
// stored. Role and group gating subscribes to re-evaluate the members
// concerned. Implementations must not block for long: they run inside the
// member's command.
type WalletEvents interface {
	// WalletVerified: w was proven by user; moved are the wallets of the
	// platform that held the same address before and lost it.
	WalletVerified(ctx context.Context, user User, w Wallet, moved []Wallet)
	// WalletUnlinked: the wallets are no longer linked to user (by
	// /unlink).
	WalletUnlinked(ctx context.Context, user User, wallets []Wallet)
	// MemberForgotten: everything stored about the member was deleted
	// (by /forget); f says what was, the gate grants among it.
	MemberForgotten(ctx context.Context, f Forgotten)
}

// NopEvents ignores every event.
type NopEvents struct{}

// WalletVerified does nothing.
func (NopEvents) WalletVerified(context.Context, User, Wallet, []Wallet) {}

// WalletUnlinked does nothing.
func (NopEvents) WalletUnlinked(context.Context, User, []Wallet) {}

// MemberForgotten does nothing.
func (NopEvents) MemberForgotten(context.Context, Forgotten) {}

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
// they get none. Relinking a wallet linked before is not a new wallet: only
// its challenge counts against the limits. Errors: *WalletError
// (ErrInvalidWallet) for bad input, *WalletLimitError (ErrTooManyWallets)
// and *ChallengeLimitError (ErrTooManyChallenges) past the member's
// limits, or the store's error.
func (s *WalletService) Link(ctx context.Context, m Member, input string) (LinkResult, error) {
	return s.LinkIn(ctx, m, "", input)
}

// LinkIn is Link run in a place, named by place (a server's or group's
// name; empty in a private chat): an EIP-4361 challenge names it, so that
// a member reading it in their wallet knows where it comes from.
func (s *WalletService) LinkIn(ctx context.Context, m Member, place, input string) (res LinkResult, err error) {
	defer func() { s.count(ActWalletLink, m.Platform, linkOutcome(res, err)) }()
	kind, value, err := ParseWallet(input)
	if err != nil {
		return LinkResult{}, err
	}
	var c *Challenge
	if kind != KindEmail {
		if c, err = s.newChallenge(m, place, kind, value); err != nil {
			return LinkResult{}, err
		}
	}
	linked, err := s.wallets.LinkWallet(ctx, m.user(), Wallet{Kind: kind, Value: value}, c, s.limits)
	if err != nil {
		return LinkResult{}, wrap("link", err)
	}
	return LinkResult{Wallet: linked.Wallet, AlreadyLinked: linked.Existed, Challenge: linked.Challenge}, nil
}

// Limits are the most wallets and open challenges a member holds.
func (s *WalletService) Limits() LinkLimits { return s.limits }

// Wallets lists the member's wallets, the primary first. A member who
// linked nothing has none, and no error. It returns the store's error.
func (s *WalletService) Wallets(ctx context.Context, m Member) ([]Wallet, error) {
	user, err := s.members.FindUser(ctx, m.Platform, m.ExternalID)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, wrap("wallets", err)
	}
	wallets, err := s.members.Wallets(ctx, user.ID)
	if err != nil {
		return nil, wrap("wallets", err)
	}
	return wallets, nil
}

// Unlink removes the member's wallet named by wallet (as /link took it),
// or all their wallets when wallet is empty or "all". When the primary
// goes, the oldest remaining wallet becomes primary. Events learn of the
// removal (gating re-evaluates the member there). Errors: *WalletError for
// a malformed wallet (unless it is one the member linked as typed, under
// earlier rules), ErrNotLinked when the member has no wallet,
// ErrWalletNotLinked when they did not link that one.
func (s *WalletService) Unlink(ctx context.Context, m Member, wallet string) (_ Unlinked, err error) {
	defer func() {
		if err == nil {
			s.count(ActWalletLink, m.Platform, OutcomeUnlinked)
		}
	}()
	value, typed := "", ""
	var parseErr error
	if w := strings.TrimSpace(wallet); w != "" && !strings.EqualFold(w, "all") {
		_, value, parseErr = ParseWallet(w)
		typed = w
	}
	user, err := s.members.FindUser(ctx, m.Platform, m.ExternalID)
	switch {
	case parseErr != nil && err == nil:
		// Names linked under earlier rules are stored as they were then:
		// one ENSIP-15 refuses is named as /wallet shows it.
		value = typed
	case parseErr != nil:
		return Unlinked{}, parseErr
	case errors.Is(err, ErrNotFound):
		return Unlinked{}, ErrNotLinked
	case err != nil:
		return Unlinked{}, wrap("unlink", err)
	}
	u, err := s.wallets.UnlinkWallets(ctx, user.ID, value)
	if errors.Is(err, ErrNotFound) && typed != "" && typed != value {
		// A name stored under earlier rules that ENSIP-15 now maps
		// elsewhere (a–b.eth, kept with its en dash) is named as stored.
		u, err = s.wallets.UnlinkWallets(ctx, user.ID, typed)
	}
	switch {
	case errors.Is(err, ErrNotFound) && parseErr != nil:
		return Unlinked{}, parseErr
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
func (s *WalletService) Forget(ctx context.Context, m Member) (Forgotten, error) {
	f, err := s.wallets.ForgetUser(ctx, m.Platform, m.ExternalID)
	if errors.Is(err, ErrNotFound) {
		return Forgotten{}, nil
	}
	if err != nil {
		return Forgotten{}, wrap("forget", err)
	}
	if len(f.Wallets) > 0 || len(f.Grants) > 0 {
		s.events.MemberForgotten(ctx, f)
	}
	return f, nil
}
