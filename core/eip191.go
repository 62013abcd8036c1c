package core

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"golang.org/x/crypto/sha3"
)

// signatureLen is the length of an Ethereum signature: r, s and v.
const signatureLen = 65

// RecoverAddress returns the lower-case 0x address whose key signed message
// with EIP-191 personal_sign (what wallet apps do for "sign message"). The
// signature is 65 bytes in hex, r | s | v, with or without 0x; v may be 27
// or 28, or 0 or 1. A signature of another message, or by another key,
// recovers another address without an error, so callers compare the result
// with the address they expect. It returns ErrBadSignature, wrapped with the
// reason, when the text is not a well-formed signature.
func RecoverAddress(message, signature string) (string, error) {
	sig, err := parseSignature(signature)
	if err != nil {
		return "", err
	}
	return recoverAddress(message, sig)
}

// PersonalSign signs message with EIP-191 personal_sign under key and
// returns the signature as a wallet app shows it: 0x, then r, s and v (27
// or 28) in 130 hex digits. The bot signs only with the sandbox's
// published demo keys (/sign); it returns no error.
func PersonalSign(key *secp256k1.PrivateKey, message string) string {
	compact := ecdsa.SignCompact(key, personalHash(message), false)
	// decred puts the recovery byte (27 + id) first; Ethereum puts it last.
	sig := append(append([]byte{}, compact[1:]...), compact[0])
	return "0x" + hex.EncodeToString(sig)
}

// parseSignature decodes a hex signature into decred's compact form:
// [27 + recovery id | r | s].
func parseSignature(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	digits := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(digits) != 2*signatureLen {
		return nil, fmt.Errorf("%w: want %d hex digits after 0x, got %d", ErrBadSignature, 2*signatureLen, len(digits))
	}
	raw, err := hex.DecodeString(digits)
	if err != nil {
		return nil, fmt.Errorf("%w: not hex", ErrBadSignature)
	}
	v := raw[64]
	if v >= 27 {
		v -= 27
	}
	if v > 1 {
		return nil, fmt.Errorf("%w: v is %d, want 27 or 28 (or 0 or 1)", ErrBadSignature, raw[64])
	}
	compact := make([]byte, signatureLen)
	compact[0] = 27 + v
	copy(compact[1:], raw[:64])
	return compact, nil
}

// recoverAddress recovers the signer of message from a compact signature.
func recoverAddress(message string, compact []byte) (string, error) {
	pub, _, err := ecdsa.RecoverCompact(compact, personalHash(message))
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	// The address is the last 20 bytes of the Keccak-256 of the
	// uncompressed public key without its 0x04 prefix.
	sum := keccak256(pub.SerializeUncompressed()[1:])
	return "0x" + hex.EncodeToString(sum[12:]), nil
}

// personalHash is the EIP-191 version 0x45 hash that personal_sign signs:
// keccak256("\x19Ethereum Signed Message:\n" + len(message) + message),
// the length in decimal bytes.
func personalHash(message string) []byte {
	prefix := "\x19Ethereum Signed Message:\n" + strconv.Itoa(len(message))
	return keccak256([]byte(prefix), []byte(message))
}

// keccak256 is Ethereum's Keccak-256 (the pre-standard SHA-3 padding).
func keccak256(parts ...[]byte) []byte {
	h := sha3.NewLegacyKeccak256()
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}
