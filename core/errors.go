package core

import "errors"

// Sentinel errors of the domain. Callers test for them with errors.Is; the
// bot package turns each into the words a member reads.
var (
	// ErrNotFound means a looked-up record does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict means a write would break a uniqueness rule.
	ErrConflict = errors.New("conflict")
	// ErrInvalidWallet means the text is not a 0x address, an ENS name or
	// an e-mail address (see WalletError for the reason).
	ErrInvalidWallet = errors.New("invalid wallet")
	// ErrNotLinked means the member has no wallet linked yet.
	ErrNotLinked = errors.New("no wallet linked")
	// ErrUnknownMember means a member named in a command is not known.
	ErrUnknownMember = errors.New("unknown member")
	// ErrIssuerUnavailable means the issuing service could not be reached,
	// timed out or failed.
	ErrIssuerUnavailable = errors.New("issuing service unavailable")
	// ErrIssuerRejected means the issuing service refused our credentials.
	ErrIssuerRejected = errors.New("issuing service refused the credentials")
	// ErrForbidden means the member may not run the command here.
	ErrForbidden = errors.New("forbidden")
)

// WalletError says why a wallet identifier was refused. It matches
// ErrInvalidWallet with errors.Is.
type WalletError struct {
	Input  string
	Reason string
}

func (e *WalletError) Error() string {
	return "invalid wallet " + quote(e.Input) + ": " + e.Reason
}

// Is makes errors.Is(err, ErrInvalidWallet) true.
func (e *WalletError) Is(target error) bool { return target == ErrInvalidWallet }

func quote(s string) string {
	const max = 64
	if len(s) > max {
		s = s[:max] + "…"
	}
	return "\"" + s + "\""
}
