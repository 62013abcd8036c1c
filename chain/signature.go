package chain

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

var (
	// validatorHex is the creation code of ValidateSigOffchain (see
	// contracts/README.md), the deployless ERC-6492 check.
	//go:embed contracts/ValidateSigOffchain_sol_ValidateSigOffchain.bin
	validatorHex string
	validator    = mustHex(validatorHex)

	// suffix6492 ends a signature wrapped by ERC-6492.
	suffix6492 = bytes.Repeat([]byte{0x64, 0x92}, 16)
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil {
		panic("chain: embedded contract is not hex: " + err.Error())
	}
	return b
}

// Wrapped6492 reports whether sig carries ERC-6492's wrapper: it ends with
// the 32-byte magic suffix 0x6492...6492.
func Wrapped6492(sig []byte) bool {
	return len(sig) >= len(suffix6492) && bytes.Equal(sig[len(sig)-len(suffix6492):], suffix6492)
}

// ValidSignature reports whether the smart-contract wallet at address (0x,
// 40 hex digits) accepts signature for the 32-byte hash on this chain. The
// deployless validator checks it in one eth_call: with ERC-6492 when the
// signature carries its wrapper, deploying the wallet first when it is not
// deployed yet, otherwise with ERC-1271's isValidSignature. No code, a
// malformed wrapper, a wallet that reverts or fails in any way, and an
// answer other than the magic value are false without an error: the
// validator catches them all, so an eth_call that fails is the endpoint's
// failure. The endpoint is asked which chain it serves the first time
// (eth_chainId). deployed says whether a contract was at address before
// the check: its refusal is then that of a wallet that exists (a signature
// longer than MaxSignatureBytes is not sent, and is false, false). Errors
// wrap core.ErrChainUnavailable: the chain did not answer in time, or not
// as JSON-RPC, or (core.ErrChainMisconfigured too) it serves another chain
// than the one configured.
func (c *Client) ValidSignature(ctx context.Context, address string, hash, signature []byte) (valid, deployed bool, err error) {
	owner, err := word(address)
	if err != nil || len(hash) != 32 {
		return false, false, fmt.Errorf("chain %d: want an address and a 32-byte hash", c.id)
	}
	if len(signature) > MaxSignatureBytes {
		return false, false, nil
	}
	if err := c.serves(ctx); err != nil {
		return false, false, err
	}
	out, err := c.Call(ctx, "", append(append([]byte{}, validator...), validatorArgs(owner, hash, signature)...))
	if err != nil {
		return false, false, err
	}
	if len(out) != 1 || out[0]&^(answerValid|answerDeployed) != 0 {
		return false, false, c.unavailable("eth_call", errors.New("not the validator's answer"))
	}
	return out[0]&answerValid != 0, out[0]&answerDeployed != 0, nil
}

// The bits of the validator's one-byte answer.
const (
	// answerValid: the wallet accepts the signature.
	answerValid = 1
	// answerDeployed: code was at the wallet's address before the check.
	answerDeployed = 2
)

// validatorArgs are the abi-encoded constructor arguments of the
// validator: (address signer, bytes32 hash, bytes signature).
func validatorArgs(signer, hash, sig []byte) []byte {
	out := append([]byte{}, signer...)
	out = append(out, hash...)
	out = append(out, uint256(96)...)
	return append(out, dynamicBytes(sig)...)
}

// dynamicBytes is the tail of an abi-encoded bytes value: its length,
// then its content padded to whole 32-byte words.
func dynamicBytes(b []byte) []byte {
	out := uint256(uint64(len(b)))
	out = append(out, b...)
	if pad := len(b) % 32; pad != 0 {
		out = append(out, make([]byte, 32-pad)...)
	}
	return out
}

// uint256 is n as a 32-byte big-endian word.
func uint256(n uint64) []byte {
	w := make([]byte, 32)
	for i := 31; n > 0; i-- {
		w[i] = byte(n)
		n >>= 8
	}
	return w
}

// word is an address as a 32-byte word, left-padded.
func word(address string) ([]byte, error) {
	a := strings.TrimPrefix(strings.TrimPrefix(address, "0x"), "0X")
	b, err := hex.DecodeString(a)
	if err != nil || len(b) != 20 {
		return nil, errors.New("not an address")
	}
	return append(make([]byte, 12), b...), nil
}
