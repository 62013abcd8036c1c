package storage

import (
	"bytes"
	"errors"
	"testing"
)

func TestCipher(t *testing.T) {
	t.Parallel()
	c := NewCipher(testKey)
	plain := []byte("123456")
	sealed := c.Seal(plain, "edit_code:42")
	t.Run("RoundTrip", func(t *testing.T) {
		got, err := c.Open(sealed, "edit_code:42")
		if err != nil || !bytes.Equal(got, plain) {
			t.Errorf("Open(Seal(%q)) = %q, %v, want %q", plain, got, err, plain)
		}
		if bytes.Contains(sealed, plain) {
			t.Errorf("Seal(%q) = %x, which contains the plaintext", plain, sealed)
		}
	})
	t.Run("FreshNonce", func(t *testing.T) {
		if again := c.Seal(plain, "edit_code:42"); bytes.Equal(again, sealed) {
			t.Errorf("Seal() twice = %x both times, want different ciphertexts", sealed)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		got, err := c.Open(c.Seal(nil, "x"), "x")
		if err != nil || len(got) != 0 {
			t.Errorf("Open(Seal(nil)) = %q, %v, want empty", got, err)
		}
	})
	t.Run("ErrDecrypt", func(t *testing.T) {
		if _, err := c.Open(sealed, "edit_code:43"); !errors.Is(err, ErrDecrypt) {
			t.Errorf("Open(wrong context) = %v, want %v", err, ErrDecrypt)
		}
		if _, err := NewCipher(Key{1}).Open(sealed, "edit_code:42"); !errors.Is(err, ErrDecrypt) {
			t.Errorf("Open(wrong key) = %v, want %v", err, ErrDecrypt)
		}
		for i := range sealed {
			tampered := bytes.Clone(sealed)
			tampered[i] ^= 0x01
			if _, err := c.Open(tampered, "edit_code:42"); !errors.Is(err, ErrDecrypt) {
				t.Errorf("Open(byte %d flipped) = %v, want %v", i, err, ErrDecrypt)
			}
		}
		for _, n := range []int{0, 1, 13, len(sealed) - 1} {
			if _, err := c.Open(sealed[:n], "edit_code:42"); !errors.Is(err, ErrDecrypt) {
				t.Errorf("Open(first %d bytes) = %v, want %v", n, err, ErrDecrypt)
			}
		}
	})
}

func TestCipher_Hash(t *testing.T) {
	t.Parallel()
	c := NewCipher(testKey)
	member := []byte("discord:1234")
	h := c.Hash("member", member)
	if len(h) != 64 {
		t.Errorf("Hash() = %q, want 64 hex characters", h)
	}
	if again := NewCipher(testKey).Hash("member", member); again != h {
		t.Errorf("Hash() = %q then %q, want stable", h, again)
	}
	others := map[string]string{
		"other purpose": c.Hash("export", member),
		"other data":    c.Hash("member", []byte("discord:1235")),
		"other key":     NewCipher(Key{7}).Hash("member", member),
	}
	for name, got := range others {
		if got == h {
			t.Errorf("Hash(%s) = %q, the same as Hash(member), want different", name, got)
		}
	}
}
