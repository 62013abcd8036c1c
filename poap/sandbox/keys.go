package sandbox

import (
	"encoding/hex"
	"strings"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/poapbot/poapbot/core"
)

// DemoKeys are the private keys of the demo wallets, in hex: the
// Keccak-256 of "poapbot sandbox demo wallet", "poapbot sandbox demo
// wallet 2" and "poapbot sandbox empty wallet". They are published test
// keys, for rehearsing /verify under -sandbox: anyone can sign with them,
// so their wallets must never hold anything on a real chain.
var DemoKeys = map[string]string{
	DemoWallet:  "fb0118cf46cf4f587ae77935714da78177bf20ba9f574e1a35ff1091bc0419ee",
	DemoWallet2: "088d3bbad31b52ad6d1c7ab244eb30dcd6556cb437bb335a320cdf5e89c4f9d2",
	EmptyWallet: "aa21a60973ada66e154afca3521cbc705f38a6fd01ba2b589ea74ee41d5e80be",
}

// Signer signs challenges with DemoKeys, for the console's /sign under
// -sandbox (it is a bot.DemoSigner).
type Signer struct {
	keys map[string]*secp256k1.PrivateKey // by lower-case address or name
}

// NewSigner returns the signer of the demo wallets; DemoENS signs as
// DemoWallet, the address it resolves to.
func NewSigner() *Signer {
	s := &Signer{keys: map[string]*secp256k1.PrivateKey{}}
	for addr, k := range DemoKeys {
		b, err := hex.DecodeString(k)
		if err != nil || len(b) != 32 {
			panic("sandbox: a demo key is 64 hex digits")
		}
		s.keys[strings.ToLower(addr)] = secp256k1.PrivKeyFromBytes(b)
	}
	s.keys[DemoENS] = s.keys[strings.ToLower(DemoWallet)]
	return s
}

// Wallets returns the wallets the signer signs for, as the README names
// them.
func (s *Signer) Wallets() []string {
	return []string{DemoWallet, DemoENS, DemoWallet2, EmptyWallet}
}

// Sign signs message (EIP-191 personal_sign) with the key of wallet, a
// demo wallet's address in any case or DemoENS. It reports false for any
// other wallet.
func (s *Signer) Sign(wallet, message string) (string, bool) {
	key, ok := s.keys[strings.ToLower(strings.TrimSpace(wallet))]
	if !ok {
		return "", false
	}
	return core.PersonalSign(key, message), true
}
