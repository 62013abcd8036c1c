package core

import (
	"errors"
	"time"
)

// ChallengeTTL is how long an ownership challenge can be signed.
const ChallengeTTL = 10 * time.Minute

// Challenge is a pending proof of wallet ownership: the member signs Message
// with the wallet (EIP-191 personal_sign) and sends the signature back with
// /verify or through the verification page. Nonce is random (at least 128
// bits), single-use and bound to the member, the platform and the wallet.
type Challenge struct {
	ID       int64
	UserID   int64
	Platform Platform
	// WalletID is the linked wallet the challenge proves.
	WalletID int64
	// Wallet is the wallet's canonical value (a 0x address or an ENS name).
	Wallet string
	// Address is the 0x address the signature must recover to; empty for
	// an ENS name, whose recovered address is stored beside it.
	Address   string
	Nonce     string
	Message   string
	IssuedAt  time.Time
	ExpiresAt time.Time
	UsedAt    *time.Time
}

// Errors of the ownership challenge.
var (
	// ErrNoChallenge means the member has no pending challenge to verify.
	ErrNoChallenge = errors.New("no pending challenge")
	// ErrChallengeExpired means the challenge's 10 minutes are over.
	ErrChallengeExpired = errors.New("challenge expired")
	// ErrChallengeUsed means the challenge was verified already (a replay).
	ErrChallengeUsed = errors.New("challenge already used")
	// ErrBadSignature means the text is not a 65-byte hex signature.
	ErrBadSignature = errors.New("malformed signature")
	// ErrSignatureOldMessage means the signature is of an earlier
	// challenge's message, not the current one.
	ErrSignatureOldMessage = errors.New("signature of another challenge message")
	// ErrSignatureMismatch means the signature recovers to an address other
	// than the linked one: another wallet signed, or another message was
	// signed.
	ErrSignatureMismatch = errors.New("signature does not match the wallet")
	// ErrEmailNotVerifiable means an e-mail cannot sign a challenge.
	ErrEmailNotVerifiable = errors.New("an e-mail cannot be verified by signature")
)
