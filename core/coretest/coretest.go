// Package coretest helps tests act as a member's wallet app: it signs
// ownership challenges with EIP-191 personal_sign, as MetaMask does, with
// fixed test keys, and finds the challenge message in a reply. MemStore is
// an in-memory store for tests of drops, claims and gating.
//
// The keys are the published test keys of MetaMask's eth-sig-util
// (src/personal-sign.test.ts); never use them for anything of value.
package coretest

import (
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"golang.org/x/crypto/sha3"

	"github.com/poapbot/poapbot/core"
)

// Test keys and their addresses (lower case, as core stores them).
var (
	// TestKey is eth-sig-util's personal_sign test key.
	TestKey = MustKey("4af1bceebf7f3634ec3cff8a2c38e51178d5d4ce585c52d6043e5e2cc3418bb0")
	// OtherKey is eth-sig-util's "kumavis" test key 0x69...69.
	OtherKey = MustKey("6969696969696969696969696969696969696969696969696969696969696969")
)

// The addresses of TestKey and OtherKey.
const (
	TestAddress  = "0x29c76e6ad8f28bb1004902578fb108c507be341b"
	OtherAddress = "0xbe93f9bacbcffc8ee6663f2647917ed7a20a57bb"
)

// MustKey parses a private key of 64 hex digits; it panics on anything
// else, being for tests.
func MustKey(hexKey string) *secp256k1.PrivateKey {
	b, err := hex.DecodeString(strings.TrimPrefix(hexKey, "0x"))
	if err != nil || len(b) != 32 {
		panic("coretest: a private key is 64 hex digits")
	}
	return secp256k1.PrivKeyFromBytes(b)
}

// Address returns the key's Ethereum address in lower case.
func Address(key *secp256k1.PrivateKey) string {
	sum := keccak(key.PubKey().SerializeUncompressed()[1:])
	return "0x" + hex.EncodeToString(sum[12:])
}

// Sign signs message with EIP-191 personal_sign and returns the signature
// as a wallet app shows it: 0x, then r, s and v (27 or 28) in 130 hex
// digits. It hashes independently of core, so tests cross-check core.
func Sign(key *secp256k1.PrivateKey, message string) string {
	prefix := "\x19Ethereum Signed Message:\n" + strconv.Itoa(len(message))
	compact := ecdsa.SignCompact(key, keccak([]byte(prefix+message)), false)
	// decred puts the recovery byte (27 + id) first; Ethereum puts it last.
	sig := append(append([]byte{}, compact[1:]...), compact[0])
	return "0x" + hex.EncodeToString(sig)
}

// FindMessage returns the challenge message inside a reply's text, from
// the bot's name to the last line (for an EIP-4361 message, from its first
// line to its Expiration Time), whatever the rendering around it. It
// reports false when the text holds none.
func FindMessage(text, botName string) (string, bool) {
	start := strings.Index(text, botName+core.MessageIntro)
	if start < 0 {
		return findSIWE(text)
	}
	n := strings.Index(text[start:], core.MessageFooter)
	if n < 0 {
		return "", false
	}
	return text[start : start+n+len(core.MessageFooter)], true
}

// findSIWE finds an EIP-4361 challenge in text: from the start of its
// first line to the end of its Expiration Time line.
func findSIWE(text string) (string, bool) {
	end := strings.Index(text, " wants you to sign in with your Ethereum account:\n")
	if end < 0 {
		return "", false
	}
	start := strings.LastIndexAny(text[:end], "\n") + 1
	n := strings.Index(text[start:], "\nExpiration Time: ")
	if n < 0 {
		return "", false
	}
	stop := start + n + 1
	if nl := strings.IndexByte(text[stop:], '\n'); nl >= 0 {
		stop += nl
	} else {
		stop = len(text)
	}
	return text[start:stop], true
}

func keccak(b []byte) []byte {
	h := sha3.NewLegacyKeccak256()
	h.Write(b)
	return h.Sum(nil)
}
