package main

import (
	"crypto/ecdsa"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/chain/chaintest"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

// waitFor waits until the session's output after its first mark bytes
// contains want, and returns that part of the output.
func waitFor(t *testing.T, s *session, mark int, want string) string {
	t.Helper()
	return waitAfter(t, s, mark, func(out string) bool { return strings.Contains(out, want) })
}

// linkChallenge links address for the console's current member and
// returns the challenge message and the output's length before it.
func linkChallenge(t *testing.T, s *session, member, address string) string {
	t.Helper()
	mark := len(s.out.String())
	fmt.Fprintf(s.stdin, "/as %s\n/link %s\n", member, address)
	return challengeIn(t, waitFor(t, s, mark, "Signing is free"))
}

// verifyAs sends /verify with sig and waits for a reply containing want.
func verifyAs(t *testing.T, s *session, sig []byte, want string) string {
	t.Helper()
	mark := len(s.out.String())
	fmt.Fprintf(s.stdin, "/verify %s\n", chaintest.Hex(sig))
	return waitFor(t, s, mark, want)
}

// startWithChains runs the bot on the console with CHAIN_RPC_URLS and the
// default timeout of JSON-RPC calls, which the simulated chain meets even
// on a loaded machine.
func startWithChains(t *testing.T, chains string, env map[string]string) *session {
	t.Helper()
	return startWithChainTimeout(t, chains, env, 0)
}

// startWithHangingChain is startWithChains with a 200 ms timeout of
// JSON-RPC calls, for the tests of a chain that never answers. The
// simulated chain must answer within it as well, which it did not under
// -race with the other tests running beside it: the tests that use this
// run alone, not in parallel.
func startWithHangingChain(t *testing.T, chains string, env map[string]string) *session {
	t.Helper()
	return startWithChainTimeout(t, chains, env, 200*time.Millisecond)
}

func startWithChainTimeout(t *testing.T, chains string, env map[string]string, timeout time.Duration) *session {
	t.Helper()
	if env == nil {
		env = map[string]string{}
	}
	env["CHAIN_RPC_URLS"] = chains
	return startMainTuned(t, env, true, func(m *Main) { m.ChainTimeout = timeout })
}

// TestSmartWallet_Console verifies smart-contract wallets with /link and
// /verify on a simulated chain: a deployed ERC-1271 wallet, a
// counterfactual one through ERC-6492, and a contract that answers a
// wrong magic value, which is the wrong-signature answer.
func TestSmartWallet_Console(t *testing.T) {
	t.Parallel()
	sim := chaintest.Start(t)
	s := startWithChains(t, fmt.Sprintf("%d=%s", chaintest.ID, sim.URL), nil)
	owner := chaintest.Key(t)

	t.Run("ERC1271", func(t *testing.T) {
		wallet := sim.DeployWallet(owner)
		msg := linkChallenge(t, s, "alice", wallet)
		out := verifyAs(t, s, chaintest.SignHash(t, owner, chaintest.PersonalHash(msg)), "Verified")
		if !strings.Contains(out, "Verified on chain 1337") {
			t.Errorf("the reply does not say which chain proved it:\n%s", out)
		}
		mark := len(s.out.String())
		fmt.Fprintln(s.stdin, "/wallet")
		if w := waitFor(t, s, mark, "Your wallets"); !strings.Contains(w, "verified") {
			t.Errorf("/wallet does not show the wallet verified:\n%s", w)
		}
	})
	t.Run("ERC6492", func(t *testing.T) {
		wallet, factory, calldata := sim.Counterfactual(owner, [32]byte{1})
		msg := linkChallenge(t, s, "bob", wallet)
		sig := chaintest.Wrap6492(t, factory, calldata, chaintest.SignHash(t, owner, chaintest.PersonalHash(msg)))
		verifyAs(t, s, sig, "Verified on chain 1337")
		if code := sim.Code(wallet); len(code) != 0 {
			t.Errorf("verifying deployed the counterfactual wallet (%d bytes of code)", len(code))
		}
	})
	t.Run("WrongMagic", func(t *testing.T) {
		wallet := sim.DeployWrongMagic()
		msg := linkChallenge(t, s, "carol", wallet)
		verifyAs(t, s, chaintest.SignHash(t, owner, chaintest.PersonalHash(msg)), "doesn't match")
	})
	t.Run("WrongMagicLocks", func(t *testing.T) {
		wallet := sim.DeployWrongMagic()
		msg := linkChallenge(t, s, "dave", wallet)
		sig := chaintest.SignHash(t, owner, chaintest.PersonalHash(msg))
		for range core.MaxWrongSignatures - 1 {
			verifyAs(t, s, sig, "doesn't match")
		}
		verifyAs(t, s, sig, "locked")
	})
}

// TestSmartWallet_ChainTimeout tells the member that a chain could not be
// reached, not that the signature is wrong, and counts nothing, up to the
// member's budget of checks; a chain that answers yes wins over one that
// hangs (an outage refuses nothing).
//
// It runs alone, not in parallel: see startWithHangingChain.
func TestSmartWallet_ChainTimeout(t *testing.T) {
	sim := chaintest.Start(t)
	s := startWithHangingChain(t, fmt.Sprintf("8453=%s/v2/secret-key,%d=%s", chaintest.Hang(t), chaintest.ID, sim.URL), nil)
	owner, stranger := chaintest.Key(t), chaintest.Key(t)
	wallet, factory, calldata := sim.Counterfactual(owner, [32]byte{1})

	msg := linkChallenge(t, s, "alice", wallet)
	wrong := chaintest.SignHash(t, stranger, chaintest.PersonalHash(msg))
	for range core.ChainChecksBurst {
		out := verifyAs(t, s, wrong, "could not reach")
		if !strings.Contains(out, "Base (chain 8453)") || strings.Contains(out, "secret-key") {
			t.Fatalf("the reply does not name the chain, or names its URL:\n%s", out)
		}
	}
	verifyAs(t, s, wrong, "wait a few minutes")

	// Another member: chain 1337 accepts, chain 8453 hangs.
	msg = linkChallenge(t, s, "bob", wallet)
	sig := chaintest.Wrap6492(t, factory, calldata, chaintest.SignHash(t, owner, chaintest.PersonalHash(msg)))
	verifyAs(t, s, sig, "Verified on chain 1337")

	mark := len(s.out.String())
	fmt.Fprintln(s.stdin, "/as console\n/setup check")
	out := waitFor(t, s, mark, "Setup check")
	for _, want := range []string{"✅ chain 1337 answers", "❌ Base (chain 8453) answers: no answer just now"} {
		if !strings.Contains(out, want) {
			t.Errorf("/setup check lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "127.0.0.1") {
		t.Errorf("/setup check names an endpoint's host:\n%s", out)
	}
}

// TestSmartWallet_NoChains tells a member whose signature is another key's
// that smart-contract wallets need CHAIN_RPC_URLS.
func TestSmartWallet_NoChains(t *testing.T) {
	t.Parallel()
	s := startMainTuned(t, map[string]string{}, true, nil)
	msg := linkChallenge(t, s, "alice", coretest.TestAddress)
	mark := len(s.out.String())
	fmt.Fprintf(s.stdin, "/verify %s\n", coretest.Sign(coretest.OtherKey, msg))
	out := waitFor(t, s, mark, "doesn't match")
	if !strings.Contains(out, "CHAIN_RPC_URLS") {
		t.Errorf("the reply does not say smart-contract wallets need CHAIN_RPC_URLS:\n%s", out)
	}
}

// TestSmartWallet_VerificationPage verifies a deployed ERC-1271 wallet
// through the verification page.
func TestSmartWallet_VerificationPage(t *testing.T) {
	t.Parallel()
	sim := chaintest.Start(t)
	s := startWithChains(t, fmt.Sprintf("%d=%s", chaintest.ID, sim.URL), map[string]string{"PUBLIC_URL": "https://bot.example.org"})
	owner := chaintest.Key(t)
	wallet := sim.DeployWallet(owner)
	msg := linkChallenge(t, s, "alice", wallet)
	out := s.out.String()
	i := strings.LastIndex(out, "https://bot.example.org/verify/")
	if i < 0 {
		t.Fatalf("the /link reply has no verification page link:\n%s", out)
	}
	nonce := strings.Fields(out[i+len("https://bot.example.org/verify/"):])[0]
	got := postSignature(t, "http://"+s.m.Web.Addr()+"/verify/"+nonce, owner, msg)
	if !got.OK || got.Wallet != wallet || got.Chain != "chain 1337" {
		t.Errorf("POST /verify = %+v, want ok for %s on chain 1337", got, wallet)
	}
}

// postSignature posts the owner's signature of msg to the page.
func postSignature(t *testing.T, url string, owner *ecdsa.PrivateKey, msg string) pageAnswer {
	t.Helper()
	return postSigned(t, url, "", chaintest.Hex(chaintest.SignHash(t, owner, chaintest.PersonalHash(msg))))
}
