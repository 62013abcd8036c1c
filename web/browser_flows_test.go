//go:build unix

package web

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/core"
)

// onceVerifier is a signingVerifier that, like the real one, marks the
// challenge used: a second signature gets ErrChallengeUsed. It counts the
// signatures posted.
type onceVerifier struct {
	signingVerifier

	mu    sync.Mutex
	posts int
	used  bool
}

func (v *onceVerifier) VerifyMessage(ctx context.Context, nonce, message, sig string) (core.Wallet, error) {
	v.mu.Lock()
	v.posts++
	used := v.used
	v.mu.Unlock()
	if used {
		return core.Wallet{}, core.ErrChallengeUsed
	}
	w, err := v.signingVerifier.VerifyMessage(ctx, nonce, message, sig)
	if err == nil {
		v.mu.Lock()
		v.used = true
		v.mu.Unlock()
	}
	return w, err
}

func (v *onceVerifier) Posts() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.posts
}

// lateWalletJS announces one wallet, "Solo", for %[1]q, and clicks the
// sign button. While Solo is asked for the account, a second wallet,
// "Late", announces itself, and the member clicks every button then on
// the page, Late's first.
var lateWalletJS = fmt.Sprintf(walletsJS, `
  var late = false;
  wallet("uuid-solo", "Solo", icon, %[1]q, async function (args) {
    if (args.method !== "eth_requestAccounts" || late) { return; }
    late = true;
    wallet("uuid-late", "Late", icon, %[1]q);
    Array.from(document.querySelectorAll("#sign, #wallets button")).reverse().forEach(function (b) { b.click(); });
  });
  window.addEventListener("load", function () { document.getElementById("sign").click(); });`)

// TestVerificationPage_BrowserLateWallet: a wallet that announces itself
// while another is signing starts no second signing: only the first wallet
// is asked, one signature is posted, and the page says Verified.
func TestVerificationPage_BrowserLateWallet(t *testing.T) {
	chromium := findChromium(t)
	v := &onceVerifier{signingVerifier: signingVerifier{challenge: browserChallenge()}}
	base, log := browserServer(t, v, fmt.Sprintf(lateWalletJS, core.ChecksumAddress(testAddress)))
	dom := dumpDOM(t, chromium, base+"/verify/"+testNonce)
	if diff := cmp.Diff([]string{"Solo eth_requestAccounts", "Solo personal_sign"}, log.Requests()); diff != "" {
		t.Errorf("wallet requests (-want +got), want only Solo asked, once:\n%s", diff)
	}
	if n := v.Posts(); n != 1 {
		t.Errorf("page posted %d signatures, want 1", n)
	}
	if want := "Verified. You can close this page"; !strings.Contains(dom, want) {
		t.Errorf("DOM lacks %q:\n%s", want, dom)
	}
}

// declineJS lists "Alpha" and "Beta" (both for %[1]q) and clicks Beta,
// which announces a third wallet, "Gamma", while asked for the account,
// then declines (4001).
var declineJS = fmt.Sprintf(walletsJS, `
  wallet("uuid-a", "Alpha", icon, %[1]q);
  wallet("uuid-b", "Beta", icon, %[1]q, async function (args) {
    wallet("uuid-c", "Gamma", icon, %[1]q);
    throw {code: 4001, message: "User rejected the request."};
  });
  window.addEventListener("load", function () { document.querySelectorAll("#wallets button")[1].click(); });`)

// buttonRE matches a wallet's button: its icon, name and rdns.
var buttonRE = regexp.MustCompile(`<button type="button"( disabled="")?>(<img [^>]*>)?<span>([^<]*)</span>(?:<small>([^<]*)</small>)?</button>`)

// walletButton is what a wallet's button shows.
type walletButton struct {
	Name, Rdns     string
	Icon, Disabled bool
}

func walletButtons(dom string) []walletButton {
	var out []walletButton
	for _, m := range buttonRE.FindAllStringSubmatch(dom, -1) {
		out = append(out, walletButton{Name: m[3], Rdns: m[4], Icon: m[2] != "", Disabled: m[1] != ""})
	}
	return out
}

