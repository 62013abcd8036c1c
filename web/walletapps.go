package web

import (
	"net/url"
	"strings"
)

// walletApp is a mobile wallet whose in-app browser a universal link opens
// at a given address: there the wallet injects its provider, and the page
// verifies in one tap.
type walletApp struct {
	Name string
	// Link returns the universal link that opens page (an absolute
	// http(s) address) in the wallet's in-app browser.
	Link func(page string) string
}

// walletApps are the wallets the page offers on a phone without an
// injected wallet, each with its documented universal link. Rainbow and
// Zerion document no link that opens an address in their browser (only
// WalletConnect pairing links), so they are not offered.
var walletApps = []walletApp{
	// https://docs.metamask.io/sdk/guides/use-deeplinks ("Open a dapp
	// inside the in-app browser"): https://link.metamask.io/dapp/{dappUrl},
	// the address without its scheme and not escaped (the example is
	// link.metamask.io/dapp/app.uniswap.org; an escaped address opens a
	// blank tab). MetaMask opens it over https, so an http address (a
	// local test bot) keeps its scheme.
	{Name: "MetaMask", Link: func(page string) string {
		return "https://link.metamask.io/dapp/" + strings.TrimPrefix(page, "https://")
	}},
	// https://docs.cdp.coinbase.com/coinbase-wallet/developer-guidance/mobile-dapp-integration
	// ("Dapp browser"): https://go.cb-w.com/dapp?cb_url=[YOUR_URL],
	// percent-encoded.
	{Name: "Coinbase Wallet", Link: func(page string) string {
		return "https://go.cb-w.com/dapp?cb_url=" + url.QueryEscape(page)
	}},
	// https://developer.trustwallet.com/developer/develop-for-trust/deeplinking
	// ("DApp Browser"): https://link.trustwallet.com/open_url?coin_id=60&url=...,
	// coin_id the SLIP-44 index (60: Ethereum); the url percent-encoded.
	{Name: "Trust Wallet", Link: func(page string) string {
		return "https://link.trustwallet.com/open_url?coin_id=60&url=" + url.QueryEscape(page)
	}},
	// https://web3.okx.com/build/docs/waas/app-universal-link: the deep link
	// okx://wallet/dapp/url?dappUrl=<encoded address>, itself encoded into
	// https://web3.okx.com/download?deeplink=..., the universal link that
	// opens the app (or its download page).
	{Name: "OKX Wallet", Link: func(page string) string {
		deep := "okx://wallet/dapp/url?dappUrl=" + url.QueryEscape(page)
		return "https://web3.okx.com/download?deeplink=" + url.QueryEscape(deep)
	}},
	// https://docs.phantom.com/phantom-deeplinks/other-methods/browse:
	// https://phantom.app/ul/browse/<url>?ref=<ref>, the address to open
	// and "the URL of the requesting app" (here the page's own origin),
	// both URL-encoded. Phantom's app holds Ethereum (and Base, Polygon)
	// accounts beside Solana ones, and its browser injects an EVM provider.
	{Name: "Phantom", Link: func(page string) string {
		ref := page
		if u, err := url.Parse(page); err == nil {
			ref = u.Scheme + "://" + u.Host
		}
		return "https://phantom.app/ul/browse/" + url.QueryEscape(page) + "?ref=" + url.QueryEscape(ref)
	}},
}

// appLink is a wallet app's button on the page.
type appLink struct {
	Name string
	URL  string
}

// appLinks returns the button of every wallet app for page.
func appLinks(page string) []appLink {
	out := make([]appLink, len(walletApps))
	for i, w := range walletApps {
		out[i] = appLink{Name: w.Name, URL: w.Link(page)}
	}
	return out
}
