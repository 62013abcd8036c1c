package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/chain/chaintest"
)

// pageNonce returns the nonce of the last verification page link in the
// session's output.
func pageNonce(t *testing.T, s *session, base string) string {
	t.Helper()
	out := s.out.String()
	i := strings.LastIndex(out, base+"/verify/")
	if i < 0 {
		t.Fatalf("the /link reply has no verification page link:\n%s", out)
	}
	return strings.Fields(out[i+len(base+"/verify/"):])[0]
}

// postPage posts sig to the verification page of nonce and returns the
// status and the answer's ok and error.
func postPage(t *testing.T, s *session, nonce string, sig []byte) (int, bool, string) {
	t.Helper()
	res := postSigned(t, "http://"+s.m.Web.Addr()+"/verify/"+nonce, "", chaintest.Hex(sig))
	return res.Status, res.OK, res.Error
}

// TestSmartWallet_PageCases runs the other smart-wallet cases through the
// verification page: a counterfactual wallet through ERC-6492, a contract
// that answers a wrong magic value, and a chain that does not answer.
//
// It runs alone, not in parallel: see startWithHangingChain.
func TestSmartWallet_PageCases(t *testing.T) {
	const base = "https://bot.example.org"
	sim := chaintest.Start(t)
	s := startWithChains(t, fmt.Sprintf("%d=%s", chaintest.ID, sim.URL), map[string]string{"PUBLIC_URL": base})
	owner, stranger := chaintest.Key(t), chaintest.Key(t)

	t.Run("ERC6492", func(t *testing.T) {
		wallet, factory, calldata := sim.Counterfactual(owner, [32]byte{2})
		msg := linkChallenge(t, s, "bob", wallet)
		sig := chaintest.Wrap6492(t, factory, calldata, chaintest.SignHash(t, owner, chaintest.PersonalHash(msg)))
		if code, ok, problem := postPage(t, s, pageNonce(t, s, base), sig); !ok {
			t.Errorf("POST of an ERC-6492 signature = %d %q, want ok", code, problem)
		}
	})
	t.Run("WrongMagic", func(t *testing.T) {
		wallet := sim.DeployWrongMagic()
		msg := linkChallenge(t, s, "carol", wallet)
		code, ok, problem := postPage(t, s, pageNonce(t, s, base), chaintest.SignHash(t, owner, chaintest.PersonalHash(msg)))
		if ok || code != http.StatusUnprocessableEntity || !strings.Contains(problem, "not made by the linked wallet") {
			t.Errorf("POST to a wrong-magic wallet = %d %v %q, want 422, not made by the linked wallet", code, ok, problem)
		}
	})
	t.Run("ChainTimeout", func(t *testing.T) {
		chains := fmt.Sprintf("8453=%s,%d=%s", chaintest.Hang(t), chaintest.ID, sim.URL)
		s := startWithHangingChain(t, chains, map[string]string{"PUBLIC_URL": base})
		// Not deployed anywhere: no chain's answer refuses it, so the
		// hanging one leaves it in doubt; the owner's ERC-6492 signature
		// then proves it on the chain that answers.
		wallet, factory, calldata := sim.Counterfactual(owner, [32]byte{3})
		msg := linkChallenge(t, s, "dave", wallet)
		nonce := pageNonce(t, s, base)
		code, ok, problem := postPage(t, s, nonce, chaintest.SignHash(t, stranger, chaintest.PersonalHash(msg)))
		if ok || code != http.StatusServiceUnavailable || !strings.Contains(problem, "could not be reached") {
			t.Errorf("POST while a chain hangs = %d %v %q, want 503, could not be reached", code, ok, problem)
		}
		sig := chaintest.Wrap6492(t, factory, calldata, chaintest.SignHash(t, owner, chaintest.PersonalHash(msg)))
		if code, ok, problem := postPage(t, s, nonce, sig); !ok {
			t.Errorf("POST of the owner's signature after the outage = %d %q, want ok", code, problem)
		}
	})
}
