package core_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/storage"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

// fakeChain answers every signature the same way.
type fakeChain struct {
	id       int64
	valid    bool
	deployed bool
	err      error
}

func (f fakeChain) Chain() int64                           { return f.id }
func (f fakeChain) Endpoint() string                       { return "rpc.example" }
func (f fakeChain) ChainID(context.Context) (int64, error) { return f.id, f.err }
func (f fakeChain) ValidSignature(context.Context, string, []byte, []byte) (bool, bool, error) {
	return f.valid, f.deployed, f.err
}

// TestWalletService_ContractWallets: a signature the key did not make is
// asked of the chains; a yes proves the wallet unless a wallet deployed
// on another chain says no, an unreachable chain counts nothing, and
// without chains a mismatch says so.
func TestWalletService_ContractWallets(t *testing.T) {
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		db, err := storage.Open(t.Context(), newURL())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		service := func(chains ...core.ContractWallets) *core.WalletService {
			s, err := core.NewWalletService(core.WalletServiceDeps{Members: db, Wallets: db, Contracts: chains})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		down := fakeChain{id: 100, err: core.ErrChainUnavailable}

		c := mustLink(t, service(), alice, coretest.TestAddress)
		other := coretest.Sign(coretest.OtherKey, c.Message)
		if _, err := service().VerifyChallenge(t.Context(), c.Nonce, other); !errors.Is(err, core.ErrChainsNotConfigured) || !errors.Is(err, core.ErrSignatureMismatch) {
			t.Errorf("VerifyChallenge(no chains) = %v, want ErrChainsNotConfigured and ErrSignatureMismatch", err)
		}
		var chainErr *core.ChainError
		for range core.MaxWrongSignatures + 1 {
			_, err := service(down, fakeChain{id: 8453}).VerifyChallenge(t.Context(), c.Nonce, other)
			if !errors.As(err, &chainErr) || chainErr.Chain != 100 || errors.Is(err, core.ErrSignatureMismatch) {
				t.Fatalf("VerifyChallenge(chain down) = %v, want a ChainError of chain 100", err)
			}
		}
		if _, err := service(fakeChain{id: 8453}).VerifyChallenge(t.Context(), c.Nonce, "0x1234"); !errors.Is(err, core.ErrSignatureMismatch) {
			t.Errorf("VerifyChallenge(short, refused) = %v, want ErrSignatureMismatch", err)
		}
		vetoed := service(fakeChain{id: 1, valid: true}, fakeChain{id: 8453, deployed: true})
		if _, err := vetoed.VerifyChallenge(t.Context(), c.Nonce, "0x1234"); !errors.Is(err, core.ErrSignatureMismatch) {
			t.Errorf("VerifyChallenge(accepted on 1, refused by a wallet deployed on 8453) = %v, want ErrSignatureMismatch", err)
		}
		w, err := service(down, fakeChain{id: 10}, fakeChain{id: 8453, valid: true}).VerifyChallenge(t.Context(), c.Nonce, "0x1234")
		if err != nil || w.VerifiedChain != 8453 || w.Address != coretest.TestAddress {
			t.Errorf("VerifyChallenge(accepted on 8453) = %+v, %v, want verified on 8453", w, err)
		}
	})
}

