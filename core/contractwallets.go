package core

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MaxContractSignature is the largest signature, in bytes, a smart-contract
// wallet may send: a Safe's signatures of several owners, a passkey
// wallet's WebAuthn data and an ERC-6492 wrapper fit well within it.
const MaxContractSignature = 8 << 10

var (
	// ErrChainUnavailable means a chain's JSON-RPC endpoint did not answer
	// (in time, or as JSON-RPC) when asked about a smart-contract wallet's
	// signature: nothing is known of the signature. See ChainError.
	ErrChainUnavailable = errors.New("chain unavailable")
	// ErrChainMisconfigured means a chain's JSON-RPC endpoint serves
	// another chain than the one CHAIN_RPC_URLS names for it: the chain is
	// never asked about a signature. It comes with ErrChainUnavailable.
	ErrChainMisconfigured = errors.New("chain endpoint serves another chain")
	// ErrChainsNotConfigured means a signature did not recover to the
	// wallet and no chain is configured (CHAIN_RPC_URLS) to ask whether
	// the wallet is a smart contract that accepts it. It comes with the
	// *SignatureError.
	ErrChainsNotConfigured = errors.New("no chain configured for smart-contract wallets")
)

// ChainError says which chain could not be asked about a signature. It
// wraps the chain's error, which matches ErrChainUnavailable.
type ChainError struct {
	Chain int64
	Err   error
}

func (e *ChainError) Error() string {
	return "chain " + strconv.FormatInt(e.Chain, 10) + ": " + e.Err.Error()
}

// Unwrap returns the chain's error.
func (e *ChainError) Unwrap() error { return e.Err }

// ContractWallets asks one EVM chain about smart-contract wallets (a Safe,
// a Coinbase Smart Wallet, any ERC-4337 account), which sign through their
// contract rather than with a key. *chain.Client is one.
type ContractWallets interface {
	// Chain is the chain id the operator configured.
	Chain() int64
	// Endpoint names the JSON-RPC endpoint without any secret (its host).
	Endpoint() string
	// ChainID asks the endpoint which chain it serves. Errors wrap
	// ErrChainUnavailable.
	ChainID(ctx context.Context) (int64, error)
	// ValidSignature reports whether the wallet at address accepts
	// signature for the 32-byte hash: ERC-6492 when the signature carries
	// its wrapper, otherwise ERC-1271 when code is deployed at address;
	// and whether a contract was deployed at address before the check.
	// No code and a refusal are false without an error; errors wrap
	// ErrChainUnavailable.
	ValidSignature(ctx context.Context, address string, hash, signature []byte) (valid, deployed bool, err error)
}

// ChainTitle is how a member reads a chain: "Base (chain 8453)", or
// "chain 1337" for a chain without a known name.
func ChainTitle(chain int64) string {
	id := "chain " + strconv.FormatInt(chain, 10)
	if chain == 1 {
		return "Ethereum (" + id + ")"
	}
	if name, ok := ChainName(chain); ok {
		return name + " (" + id + ")"
	}
	return id
}

// contractSigner is the fallback of a signature that does not recover to
// c's address: every configured chain is asked at once whether a contract
// wallet at that address accepts it, and the first that says yes proves
// it. refusal is the error of the key's check (a *SignatureError, or
// ErrBadSignature for a signature that is not a key's), returned when
// every chain says no. Without chains, a signature of another key comes
// back with ErrChainsNotConfigured too, and a signature only a contract
// could make (contractShaped) with ErrChainsNotConfigured alone: nobody
// judged it. A chain that could not be asked,
// when none said yes, is a *ChainError: the signature was not judged. A
// member past their budget of checks (ChainChecksBurst) gets
// ErrTooManyChainChecks, with ErrChainUnavailable: no chain is asked.
func (s *WalletService) contractSigner(ctx context.Context, c Challenge, signature string, refusal error) (string, int64, error) {
	var mismatch *SignatureError
	isMismatch := errors.As(refusal, &mismatch)
	switch {
	case c.Address == "":
		return "", 0, refusal // an ENS name: no address to ask about
	case len(s.contracts) == 0 && isMismatch:
		return "", 0, fmt.Errorf("%w: %w", ErrChainsNotConfigured, refusal)
	}
	raw, ok := contractSignature(signature)
	switch {
	case len(s.contracts) == 0 && ok && contractShaped(raw):
		return "", 0, ErrChainsNotConfigured // not judged: no chain to ask
	case len(s.contracts) == 0 || !ok:
		return "", 0, refusal
	}
	if !s.budgets.take(c.UserID, s.clock.Now()) {
		s.log.WarnContext(ctx, "smart-contract wallet checks throttled", "user", c.UserID)
		return "", 0, fmt.Errorf("%w: %w", ErrTooManyChainChecks, ErrChainUnavailable)
	}
	chain, err := s.askChains(ctx, c.Address, personalHash(c.Message), raw)
	switch {
	case err != nil:
		return "", 0, err
	case chain == 0 && isMismatch:
		return "", 0, refusal
	case chain == 0:
		// Not a key's signature, and no contract took it.
		return "", 0, &SignatureError{Want: c.Address}
	}
	s.log.InfoContext(ctx, "contract wallet signature", "user", c.UserID, "wallet", c.WalletID, "chain", chain)
	return c.Address, chain, nil
}

