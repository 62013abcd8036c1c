//go:build unix

package web

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/crypto/sha3"

	"github.com/poapbot/poapbot/core"
)

// browserTimeout bounds one Chromium run; it is killed past it.
const browserTimeout = 60 * time.Second

// browserKey is the test wallet's private key (a well-known example key,
// never used for anything real); its address is testAddress.
var browserKey = mustKey("4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")

func mustKey(h string) *secp256k1.PrivateKey {
	b, err := hex.DecodeString(h)
	if err != nil {
		panic(err)
	}
	return secp256k1.PrivKeyFromBytes(b)
}

// personalSign signs message as a wallet's personal_sign does (EIP-191):
// the signature is r | s | v in hex, v being 27 or 28.
func personalSign(key *secp256k1.PrivateKey, message []byte) string {
	h := sha3.NewLegacyKeccak256()
	h.Write([]byte("\x19Ethereum Signed Message:\n" + strconv.Itoa(len(message))))
	h.Write(message)
	compact := ecdsa.SignCompact(key, h.Sum(nil), false) // [27+v | r | s]
	sig := append(compact[1:65:65], compact[0])
	return "0x" + hex.EncodeToString(sig)
}

// signingVerifier is a Verifier that checks signatures for real, with the
// core's EIP-191 recovery, and records the address each one recovered to.
type signingVerifier struct {
	challenge core.Challenge

	mu        sync.Mutex
	recovered []string
}

func (v *signingVerifier) Challenge(_ context.Context, nonce string) (core.Challenge, error) {
	if nonce != v.challenge.Nonce {
		return core.Challenge{}, core.ErrNotFound
	}
	return v.challenge, nil
}

func (v *signingVerifier) VerifyMessage(_ context.Context, nonce, message, sig string) (core.Wallet, error) {
	if nonce != v.challenge.Nonce {
		return core.Wallet{}, core.ErrNotFound
	}
	if message != v.challenge.Message {
		return core.Wallet{}, core.ErrMessageChanged
	}
	addr, err := core.RecoverAddress(v.challenge.Message, sig)
	if err != nil {
		return core.Wallet{}, err
	}
	v.mu.Lock()
	v.recovered = append(v.recovered, addr)
	v.mu.Unlock()
	if addr != v.challenge.Address {
		return core.Wallet{}, core.ErrSignatureMismatch
	}
	return core.Wallet{Kind: core.KindAddress, Value: addr, Address: addr}, nil
}

func (v *signingVerifier) Recovered() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.recovered...)
}

// findChromium returns the Chromium binary, or skips the test outside CI
// (CI=true) when there is none; in CI a missing Chromium fails it.
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium not installed, but CI=true: .ci/run must install it (apt-get install chromium)")
	}
	t.Skip("chromium not installed: the browser test of the verification page did not run")
	return ""
}

// testProviderJS is an EIP-1193 provider for account: it answers
// eth_requestAccounts itself and has the test server sign for personal_sign.
// Like a member, it clicks the button once the page has loaded.
const testProviderJS = `window.ethereum = {
  request: async function (args) {
    if (args.method === "eth_requestAccounts") { return [%q]; }
    if (args.method === "personal_sign") {
      const res = await fetch("/test-sign", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({params: args.params})});
      if (!res.ok) { throw {code: -32603, message: "test-sign answered " + res.status}; }
      return (await res.json()).signature;
    }
    throw {code: 4200, message: "unsupported method " + args.method};
  },
};
window.addEventListener("load", function () { document.getElementById("sign").click(); });
`

// browserServer serves the verification handler on loopback. With account
// set, pages get a test provider for that account, injected before the
// page's own script (same origin, so the page's CSP admits it), and
// /test-sign signs with browserKey.
func browserServer(t *testing.T, v Verifier, account string) string {
	t.Helper()
	page := NewVerificationHandler(v, VerificationOptions{})
	mux := http.NewServeMux()
	mux.Handle(core.VerificationPath, page)
	if account != "" {
		mux.Handle("GET "+core.VerificationPath+"{nonce}", injectProvider(page))
		mux.HandleFunc("GET /test-provider.js", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprintf(w, testProviderJS, account)
		})
		mux.HandleFunc("POST /test-sign", testSign(t))
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// injectProvider inserts the test provider's script tag into the page.
func injectProvider(page http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		page.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		body := strings.Replace(rec.Body.String(), `<script src="app.js">`,
			`<script src="/test-provider.js"></script><script src="app.js">`, 1)
		w.WriteHeader(rec.Code)
		_, _ = w.Write([]byte(body))
	})
}

// testSign answers the provider's personal_sign: params are the hex message
// and the account, in the EIP-1193 (MetaMask) order.
func testSign(t *testing.T) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Params []string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || len(in.Params) != 2 {
			t.Errorf("/test-sign: params = %q (%v), want [message, account]", in.Params, err)
			http.Error(w, "bad params", http.StatusBadRequest)
			return
		}
		msg, err := hex.DecodeString(strings.TrimPrefix(in.Params[0], "0x"))
		if err != nil {
			t.Errorf("/test-sign: message %q is not 0x hex: %v", in.Params[0], err)
			http.Error(w, "bad message", http.StatusBadRequest)
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"signature": personalSign(browserKey, msg)})
	}
}

