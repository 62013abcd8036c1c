//go:build unix

package web

import (
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/core"
)

// walletsJS defines wallet(uuid, name, icon, account, before): an EIP-6963
// wallet that records each request at /test-log, then awaits
// before(args) when given (which may throw for the wallet), answers,
// signs through /test-sign, and announces itself now and when asked; then
// runs body.
const walletsJS = `(function () {
  var icon = "data:image/svg+xml," + encodeURIComponent("<svg xmlns='http://www.w3.org/2000/svg' width='8' height='8'><rect width='8' height='8' fill='#f60'/></svg>");
  function wallet(uuid, name, icon, account, before) {
    var info = {uuid: uuid, name: name, icon: icon, rdns: "org.example." + uuid};
    var provider = {request: async function (args) {
      await fetch("/test-log", {method: "POST", body: JSON.stringify({wallet: name, method: args.method})});
      if (before) { await before(args); }
      if (args.method === "eth_requestAccounts") { return [account]; }
      if (args.method === "personal_sign") {
        const res = await fetch("/test-sign", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({params: args.params})});
        return (await res.json()).signature;
      }
      throw {code: 4200, message: "unsupported method " + args.method};
    }};
    function announce() {
      window.dispatchEvent(new CustomEvent("eip6963:announceProvider", {detail: Object.freeze({info: info, provider: provider})}));
    }
    window.addEventListener("eip6963:requestProvider", announce);
    announce();
  }
%s
})();
`

// severalWalletsJS announces "First" (for another account, %[1]q),
// "Second <b>Wallet</b>" (for the linked account, %[2]q), a repeat of
// First's uuid under another name, and "Third" with an icon that is no
// data: URI. Once the page has loaded, it writes the loaded icons' widths
// into the page and clicks the second wallet's button.
var severalWalletsJS = fmt.Sprintf(walletsJS, `
  wallet("uuid-1", "First", icon, %[1]q);
  wallet("uuid-2", "Second <b>Wallet</b>", icon, %[2]q);
  wallet("uuid-1", "Duplicate", icon, %[2]q);
  wallet("uuid-3", "Third", "https://wallet.invalid/icon.png", %[2]q);
  window.addEventListener("load", function () {
    var out = document.createElement("pre");
    out.id = "test-out";
    out.textContent = JSON.stringify(Array.from(document.querySelectorAll("#wallets img"), function (img) { return img.naturalWidth; }));
    document.body.appendChild(out);
    document.querySelectorAll("#wallets button")[1].click();
  });`)

// oneWalletJS announces one wallet, "Solo", for %[1]q, beside a
// window.ethereum that must not be used, and clicks the sign button once.
var oneWalletJS = fmt.Sprintf(walletsJS, `
  window.ethereum = {request: async function (args) {
    await fetch("/test-log", {method: "POST", body: JSON.stringify({wallet: "window.ethereum", method: args.method})});
    throw {code: 4001, message: "declined"};
  }};
  wallet("uuid-solo", "Solo", icon, %[1]q);
  window.addEventListener("load", function () { document.getElementById("sign").click(); });`)

// measureJS reports to /test-out what a phone's member sees once the page
// has loaded: the viewport's width, the page's layout and content widths,
// the heights of the buttons to tap, which ways to sign are shown and the
// wallet apps' links.
const measureJS = `window.addEventListener("load", function () {
  var shown = function (id) { var e = document.getElementById(id); return !!e && !e.hidden && e.getClientRects().length > 0; };
  var report = {
    innerWidth: window.innerWidth,
    clientWidth: document.documentElement.clientWidth,
    scrollWidth: document.documentElement.scrollWidth,
    heights: Array.from(document.querySelectorAll("#apps a.button, #copy"), function (b) { return b.getBoundingClientRect().height; }),
    apps: shown("apps"),
    scan: shown("scan"),
    links: Array.from(document.querySelectorAll("#apps a.button"), function (a) { return {name: a.textContent, href: a.getAttribute("href")}; }),
  };
  fetch("/test-out", {method: "POST", body: JSON.stringify(report)});
});
`

// testOut decodes the JSON a test script wrote into the page.
func testOut(t *testing.T, dom string, v any) {
	t.Helper()
	m := regexp.MustCompile(`<pre id="test-out">([^<]*)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the test script wrote nothing into the page:\n%s", dom)
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), v); err != nil {
		t.Fatalf("test output %q: %v", m[1], err)
	}
}

func browserChallenge() core.Challenge {
	c := testChallenge()
	c.ExpiresAt = time.Now().Add(time.Hour) // the handler's clock is real
	c.Message = "poapbot wants you to prove you own " + testAddress + ".\n\nNonce: " + testNonce
	return c
}

// TestVerificationPage_BrowserSeveralWallets: with several wallets
// announced (EIP-6963), the page lists each once, names escaped, icons only
// from data: URIs, and verifies with the one chosen; the others are never
// asked anything.
func TestVerificationPage_BrowserSeveralWallets(t *testing.T) {
	chromium := findChromium(t)
	v := &signingVerifier{challenge: browserChallenge()}
	other := "0x00000000000000000000000000000000000000aa"
	base, log := browserServer(t, v, fmt.Sprintf(severalWalletsJS, other, core.ChecksumAddress(testAddress)))
	dom := dumpDOM(t, chromium, base+"/verify/"+testNonce)

	if diff := cmp.Diff([]string{"Second <b>Wallet</b> eth_requestAccounts", "Second <b>Wallet</b> personal_sign"}, log.Requests()); diff != "" {
		t.Errorf("wallet requests (-want +got), want only the chosen wallet asked:\n%s", diff)
	}
	if diff := cmp.Diff([]string{testAddress}, v.Recovered()); diff != "" {
		t.Errorf("addresses the signatures recovered to (-want +got):\n%s", diff)
	}
	names := regexp.MustCompile(`<span>([^<]*)</span>`).FindAllStringSubmatch(dom, -1)
	var got []string
	for _, n := range names {
		got = append(got, n[1])
	}
	if diff := cmp.Diff([]string{"First", "Second &lt;b&gt;Wallet&lt;/b&gt;", "Third"}, got); diff != "" {
		t.Errorf("wallets listed (-want +got):\n%s", diff)
	}
	if n := strings.Count(dom, `<img alt="" src="data:image/svg+xml,`); n != 2 || strings.Contains(dom, "wallet.invalid") {
		t.Errorf("page shows %d data: icons, want 2 and no other:\n%s", n, dom)
	}
	var widths []int
	testOut(t, dom, &widths)
	if diff := cmp.Diff([]int{8, 8}, widths); diff != "" {
		t.Errorf("loaded icon widths (-want +got), want both loaded (the CSP admits data: images):\n%s", diff)
	}
	for _, want := range []string{"Verified. You can close this page", `<section id="no-wallet" hidden="">`} {
		if !strings.Contains(dom, want) {
			t.Errorf("DOM lacks %q:\n%s", want, dom)
		}
	}
}