// contractSignature decodes a signature a contract may accept: 0x hex of
// at most MaxContractSignature bytes.
func contractSignature(s string) ([]byte, bool) {
	s = strings.TrimSpace(s)
	digits := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if digits == "" || len(digits) > 2*MaxContractSignature {
		return nil, false
	}
	raw, err := hex.DecodeString(digits)
	return raw, err == nil
}

// contractShaped says whether a signature that is not a key's is shaped
// like a contract wallet's: longer than a key's 65 bytes (a Safe's owners,
// a passkey's WebAuthn data), or wrapped by ERC-6492 (its 32-byte suffix
// 0x6492...6492).
func contractShaped(raw []byte) bool {
	return len(raw) > 65 || bytes.HasSuffix(raw, bytes.Repeat([]byte{0x64, 0x92}, 16))
}

// answer is one chain's verdict on a signature.
type answer struct {
	chain    int64
	valid    bool
	deployed bool
	err      error
}

// askChains asks every chain at once and returns the id of one that says
// the signature is valid, unless a chain where a contract is deployed at
// the address refuses it: the same address on two chains may be two
// wallets of two owners (a contract deployed with CREATE, a counterfactual
// wallet deployed by someone else), and the member proves the address only
// when every deployed wallet there agrees. It returns 0 and nil when no
// chain says yes or one such wallet says no, and a *ChainError when none
// said yes and one could not be asked. A chain that could not be asked
// refuses nothing.
func (s *WalletService) askChains(ctx context.Context, address string, hash, sig []byte) (int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make(chan answer, len(s.contracts))
	for _, cw := range s.contracts {
		go func() {
			valid, deployed, err := cw.ValidSignature(ctx, address, hash, sig)
			answers <- answer{chain: cw.Chain(), valid: valid && err == nil, deployed: deployed && err == nil, err: err}
		}()
	}
	var yes int64
	var failed error
	for range s.contracts {
		a := <-answers
		switch {
		case a.deployed && !a.valid:
			s.log.InfoContext(ctx, "contract wallet refuses the signature", "chain", a.chain)
			return 0, nil
		case a.valid && yes == 0:
			yes = a.chain
		case a.err != nil && failed == nil:
			failed = &ChainError{Chain: a.chain, Err: chainUnavailable(a.err)}
		}
		s.logFailure(ctx, a)
	}
	if yes != 0 {
		return yes, nil
	}
	return 0, failed
}

// logFailure logs a chain that could not be asked.
func (s *WalletService) logFailure(ctx context.Context, a answer) {
	switch {
	case errors.Is(a.err, ErrChainMisconfigured):
		s.log.ErrorContext(ctx, "chain endpoint serves another chain: fix CHAIN_RPC_URLS", "chain", a.chain, "err", a.err)
	case a.err != nil:
		s.log.WarnContext(ctx, "chain not reached", "chain", a.chain, "err", a.err)
	}
}

// chainUnavailable makes sure err matches ErrChainUnavailable.
func chainUnavailable(err error) error {
	if errors.Is(err, ErrChainUnavailable) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrChainUnavailable, err)
}

// CheckChains is /setup check's part on smart-contract wallets: one line
// per configured chain, whether its endpoint answers, as the chain it was
// configured for, asked all at once. A line names the chain only: some
// providers put the API key in the endpoint's host name, which is logged
// for the operator instead. Without chains (CHAIN_RPC_URLS is optional)
// there is none.
func (s *WalletService) CheckChains(ctx context.Context) []SetupLine {
	lines := make([]SetupLine, len(s.contracts))
	done := make(chan struct{})
	for i, cw := range s.contracts {
		go func() {
			defer func() { done <- struct{}{} }()
			lines[i] = s.checkChain(ctx, cw)
		}()
	}
	for range s.contracts {
		<-done
	}
	return lines
}

// checkChain is the /setup check line of one chain; a failure is logged
// with the endpoint's host.
func (s *WalletService) checkChain(ctx context.Context, cw ContractWallets) SetupLine {
	name := ChainTitle(cw.Chain()) + " answers"
	got, err := cw.ChainID(ctx)
	switch {
	case err != nil:
		s.log.WarnContext(ctx, "setup check: chain not reached", "chain", cw.Chain(), "host", cw.Endpoint(), "err", err)
		return SetupLine{Check: name, Fix: "no answer just now: check the endpoint in CHAIN_RPC_URLS, or run /setup check again in a minute"}
	case got != cw.Chain():
		s.log.ErrorContext(ctx, "setup check: chain endpoint serves another chain", "chain", cw.Chain(), "host", cw.Endpoint(), "serves", got)
		return SetupLine{Check: name, Fix: "it serves chain " + strconv.FormatInt(got, 10) + ": fix this entry of CHAIN_RPC_URLS"}
	}
	return SetupLine{Check: name, OK: true}
}
