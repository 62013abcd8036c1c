// Package core is the domain of the POAP bot: members, tenants, wallets and
// the POAPs those wallets hold. It speaks only in domain terms and defines the
// small interfaces it consumes (Store, WalletStore, Issuer, Clock, Events);
// storage, the issuing service client and the chat adapters satisfy or call
// them.
package core

import (
	"context"
	"time"
)

// Platform names the chat platform a member or tenant lives on.
type Platform string

// The platforms the bot speaks on.
const (
	Discord  Platform = "discord"
	Telegram Platform = "telegram"
	Console  Platform = "console"
)

// Valid reports whether p is one of the known platforms.
func (p Platform) Valid() bool {
	switch p {
	case Discord, Telegram, Console:
		return true
	}
	return false
}

// Tenant is the place the bot serves: a Discord server, a Telegram chat or
// the console. ExternalID is the platform's own id for it.
type Tenant struct {
	ID         int64
	Platform   Platform
	ExternalID string
	Name       string
	CreatedAt  time.Time
}

// User is a member of a platform, known by the platform's own user id.
type User struct {
	ID         int64
	Platform   Platform
	ExternalID string
	Name       string
	CreatedAt  time.Time
}

// WalletKind says what a linked wallet identifier is.
type WalletKind string

// The kinds of wallet identifier a member can link.
const (
	KindAddress WalletKind = "address"
	KindENS     WalletKind = "ens"
	KindEmail   WalletKind = "email"
)

// Wallet is a wallet identifier linked to a user. Value is canonical: a
// lower-case 0x address, a lower-case ENS name or a lower-case e-mail.
// Address is the 0x address proven by signature (for an ENS name, the
// recovered address); it is empty until verified, and for e-mails.
type Wallet struct {
	ID         int64
	UserID     int64
	Platform   Platform
	Kind       WalletKind
	Value      string
	Address    string
	VerifiedAt *time.Time
	Primary    bool
	CreatedAt  time.Time
}

// Verified reports whether ownership of the wallet was proven by signature.
func (w Wallet) Verified() bool { return w.VerifiedAt != nil }

// AuditEntry is one line of the audit log: who did what, where, and when.
type AuditEntry struct {
	ID        int64
	TenantID  *int64
	UserID    *int64
	Action    string
	Detail    string
	CreatedAt time.Time
}

// Clock tells the time; tests replace it.
type Clock interface {
	Now() time.Time
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns the current time in UTC.
func (SystemClock) Now() time.Time { return time.Now().UTC() }

// Store is what the core needs from stored state. Every method is one atomic
// step. Methods return ErrNotFound when a looked-up row does not exist and
// ErrConflict when a write would break a uniqueness rule.
type Store interface {
	// UpsertTenant creates the tenant or refreshes its name, and returns it.
	UpsertTenant(ctx context.Context, t Tenant) (Tenant, error)
	// UpsertUser creates the user or refreshes its name, and returns it.
	UpsertUser(ctx context.Context, u User) (User, error)
	// FindUser returns the user with that platform id, or ErrNotFound.
	FindUser(ctx context.Context, p Platform, externalID string) (User, error)
	// FindUserByName returns the user of the platform with that display
	// name, or ErrNotFound.
	FindUserByName(ctx context.Context, p Platform, name string) (User, error)
	// AddWallet links a wallet to a user; the first wallet becomes primary.
	// It returns ErrConflict when the user already linked that value.
	AddWallet(ctx context.Context, w Wallet) (Wallet, error)
	// Wallets lists the user's wallets, primary first.
	Wallets(ctx context.Context, userID int64) ([]Wallet, error)
	// Audit appends an entry to the audit log.
	Audit(ctx context.Context, e AuditEntry) error
}

// Issuer is what the core needs from the issuing service.
type Issuer interface {
	// Holdings lists the POAPs the wallet (address, ENS name or e-mail)
	// holds. It returns ErrInvalidWallet when the service rejects the
	// identifier and ErrIssuerUnavailable when the service cannot answer.
	Holdings(ctx context.Context, wallet string) ([]Holding, error)
}

// Holding is one POAP held by a wallet.
type Holding struct {
	TokenID  string
	DropID   int64
	DropName string
	FancyID  string
	Chain    string
	Owner    string
	MintedAt time.Time
	ImageURL string
}
