package core

import (
	"context"
	"time"
)

// What a wallet holds and who holds a drop, as the issuing service reads
// them for /poaps, /why and gating (through the HoldingsCache).

// Scanner reads the POAPs wallets hold from the issuing service.
type Scanner interface {
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

// HolderPage is one page of a drop's holders, as read for a sweep.
type HolderPage struct {
	// Addresses are the holders' addresses, lower case, one per POAP.
	Addresses []string
	// Total is the number of POAPs of the drop.
	Total int
}

// HoldersPageSize is the number of holders a page of the issuing
// service's holder list carries.
const HoldersPageSize = 300

// GateIssuer is what gating reads from the issuing service.
type GateIssuer interface {
	Scanner
	// DropHolders reads the page of the drop's holders that starts at
	// offset (HoldersPageSize a page). ErrUnknownEvent for an unknown
	// drop, ErrIssuerUnavailable when the service cannot answer.
	DropHolders(ctx context.Context, dropID int64, offset int) (HolderPage, error)
	// DropDetails reads a drop's name; ErrUnknownEvent when it does not
	// exist.
	DropDetails(ctx context.Context, eventID int64) (DropDetails, error)
}
