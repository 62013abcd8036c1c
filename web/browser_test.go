//go:build unix

package web

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
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

// browserServer serves the verification handler on loopback. With inject
// set, pages get that test script, injected before the page's own script
// (same origin, so the page's CSP admits it); /test-sign signs with
// browserKey, /test-log records the test wallets' requests and /test-out
// what a test script reports. /test-frame/{nonce} shows the page in a
// frame 360 px wide (headless Chromium's window is at least 500): the page
// in it is framed only there, by its own origin. The page's PUBLIC_URL is
// the server's own address (its listener exists before it starts).
func browserServer(t *testing.T, v Verifier, inject string) (string, *walletLog) {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewUnstartedServer(mux)
	base := "http://" + srv.Listener.Addr().String()
	page := NewVerificationHandler(v, VerificationOptions{PublicURL: base})
	log := &walletLog{}
	mux.Handle(core.VerificationPath, page)
	if inject != "" {
		mux.Handle("GET "+core.VerificationPath+"{nonce}", injectProvider(page))
		mux.HandleFunc("GET /test-provider.js", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/javascript")
			_, _ = w.Write([]byte(inject))
		})
		mux.HandleFunc("POST /test-sign", testSign(t))
		mux.HandleFunc("POST /test-log", log.handle)
		mux.HandleFunc("POST /test-out", log.report)
		mux.HandleFunc("GET /test-frame/{nonce}", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><body style="margin:0"><iframe src="%s%s?frame=1" width="360" height="800" style="border:0"></iframe>`,
				core.VerificationPath, url.PathEscape(r.PathValue("nonce")))
		})
	}
	srv.Start()
	t.Cleanup(srv.Close)
	if srv.URL != base {
		t.Fatalf("test server at %q, want %q", srv.URL, base)
	}
	return base, log
}

// providerJS is testProviderJS for account.
func providerJS(account string) string {
	return fmt.Sprintf(testProviderJS, account)
}

// walletLog records the requests each test wallet received, as
// "wallet method", and the last report of a test script.
type walletLog struct {
	mu       sync.Mutex
	requests []string
	out      []byte
}

func (l *walletLog) report(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "bad report", http.StatusBadRequest)
		return
	}
	l.mu.Lock()
	l.out = b
	l.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// Out is the last report of a test script.
func (l *walletLog) Out() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.out
}

func (l *walletLog) handle(w http.ResponseWriter, r *http.Request) {
	var in struct{ Wallet, Method string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, "bad log", http.StatusBadRequest)
		return
	}
	l.mu.Lock()
	l.requests = append(l.requests, in.Wallet+" "+in.Method)
	l.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (l *walletLog) Requests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.requests...)
}

// injectProvider inserts the test provider's script tag into the page. With
// ?frame=1 the page may be framed by its own origin (/test-frame).
func injectProvider(page http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		page.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		if r.URL.Query().Get("frame") == "1" {
			w.Header().Del("X-Frame-Options")
			w.Header().Set("Content-Security-Policy", strings.Replace(w.Header().Get("Content-Security-Policy"),
				"frame-ancestors 'none'", "frame-ancestors 'self'", 1))
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
// flags are more Chromium flags (a window size, a user agent).
func dumpDOM(t *testing.T, chromium, url string, flags ...string) string {
	t.Helper()
	profile, err := os.MkdirTemp("", "poapbot-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	// Best effort: a helper process may still hold files for a moment.
	defer os.RemoveAll(profile)
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu",
		"--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-extensions", "--no-first-run", "--no-default-browser-check",
		"--no-proxy-server", "--user-data-dir=" + profile, "--virtual-time-budget=15000"}, flags...)
	cmd := exec.CommandContext(ctx, chromium, append(args, "--dump-dom", url)...)
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
		base, _ := browserServer(t, v, providerJS(core.ChecksumAddress(testAddress)))
		dom := dumpDOM(t, chromium, base+"/verify/"+testNonce)
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
		base, _ := browserServer(t, v, providerJS(core.ChecksumAddress(testAddress)))
		dom := dumpDOM(t, chromium, base+"/verify/"+testNonce)
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
		base, _ := browserServer(t, v, providerJS(other))
		dom := dumpDOM(t, chromium, base+"/verify/"+testNonce)
		if got := v.Recovered(); len(got) != 0 {
			t.Errorf("signatures recovered to %q, want none (wrong account)", got)
		}
		if want := "Switch it to " + testAddress; !strings.Contains(dom, want) {
			t.Errorf("DOM lacks %q:\n%s", want, dom)
		}
	})
	t.Run("NoWallet", func(t *testing.T) {
		v := &signingVerifier{challenge: c}
		base, _ := browserServer(t, v, "")
		dom := dumpDOM(t, chromium, base+"/verify/"+testNonce)
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
