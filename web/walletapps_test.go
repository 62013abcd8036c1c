package web

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// appTarget returns the page address a wallet app's link opens, parsed back
// out of the link by the format each wallet documents.
func appTarget(t *testing.T, name, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil || u.Scheme != "https" {
		t.Fatalf("%s link %q: %v, want an https universal link", name, link, err)
	}
	switch u.Host + u.Path {
	case "link.metamask.io" + u.Path:
		if !strings.HasPrefix(u.Path, "/dapp/") || u.RawQuery != "" {
			break
		}
		// The address goes in as it is (not escaped), without https://.
		target := strings.TrimPrefix(link, "https://link.metamask.io/dapp/")
		if !strings.HasPrefix(target, "http://") {
			target = "https://" + target
		}
		return target
	case "go.cb-w.com/dapp":
		return u.Query().Get("cb_url")
	case "link.trustwallet.com/open_url":
		if u.Query().Get("coin_id") != "60" {
			t.Errorf("%s link %q: coin_id = %q, want 60 (Ethereum)", name, link, u.Query().Get("coin_id"))
		}
		return u.Query().Get("url")
	case "web3.okx.com/download":
		deep, err := url.Parse(u.Query().Get("deeplink"))
		if err != nil || deep.Scheme != "okx" || deep.Host != "wallet" || deep.Path != "/dapp/url" {
			t.Fatalf("%s link %q: deeplink %q (%v), want okx://wallet/dapp/url?dappUrl=...", name, link, deep, err)
		}
		return deep.Query().Get("dappUrl")
	case "phantom.app" + u.Path:
		target, ok := strings.CutPrefix(u.EscapedPath(), "/ul/browse/")
		if !ok || strings.Contains(target, "/") {
			break
		}
		page, err := url.QueryUnescape(target)
		if err != nil {
			t.Fatalf("%s link %q: %v", name, link, err)
		}
		if p, err := url.Parse(page); err != nil || u.Query().Get("ref") != p.Scheme+"://"+p.Host {
			t.Errorf("%s link %q: ref = %q, want the page's origin", name, link, u.Query().Get("ref"))
		}
		return page
	}
	t.Fatalf("%s link %q: not a known universal link", name, link)
	return ""
}

func TestAppLinks(t *testing.T) {
	for _, page := range []string{
		"https://bot.example.org/verify/00112233445566778899aabbccddeeff",
		"https://bot.example.org:8443/poap/verify/0011", // PUBLIC_URL with a path
		"http://127.0.0.1:8080/verify/00112233445566778899aabbccddeeff",
	} {
		links := appLinks(page)
		var names []string
		for _, l := range links {
			names = append(names, l.Name)
			if got := appTarget(t, l.Name, l.URL); got != page {
				t.Errorf("%s link %q opens %q, want %q", l.Name, l.URL, got, page)
			}
		}
		if want := "MetaMask,Coinbase Wallet,Trust Wallet,OKX Wallet,Phantom"; strings.Join(names, ",") != want {
			t.Errorf("appLinks() wallets = %q, want %q", names, want)
		}
	}
	if got, want := appLinks("https://bot.example.org/verify/ab")[0].URL, "https://link.metamask.io/dapp/bot.example.org/verify/ab"; got != want {
		t.Errorf("MetaMask link = %q, want %q (the documented form)", got, want)
	}
}

// TestAppLinks_Documented: each wallet's link for a fixed page address,
// written by hand from the format its documentation gives (cited in
// walletapps.go), not by the encoder's own steps.
func TestAppLinks_Documented(t *testing.T) {
	const page = "https://bot.example.org/verify/00112233445566778899aabbccddeeff"
	want := map[string]string{
		// link.metamask.io/dapp/{dappUrl}: the address as it is, without https://.
		"MetaMask": "https://link.metamask.io/dapp/bot.example.org/verify/00112233445566778899aabbccddeeff",
		// go.cb-w.com/dapp?cb_url=[YOUR_URL], percent-encoded.
		"Coinbase Wallet": "https://go.cb-w.com/dapp?cb_url=https%3A%2F%2Fbot.example.org%2Fverify%2F00112233445566778899aabbccddeeff",
		// link.trustwallet.com/open_url?coin_id=60&url=..., percent-encoded.
		"Trust Wallet": "https://link.trustwallet.com/open_url?coin_id=60&url=https%3A%2F%2Fbot.example.org%2Fverify%2F00112233445566778899aabbccddeeff",
		// "okx://wallet/dapp/url?dappUrl=" + encodeURIComponent(dappUrl),
		// then "https://web3.okx.com/download?deeplink=" +
		// encodeURIComponent(deepLink): the page's address encoded twice.
		"OKX Wallet": "https://web3.okx.com/download?deeplink=okx%3A%2F%2Fwallet%2Fdapp%2Furl%3FdappUrl%3Dhttps%253A%252F%252Fbot.example.org%252Fverify%252F00112233445566778899aabbccddeeff",
		// phantom.app/ul/browse/<url>?ref=<ref>, both URL-encoded, as
		// the documentation's example
		// (browse/https%3A%2F%2Fmagiceden.io%2F...?ref=https%3A%2F%2Fmagiceden.io).
		"Phantom": "https://phantom.app/ul/browse/https%3A%2F%2Fbot.example.org%2Fverify%2F00112233445566778899aabbccddeeff?ref=https%3A%2F%2Fbot.example.org",
	}
	got := make(map[string]string)
	for _, l := range appLinks(page) {
		got[l.Name] = l.URL
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("appLinks(%q) (-want +got):\n%s", page, diff)
	}
}