// dumpDOM loads url in headless Chromium and returns the DOM once the page's
// work is done (virtual time lets timers and fetches finish first).
func dumpDOM(t *testing.T, chromium, url string) string {
	t.Helper()
	profile, err := os.MkdirTemp("", "poapbot-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	// Best effort: a helper process may still hold files for a moment.
	defer os.RemoveAll(profile)
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-extensions", "--no-first-run", "--no-default-browser-check",
		"--no-proxy-server", "--user-data-dir="+profile, "--virtual-time-budget=15000", "--dump-dom", url)
	// Chromium starts helper processes: kill the whole group on timeout.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v (context: %v)\nstderr:\n%s", url, err, ctx.Err(), stderr.String())
	}
	return stdout.String()
}

func TestVerificationPage_Browser(t *testing.T) {
	chromium := findChromium(t)
	c := testChallenge()
	c.ExpiresAt = time.Now().Add(time.Hour) // the handler's clock is real
	c.Message = "poapbot wants you to prove you own " + testAddress + ".\n\nNonce: " + testNonce + "\nCafé ✓ <b>"

	t.Run("Verified", func(t *testing.T) {
		v := &signingVerifier{challenge: c}
		// Wallets report checksummed accounts; the page compares case-blind.
		dom := dumpDOM(t, chromium, browserServer(t, v, core.ChecksumAddress(testAddress))+"/verify/"+testNonce)
		if diff := cmp.Diff([]string{testAddress}, v.Recovered()); diff != "" {
			t.Errorf("addresses the signatures recovered to (-want +got), want one valid signature by the test key:\n%s", diff)
		}
		if want := "Verified. You can close this page and go back to the chat."; !strings.Contains(dom, want) {
			t.Errorf("DOM lacks %q:\n%s", want, dom)
		}
	})
	// An EIP-4361 message: the page names its domain, the wallet signs it
	// and the page posts it back as it was signed.
	t.Run("SIWE", func(t *testing.T) {
		siwe := c
		siwe.Message = core.SIWEMessage{Domain: "bot.example.org", Address: core.ChecksumAddress(testAddress),
			Statement: "POAP bot asks you to prove you own this wallet.", URI: "https://bot.example.org/verify/" + testNonce,
			Version: "1", ChainID: "1", Nonce: testNonce, IssuedAt: c.IssuedAt, ExpirationTime: c.ExpiresAt.Truncate(time.Second)}.String()
		v := &signingVerifier{challenge: siwe}
		dom := dumpDOM(t, chromium, browserServer(t, v, core.ChecksumAddress(testAddress))+"/verify/"+testNonce)
		if diff := cmp.Diff([]string{testAddress}, v.Recovered()); diff != "" {
			t.Errorf("addresses the signatures recovered to (-want +got):\n%s", diff)
		}
		for _, want := range []string{"a sign-in to <strong>bot.example.org</strong>", "Verified. You can close this page"} {
			if !strings.Contains(dom, want) {
				t.Errorf("DOM lacks %q:\n%s", want, dom)
			}
		}
	})
	t.Run("WrongAccount", func(t *testing.T) {
		v := &signingVerifier{challenge: c}
		other := "0x00000000000000000000000000000000000000aa"
		dom := dumpDOM(t, chromium, browserServer(t, v, other)+"/verify/"+testNonce)
		if got := v.Recovered(); len(got) != 0 {
			t.Errorf("signatures recovered to %q, want none (wrong account)", got)
		}
		if want := "Switch it to " + testAddress; !strings.Contains(dom, want) {
			t.Errorf("DOM lacks %q:\n%s", want, dom)
		}
	})
	t.Run("NoWallet", func(t *testing.T) {
		v := &signingVerifier{challenge: c}
		dom := dumpDOM(t, chromium, browserServer(t, v, "")+"/verify/"+testNonce)
		for _, want := range []string{
			`<section id="no-wallet">`, "No browser wallet found.", "/verify &lt;signature&gt;",
			`<section id="wallet" hidden="">`, `<button type="button" id="copy">Copy message</button>`,
		} {
			if !strings.Contains(dom, want) {
				t.Errorf("DOM lacks %q:\n%s", want, dom)
			}
		}
	})
}

// TestPersonalSign checks the test signer against the core's recovery, so a
// browser failure is never the signer's fault.
func TestPersonalSign(t *testing.T) {
	msg := "Café ✓\r\nline two"
	got, err := core.RecoverAddress(msg, personalSign(browserKey, []byte(msg)))
	if err != nil || got != testAddress {
		t.Errorf("RecoverAddress(msg, personalSign(msg)) = %q, %v, want %q, nil", got, err, testAddress)
	}
}
