package core_test

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

// personalSignVectors are the published personal_sign test vectors of
// MetaMask's eth-sig-util, src/personal-sign.test.ts
// (https://github.com/MetaMask/eth-sig-util/blob/main/src/personal-sign.test.ts,
// read at commit 9a56f57b60ceb50e6994775cfdd5cb7425dedf76): "Hello, world!"
// signed with the file's privateKey, and the three "kumavis" cases made
// with geth's internals. The kumavis messages are given there as hex, which
// eth-sig-util signs as raw bytes; so are they here.
var personalSignVectors = []struct {
	name      string
	key       string
	message   string // hex of the bytes signed
	signature string
	address   string
}{
	{
		"HelloWorld", "4af1bceebf7f3634ec3cff8a2c38e51178d5d4ce585c52d6043e5e2cc3418bb0",
		hex.EncodeToString([]byte("Hello, world!")),
		"0x90a938f7457df6e8f741264c32697fc52f9a8f867c52dd70713d9d2d472f2e415d9c94148991bbe1f4a1818d1dff09165782749c877f5cf1eff4ef126e55714d1c",
		"0x29c76e6ad8f28bb1004902578fb108c507be341b",
	},
	{
		"KumavisI", "6969696969696969696969696969696969696969696969696969696969696969",
		"68656c6c6f20776f726c64", // "hello world"
		"0xce909e8ea6851bc36c007a0072d0524b07a3ff8d4e623aca4c71ca8e57250c4d0a3fc38fa8fbaaa81ead4b9f6bd03356b6f8bf18bccad167d78891636e1d69561b",
		"0xbe93f9bacbcffc8ee6663f2647917ed7a20a57bb",
	},
	{
		"KumavisII", "6969696969696969696969696969696969696969696969696969696969696969",
		"0cc175b9c0f1b6a831c399e26977266192eb5ffee6ae2fec3ad71c777531578f",
		"0x9ff8350cc7354b80740a3580d0e0fd4f1f02062040bc06b893d70906f8728bb5163837fd376bf77ce03b55e9bd092b32af60e86abce48f7b8d3539988ee5a9be1c",
		"0xbe93f9bacbcffc8ee6663f2647917ed7a20a57bb",
	},
	{
		"KumavisIII", "4545454545454545454545454545454545454545454545454545454545454545",
		"0cc175b9c0f1b6a831c399e26977266192eb5ffee6ae2fec3ad71c777531578f",
		"0xa2870db1d0c26ef93c7b72d2a0830fa6b841e0593f7186bc6c7cc317af8cf3a42fda03bd589a49949aa05db83300cdb553116274518dbe9d90c65d0213f4af491b",
		"0xe0da1edcea030875cd0f199d96eb70f6ab78faf2",
	},
}

func mustHex(t *testing.T, s string) string {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRecoverAddress(t *testing.T) {
	for _, v := range personalSignVectors {
		t.Run(v.name, func(t *testing.T) {
			message := mustHex(t, v.message)
			// v as published (27/28), as 0/1, without 0x, in upper case.
			v01 := v.signature[:130] + fmt.Sprintf("%02x", mustHex(t, v.signature[130:])[0]-27)
			for _, sig := range []string{v.signature, v01, strings.TrimPrefix(v.signature, "0x"), "0X" + strings.ToUpper(v.signature[2:])} {
				if got, err := core.RecoverAddress(message, sig); err != nil || got != v.address {
					t.Errorf("RecoverAddress(%q, %s) = %s, %v, want %s", message, sig, got, err, v.address)
				}
			}
			// The test key signs like eth-sig-util, byte for byte (RFC 6979).
			if got := coretest.Sign(coretest.MustKey(v.key), message); got != v.signature {
				t.Errorf("coretest.Sign(%s) = %s, want %s", v.name, got, v.signature)
			}
			if got := coretest.Address(coretest.MustKey(v.key)); got != v.address {
				t.Errorf("coretest.Address(%s) = %s, want %s", v.name, got, v.address)
			}
		})
	}
}

func TestRecoverAddress_OtherMessage(t *testing.T) {
	v := personalSignVectors[0]
	got, err := core.RecoverAddress("Hello, world?", v.signature)
	if err != nil || got == v.address {
		t.Errorf("RecoverAddress(other message) = %s, %v, want another address and no error", got, err)
	}
}

func TestRecoverAddress_ErrBadSignature(t *testing.T) {
	good := personalSignVectors[0].signature
	tests := []struct{ name, sig string }{
		{"Empty", ""},
		{"Short", "0x1234"},
		{"OneDigitMore", good + "0"},
		{"NotHex", good[:10] + "zz" + good[12:]},
		{"V29", good[:130] + "1d"},
		{"V2", good[:130] + "02"},
		{"ZeroR", "0x" + strings.Repeat("0", 64) + good[66:]},
		{"ZeroS", good[:66] + strings.Repeat("0", 64) + good[130:]},
	}
	for _, tt := range tests {
		if got, err := core.RecoverAddress("Hello, world!", tt.sig); !errors.Is(err, core.ErrBadSignature) {
			t.Errorf("RecoverAddress(%s: %q) = %s, %v, want ErrBadSignature", tt.name, tt.sig, got, err)
		}
	}
}

// TestRecoverAddress_RoundTrip signs random messages with random keys and
// recovers the signer, with v as 27/28 and as 0/1.
func TestRecoverAddress_RoundTrip(t *testing.T) {
	for i := range 200 {
		key, err := secp256k1.GeneratePrivateKey()
		if err != nil {
			t.Fatal(err)
		}
		msg := make([]byte, i%97)
		rand.Read(msg)
		sig := coretest.Sign(key, string(msg))
		if i%2 == 1 {
			last, _ := hex.DecodeString(sig[130:])
			sig = sig[:130] + fmt.Sprintf("%02x", last[0]-27)
		}
		want := coretest.Address(key)
		if got, err := core.RecoverAddress(string(msg), sig); err != nil || got != want {
			t.Fatalf("RecoverAddress(%x, %s) = %s, %v, want %s", msg, sig, got, err, want)
		}
	}
}