// TestWalletService_ContractSignatureWithoutChains: without chains, a
// signature longer than a key's (or wrapped by ERC-6492) is
// ErrChainsNotConfigured, not a malformed one, and counts for nothing.
func TestWalletService_ContractSignatureWithoutChains(t *testing.T) {
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		db, err := storage.Open(t.Context(), newURL())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		s, err := core.NewWalletService(core.WalletServiceDeps{Members: db, Wallets: db})
		if err != nil {
			t.Fatal(err)
		}
		c := mustLink(t, s, alice, coretest.TestAddress)
		for _, sig := range []string{"0x" + strings.Repeat("ab", 66), "0x" + strings.Repeat("00", 32) + strings.Repeat("6492", 16)} {
			for range core.MaxWrongSignatures {
				_, err := s.VerifyChallenge(t.Context(), c.Nonce, sig)
				if !errors.Is(err, core.ErrChainsNotConfigured) || errors.Is(err, core.ErrBadSignature) || errors.Is(err, core.ErrSignatureMismatch) {
					t.Fatalf("VerifyChallenge(%d bytes, no chains) = %v, want ErrChainsNotConfigured alone", len(sig)/2-1, err)
				}
			}
		}
		if _, err := s.VerifyChallenge(t.Context(), c.Nonce, "0x"+strings.Repeat("zz", 66)); !errors.Is(err, core.ErrBadSignature) {
			t.Errorf("VerifyChallenge(not hex) = %v, want ErrBadSignature", err)
		}
		if _, err := s.VerifyChallenge(t.Context(), c.Nonce, coretest.Sign(coretest.TestKey, c.Message)); err != nil {
			t.Errorf("VerifyChallenge(the key's signature) = %v, want verified: nothing was counted", err)
		}
	})
}

// TestWalletService_ChainChecksBudget: a member asks the chains at most
// ChainChecksBurst times at once, then once per ChainCheckEvery, even when
// every answer is an outage that counts nothing against the challenge.
func TestWalletService_ChainChecksBudget(t *testing.T) {
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		db, err := storage.Open(t.Context(), newURL())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		clock := coretest.NewClock(time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC))
		s, err := core.NewWalletService(core.WalletServiceDeps{Members: db, Wallets: db, Clock: clock,
			Contracts: []core.ContractWallets{fakeChain{id: 100, err: core.ErrChainUnavailable}}})
		if err != nil {
			t.Fatal(err)
		}
		c := mustLink(t, s, alice, coretest.TestAddress)
		other := coretest.Sign(coretest.OtherKey, c.Message)
		var chainErr *core.ChainError
		for i := range core.ChainChecksBurst {
			if _, err := s.VerifyChallenge(t.Context(), c.Nonce, other); !errors.As(err, &chainErr) {
				t.Fatalf("VerifyChallenge(check %d) = %v, want a ChainError", i+1, err)
			}
		}
		_, err = s.VerifyChallenge(t.Context(), c.Nonce, other)
		if !errors.Is(err, core.ErrTooManyChainChecks) || !errors.Is(err, core.ErrChainUnavailable) {
			t.Fatalf("VerifyChallenge(past the budget) = %v, want ErrTooManyChainChecks", err)
		}
		clock.Add(core.ChainCheckEvery)
		if _, err := s.VerifyChallenge(t.Context(), c.Nonce, other); !errors.As(err, &chainErr) {
			t.Errorf("VerifyChallenge(a minute later) = %v, want a ChainError", err)
		}
		if _, err := s.VerifyChallenge(t.Context(), c.Nonce, coretest.Sign(coretest.TestKey, c.Message)); err != nil {
			t.Errorf("VerifyChallenge(the key's signature, budget spent) = %v, want verified", err)
		}
	})
}

// TestWalletService_CheckChains: one /setup check line per chain, none
// without chains.
func TestWalletService_CheckChains(t *testing.T) {
	none, err := core.NewWalletService(core.WalletServiceDeps{Members: coretest.NewMemStore(), Wallets: coretest.NoWallets{}})
	if err != nil {
		t.Fatal(err)
	}
	if lines := none.CheckChains(t.Context()); len(lines) != 0 {
		t.Errorf("CheckChains(no chains) = %+v, want no line", lines)
	}
	s, err := core.NewWalletService(core.WalletServiceDeps{Members: coretest.NewMemStore(), Wallets: coretest.NoWallets{},
		Contracts: []core.ContractWallets{fakeChain{id: 8453}, fakeChain{id: 100, err: core.ErrChainUnavailable}}})
	if err != nil {
		t.Fatal(err)
	}
	lines := s.CheckChains(t.Context())
	if len(lines) != 2 || !lines[0].OK || lines[1].OK || lines[0].Check != "Base (chain 8453) answers" ||
		strings.Contains(lines[1].Check+lines[1].Fix, "rpc.example") {
		t.Errorf("CheckChains() = %+v, want Base answering, Gnosis not, no host named", lines)
	}
}