// TestVerificationPage_BrowserDeclined: with several wallets, the chosen
// one declines: the page says so, the buttons are usable again (with the
// wallet that announced itself meanwhile), and no other wallet was asked.
func TestVerificationPage_BrowserDeclined(t *testing.T) {
	chromium := findChromium(t)
	v := &onceVerifier{signingVerifier: signingVerifier{challenge: browserChallenge()}}
	base, log := browserServer(t, v, fmt.Sprintf(declineJS, core.ChecksumAddress(testAddress)))
	dom := dumpDOM(t, chromium, base+"/verify/"+testNonce)
	if diff := cmp.Diff([]string{"Beta eth_requestAccounts"}, log.Requests()); diff != "" {
		t.Errorf("wallet requests (-want +got):\n%s", diff)
	}
	if n := v.Posts(); n != 0 {
		t.Errorf("page posted %d signatures, want none", n)
	}
	want := []walletButton{
		{Name: "Alpha", Rdns: "org.example.uuid-a", Icon: true},
		{Name: "Beta", Rdns: "org.example.uuid-b", Icon: true},
		{Name: "Gamma", Rdns: "org.example.uuid-c", Icon: true},
	}
	if diff := cmp.Diff(want, walletButtons(dom)); diff != "" {
		t.Errorf("wallet buttons (-want +got), want all three enabled:\n%s", diff)
	}
	for _, want := range []string{"You declined the request in your wallet. Press the button to try again.", `<section id="choose">`} {
		if !strings.Contains(dom, want) {
			t.Errorf("DOM lacks %q:\n%s", want, dom)
		}
	}
	if strings.Contains(dom, `disabled=""`) {
		t.Errorf("a button is still disabled:\n%s", dom)
	}
}

// hostileJS announces: a wallet whose name is no string; one named 100
// emoji, whose errors' getters throw; one with an icon over 64 KiB and an
// rdns that is no string; one whose provider has no request; then nine
// more ("W4" to "W12"). The member chooses the emoji wallet.
var hostileJS = fmt.Sprintf(walletsJS, `
  function announce(info, provider) {
    function send() {
      window.dispatchEvent(new CustomEvent("eip6963:announceProvider", {detail: Object.freeze({info: info, provider: provider})}));
    }
    window.addEventListener("eip6963:requestProvider", send);
    send();
  }
  var hostile = {};
  Object.defineProperty(hostile, "code", {get: function () { throw new Error("code"); }});
  Object.defineProperty(hostile, "message", {get: function () { throw new Error("message"); }});
  wallet("uuid-1", {toString: function () { return "Object"; }}, icon, %[1]q);
  wallet("uuid-2", "\uD83D\uDE00".repeat(100), icon, %[1]q, async function () { throw hostile; });
  var big = "data:image/svg+xml," + encodeURIComponent("<svg xmlns='http://www.w3.org/2000/svg' width='8' height='8'><!--" + "x".repeat(70000) + "--></svg>");
  announce({uuid: "uuid-3", name: "Big icon", icon: big, rdns: {}}, {request: async function () { throw {code: 4001}; }});
  announce({uuid: "uuid-x", name: "No request", icon: icon, rdns: "org.example.x"}, {});
  for (var i = 4; i <= 12; i++) { wallet("uuid-" + i, "W" + i, icon, %[1]q); }
  window.addEventListener("load", function () { document.querySelectorAll("#wallets button")[1].click(); });`)

// TestVerificationPage_BrowserHostileWallets: what hostile announcements
// show: a name that is no string gets a generic one, a long name is cut
// at 40 characters (code points, never half an emoji), an icon over 64 KiB
// is dropped (the wallet kept), a provider without request is left out,
// ten wallets at most are listed, each with its rdns; an error whose
// getters throw still gives the member a message.
func TestVerificationPage_BrowserHostileWallets(t *testing.T) {
	chromium := findChromium(t)
	v := &onceVerifier{signingVerifier: signingVerifier{challenge: browserChallenge()}}
	base, log := browserServer(t, v, fmt.Sprintf(hostileJS, core.ChecksumAddress(testAddress)))
	dom := dumpDOM(t, chromium, base+"/verify/"+testNonce)
	emoji := strings.Repeat("\U0001F600", 40)
	want := []walletButton{
		{Name: "Wallet 1", Rdns: "org.example.uuid-1", Icon: true},
		{Name: emoji, Rdns: "org.example.uuid-2", Icon: true},
		{Name: "Big icon"},
	}
	for i := 4; i <= 10; i++ {
		want = append(want, walletButton{Name: fmt.Sprintf("W%d", i), Rdns: fmt.Sprintf("org.example.uuid-%d", i), Icon: true})
	}
	got := walletButtons(dom)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("wallet buttons (-want +got):\n%s", diff)
	}
	for _, b := range got {
		if !utf8.ValidString(b.Name) || strings.ContainsRune(b.Name, utf8.RuneError) {
			t.Errorf("wallet name %q is not whole characters", b.Name)
		}
	}
	if diff := cmp.Diff([]string{strings.Repeat("\U0001F600", 100) + " eth_requestAccounts"}, log.Requests()); diff != "" {
		t.Errorf("wallet requests (-want +got):\n%s", diff)
	}
	if want := "Your wallet could not sign: unknown error. Press the button to try again."; !strings.Contains(dom, want) {
		t.Errorf("DOM lacks %q:\n%s", want, dom)
	}
	if strings.Contains(dom, "No request") || strings.Contains(dom, "W11") || strings.Contains(dom, "xxxxxxxx") {
		t.Errorf("page lists a wallet without request, more than ten, or the large icon:\n%s", dom)
	}
}
