package chain_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/poapbot/poapbot/chain"
	"github.com/poapbot/poapbot/chain/chaintest"
	"github.com/poapbot/poapbot/core"
)

func newClient(t *testing.T, url string, timeout time.Duration) *chain.Client {
	t.Helper()
	c, err := chain.NewClient(chain.Options{ID: chaintest.ID, URL: url, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestClient_ValidSignature asks a simulated chain about ERC-1271 wallets
// and ERC-6492 counterfactual ones.
func TestClient_ValidSignature(t *testing.T) {
	sim := chaintest.Start(t)
	c := newClient(t, sim.URL, 0)
	owner, stranger := chaintest.Key(t), chaintest.Key(t)
	hash := chaintest.PersonalHash("hello")
	deployed := sim.DeployWallet(owner)
	wrongMagic := sim.DeployWrongMagic()
	echo := sim.DeployRuntime(chaintest.EchoRuntime)
	invalid := sim.DeployRuntime(chaintest.InvalidRuntime)
	reverts := sim.DeployRuntime(chaintest.RevertRuntime)
	bomb := sim.DeployRuntime(chaintest.BombRuntime)
	counterfactual, factory, calldata := sim.Counterfactual(owner, [32]byte{7})
	_, _, strangerCalldata := sim.Counterfactual(stranger, [32]byte{7})
	suffix := chaintest.Wrap6492(t, factory, nil, nil)[96+64:]
	wrapped := chaintest.Wrap6492(t, factory, calldata, chaintest.SignHash(t, owner, hash))
	badOffset := append([]byte{}, wrapped...)
	badOffset[63] = 0xff // the factory calldata's offset, past the end
	for _, tt := range []struct {
		name     string
		address  string
		sig      []byte
		want     bool
		deployed bool
	}{
		{"ERC1271", deployed, chaintest.SignHash(t, owner, hash), true, true},
		{"ERC1271OtherKey", deployed, chaintest.SignHash(t, stranger, hash), false, true},
		{"ERC1271OtherHash", deployed, chaintest.SignHash(t, owner, chaintest.PersonalHash("hullo")), false, true},
		{"WrongMagic", wrongMagic, chaintest.SignHash(t, owner, hash), false, true},
		{"Echo", echo, chaintest.SignHash(t, stranger, hash), false, true},
		{"ERC6492Echo", echo, chaintest.Wrap6492(t, factory, calldata, chaintest.SignHash(t, stranger, hash)), false, true},
		{"InvalidOpcode", invalid, chaintest.SignHash(t, owner, hash), false, true},
		{"Reverts", reverts, chaintest.SignHash(t, owner, hash), false, true},
		{"AnswersMegabytes", bomb, chaintest.SignHash(t, owner, hash), false, true},
		{"ERC6492InvalidOpcode", invalid, chaintest.Wrap6492(t, factory, calldata, chaintest.SignHash(t, owner, hash)), false, true},
		{"ERC6492Malformed", counterfactual, append([]byte("not a wrapper, but long enough to be one: 96 bytes of text and more....."), suffix...), false, false},
		{"ERC6492BadOffset", counterfactual, badOffset, false, false},
		{"ERC6492NotAnAddress", counterfactual, append(bytes.Repeat([]byte{0xff}, 160), suffix...), false, false},
		{"ERC6492SuffixOnly", counterfactual, suffix, false, false},
		{"NoCode", counterfactual, chaintest.SignHash(t, owner, hash), false, false},
		{"ERC6492", counterfactual, wrapped, true, false},
		{"ERC6492OtherKey", counterfactual, chaintest.Wrap6492(t, factory, calldata, chaintest.SignHash(t, stranger, hash)), false, false},
		{"ERC6492Deployed", deployed, chaintest.Wrap6492(t, factory, calldata, chaintest.SignHash(t, owner, hash)), true, true},
		{"ERC6492OtherWalletDeployed", deployed, chaintest.Wrap6492(t, factory, strangerCalldata, chaintest.SignHash(t, stranger, hash)), false, true},
		{"ERC6492BadFactory", counterfactual, chaintest.Wrap6492(t, factory, []byte{1, 2, 3, 4}, chaintest.SignHash(t, owner, hash)), false, false},
		{"TooLong", deployed, make([]byte, chain.MaxSignatureBytes+1), false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, deployed, err := c.ValidSignature(t.Context(), tt.address, hash, tt.sig)
			if err != nil || got != tt.want || deployed != tt.deployed {
				t.Errorf("ValidSignature(%s) = %v, %v, %v, want %v, %v", tt.name, got, deployed, err, tt.want, tt.deployed)
			}
		})
	}
	if code := sim.Code(counterfactual); len(code) != 0 {
		t.Errorf("the ERC-6492 check left %d bytes of code at the counterfactual address", len(code))
	}
}

// TestClient_ChainID reads the simulated chain's id.
func TestClient_ChainID(t *testing.T) {
	sim := chaintest.Start(t)
	got, err := newClient(t, sim.URL, 0).ChainID(t.Context())
	if err != nil || got != chaintest.ID {
		t.Errorf("ChainID() = %d, %v, want %d", got, err, chaintest.ID)
	}
}

// TestClient_Timeout gives up on an endpoint that never answers, after the
// client's timeout, with ErrChainUnavailable.
func TestClient_Timeout(t *testing.T) {
	c := newClient(t, chaintest.Hang(t)+"/v3/secret-api-key", time.Millisecond)
	_, _, err := c.ValidSignature(t.Context(), "0x00000000000000000000000000000000000000aa", make([]byte, 32), make([]byte, 65))
	if !errors.Is(err, core.ErrChainUnavailable) {
		t.Fatalf("ValidSignature(hanging endpoint) = %v, want ErrChainUnavailable", err)
	}
	if got := err.Error(); containsAny(got, "secret-api-key", "http://") {
		t.Errorf("the error names the URL: %s", got)
	}
}

// TestClient_OtherChain: an endpoint that serves another chain than the
// configured one proves nothing, even a signature its wallet accepts.
func TestClient_OtherChain(t *testing.T) {
	sim := chaintest.Start(t)
	owner := chaintest.Key(t)
	wallet := sim.DeployWallet(owner)
	hash := chaintest.PersonalHash("hello")
	c, err := chain.NewClient(chain.Options{ID: 8453, URL: sim.URL})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second time, from the id remembered
		ok, _, err := c.ValidSignature(t.Context(), wallet, hash, chaintest.SignHash(t, owner, hash))
		if ok || !errors.Is(err, core.ErrChainMisconfigured) || !errors.Is(err, core.ErrChainUnavailable) {
			t.Fatalf("ValidSignature(chain 1337 configured as 8453) = %v, %v, want false, ErrChainMisconfigured", ok, err)
		}
	}
}