// TestVerificationPage_BrowserOneWallet: with one wallet announced, the
// page signs with it in one click, before window.ethereum.
func TestVerificationPage_BrowserOneWallet(t *testing.T) {
	chromium := findChromium(t)
	v := &signingVerifier{challenge: browserChallenge()}
	base, log := browserServer(t, v, fmt.Sprintf(oneWalletJS, core.ChecksumAddress(testAddress)))
	dom := dumpDOM(t, chromium, base+"/verify/"+testNonce)
	if diff := cmp.Diff([]string{"Solo eth_requestAccounts", "Solo personal_sign"}, log.Requests()); diff != "" {
		t.Errorf("wallet requests (-want +got):\n%s", diff)
	}
	for _, want := range []string{">Sign with Solo</button>", "Verified. You can close this page", `<section id="choose" hidden="">`} {
		if !strings.Contains(dom, want) {
			t.Errorf("DOM lacks %q:\n%s", want, dom)
		}
	}
}

// TestVerificationPage_BrowserPhone: on a phone without a wallet, 360 px
// wide, the page offers the wallet apps, each link opening exactly this
// page's address; nothing overflows sideways and every button is at least
// 44 px tall.
func TestVerificationPage_BrowserPhone(t *testing.T) {
	chromium := findChromium(t)
	for _, tt := range []struct{ name, agent string }{
		{"Android", "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36"},
		{"iPhone", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := &signingVerifier{challenge: browserChallenge()}
			base, log := browserServer(t, v, measureJS)
			page := base + "/verify/" + testNonce
			dumpDOM(t, chromium, base+"/test-frame/"+testNonce, "--window-size=360,800", "--user-agent="+tt.agent)
			var m struct {
				InnerWidth, ClientWidth, ScrollWidth int
				Heights                              []float64
				Apps, Scan                           bool
				Links                                []struct{ Name, Href string }
			}
			t.Logf("report: %s", log.Out())
			if err := json.Unmarshal(log.Out(), &m); err != nil {
				t.Fatalf("the page's report %q: %v", log.Out(), err)
			}
			if !m.Apps || m.Scan {
				t.Errorf("wallet apps shown %v, QR code shown %v, want the apps and no QR code on a phone", m.Apps, m.Scan)
			}
			if len(m.Links) != len(walletApps) {
				t.Errorf("page has %d wallet app links, want %d: %+v", len(m.Links), len(walletApps), m.Links)
			}
			for _, l := range m.Links {
				if got := appTarget(t, l.Name, l.Href); got != page {
					t.Errorf("%s link %q opens %q, want this page, %q", l.Name, l.Href, got, page)
				}
			}
			if m.InnerWidth != 360 || m.ScrollWidth > m.ClientWidth {
				t.Errorf("page %d px wide in a layout of %d (viewport %d), want no overflow in 360", m.ScrollWidth, m.ClientWidth, m.InnerWidth)
			}
			if len(m.Heights) != len(walletApps)+1 {
				t.Errorf("measured %d buttons, want %d", len(m.Heights), len(walletApps)+1)
			}
			for i, h := range m.Heights {
				if h < 44 {
					t.Errorf("button %d is %.1f px tall, want at least 44", i, h)
				}
			}
		})
	}
}

// TestVerificationPage_BrowserDesktop: on a desktop without a wallet, the
// page shows a QR code that decodes to its own address.
func TestVerificationPage_BrowserDesktop(t *testing.T) {
	chromium := findChromium(t)
	v := &signingVerifier{challenge: browserChallenge()}
	base, _ := browserServer(t, v, "")
	page := base + "/verify/" + testNonce
	dom := dumpDOM(t, chromium, page, "--window-size=1280,900")
	for _, want := range []string{`<div id="scan">`, `<div id="apps" hidden="">`, "Scan with your wallet app's scanner"} {
		if !strings.Contains(dom, want) {
			t.Errorf("DOM lacks %q:\n%s", want, dom)
		}
	}
	if got := decodeQRSVG(t, dom); got != page {
		t.Errorf("QR code on the page = %q, want its address %q", got, page)
	}
}
