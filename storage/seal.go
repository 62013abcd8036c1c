package storage

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
)

// ErrDecrypt means a sealed value could not be opened: it was sealed with
// another key or for another context, or it was altered.
var ErrDecrypt = errors.New("cannot decrypt: wrong key, wrong context or altered data")

// Sealed values are: version byte, 12-byte random nonce, AES-256-GCM
// ciphertext with its 16-byte tag. The version byte leaves room for another
// algorithm or key later without guessing what old rows hold.
const (
	sealVersion = 1
	nonceSize   = 12
)

// Cipher encrypts and authenticates small secrets at rest (service tokens,
// drop edit codes) and computes keyed hashes. It is safe for concurrent use.
type Cipher struct {
	aead cipher.AEAD
	key  Key
}

// NewCipher returns a Cipher for k. The AES key and each Hash key are
// derived from k with HKDF-SHA256 under distinct labels, so no two uses
// share key material.
func NewCipher(k Key) *Cipher {
	block, err := aes.NewCipher(deriveKey(k, "poapbot seal v1"))
	if err != nil {
		panic("storage: " + err.Error()) // unreachable: the key is 32 bytes
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic("storage: " + err.Error()) // unreachable: AES has 16-byte blocks
	}
	return &Cipher{aead: aead, key: k}
}

// Seal encrypts plaintext for context, a string naming where the value
// belongs (such as "service_token:"+audience). Open succeeds only with the
// same context, so a sealed value cannot be moved to another row or
// purpose. Each call uses a fresh random nonce.
func (c *Cipher) Seal(plaintext []byte, context string) []byte {
	out := make([]byte, 1+nonceSize, 1+nonceSize+len(plaintext)+c.aead.Overhead())
	out[0] = sealVersion
	rand.Read(out[1:]) // never fails: it crashes the program instead
	nonce := out[1 : 1+nonceSize]
	return c.aead.Seal(out, nonce, plaintext, additionalData(context))
}

// Open decrypts what Seal returned for the same context. It returns
// ErrDecrypt when the value is malformed, was altered, or was sealed with
// another key or context.
func (c *Cipher) Open(sealed []byte, context string) ([]byte, error) {
	if len(sealed) < 1+nonceSize+c.aead.Overhead() || sealed[0] != sealVersion {
		return nil, ErrDecrypt
	}
	nonce, ciphertext := sealed[1:1+nonceSize], sealed[1+nonceSize:]
	plain, err := c.aead.Open(nil, nonce, ciphertext, additionalData(context))
	if err != nil {
		return nil, ErrDecrypt
	}
	return plain, nil
}

// Hash returns the hex HMAC-SHA256 of data under a key derived from the
// secret key and purpose: stable for one key and purpose, unlinkable across
// purposes, and useless without the key (pseudonymous member ids).
func (c *Cipher) Hash(purpose string, data []byte) string {
	mac := hmac.New(sha256.New, deriveKey(c.key, "poapbot hash:"+purpose))
	mac.Write(data)
	return hex.EncodeToString(mac.Sum(nil))
}

// additionalData binds the format version and the context to a sealed value.
func additionalData(context string) []byte {
	return append([]byte{sealVersion}, context...)
}

// deriveKey derives a 32-byte subkey of k for one use.
func deriveKey(k Key, label string) []byte {
	sub, err := hkdf.Key(sha256.New, k[:], nil, label, 32)
	if err != nil {
		panic("storage: " + err.Error()) // unreachable: 32 bytes is within HKDF's limit
	}
	return sub
}
