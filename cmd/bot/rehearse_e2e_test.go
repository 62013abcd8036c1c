package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/poap/sandbox"
)

// openPage requests a sandbox page as a member's browser does (no key, no
// token), posting form when it is not nil, and returns the status and the
// page.
func openPage(t *testing.T, link string, form url.Values) (int, string) {
	t.Helper()
	var resp *http.Response
	var err error
	if form != nil {
		resp, err = http.PostForm(link, form)
	} else {
		resp, err = http.Get(link)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// deliveryPageRE finds a delivery page's address in a reply.
var deliveryPageRE = regexp.MustCompile(`https?://\S+/delivery/[A-Za-z0-9_-]+`)

// TestRehearsal_Console: with -sandbox -console a moderator rehearses a
// drop without dead ends. /distribute prints the claim message with its
// Claim button line, and its count's change after a claim; the member's
// mint link opens the sandbox's page, whose form mints to an address: the
// POAP shows in /poaps and the link reads as claimed. A delivery's page
// mints to an address on its list and refuses one that is not. /drop info
// of a website drop shows no mint-link stock.
func TestRehearsal_Console(t *testing.T) {
	t.Parallel()
	for name, dbURL := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startMainTuned(t, map[string]string{"DATABASE_URL": dbURL}, true, func(m *Main) { m.PostInterval = 50 * time.Millisecond })
			id := sandbox.DemoLinksDropID
			consoleAnswer(t, s, fmt.Sprintf("/drop add %d %s delivery:link", id, sandbox.DemoEditCode), "is set up here")
			posted := consoleAnswer(t, s, fmt.Sprintf("/distribute %d", id), "Posted the claim message")
			for _, want := range []string{"--- posted here ---", "Sandbox Demo Drop", "50 of 55 links left", fmt.Sprintf("  [Claim] type: /claim %d\n", id)} {
				if !strings.Contains(posted, want) {
					t.Errorf("/distribute printed no %q:\n%s", want, posted)
				}
			}

			consoleAnswer(t, s, "/as alice", "You are now alice")
			claimed := consoleAnswer(t, s, fmt.Sprintf("/claim %d", id), "/mint/")
			waitOutput(t, s, "[post here updated] 49 of 55 links left")
			link := mintLinkRE.FindString(claimed)
			hash := link[strings.LastIndex(link, "/")+1:]
			if status, page := openPage(t, link, nil); status != http.StatusOK || !strings.Contains(page, "Sandbox Demo Drop") || !strings.Contains(page, "<form") {
				t.Fatalf("GET %s = %d, want the drop and a form:\n%s", link, status, page)
			}
			wallet := coretest.Address(memberKey(30))
			if status, page := openPage(t, link, url.Values{"address": {wallet}}); status != http.StatusOK || !strings.Contains(page, "Minted") {
				t.Fatalf("POST %s = %d, want minted:\n%s", link, status, page)
			}
			consoleAnswer(t, s, "/poaps "+wallet, "Sandbox Demo Drop")
			if !s.m.SandboxAPI.LinkClaimed(hash) {
				t.Errorf("link %s is not claimed after the page's mint", hash)
			}
			if status, page := openPage(t, link, url.Values{"address": {sandbox.EmptyWallet}}); status != http.StatusGone || !strings.Contains(page, "used already") {
				t.Errorf("second POST %s = %d, want 410 used already:\n%s", link, status, page)
			}

			rehearseDeliveryPage(t, s)
			rehearseWebsiteInfo(t, s)
		})
	}
}

// rehearseDeliveryPage has alice verify a wallet and the moderator create
// a delivery of a new drop to every verified member; on the delivery's
// page, alice's address mints and bob's, not on the list, is refused.
func rehearseDeliveryPage(t *testing.T, s *session) {
	t.Helper()
	sb := s.m.SandboxAPI
	alice, bob := memberKey(31), memberKey(32)
	linked := consoleAnswer(t, s, "/link "+coretest.Address(alice), "Signing is free")
	consoleAnswer(t, s, "/verify "+coretest.Sign(alice, challengeIn(t, linked)), "Verified")
	consoleAnswer(t, s, "/as console", "the moderator")
	drop, code := sb.CreateDrop(sandbox.Drop{Name: "Console Delivery"}, 0)
	consoleAnswer(t, s, fmt.Sprintf("/drop add %d %s", drop.ID, code), "is set up here")
	draft := consoleAnswer(t, s, fmt.Sprintf("/drop deliver %d role:everyone", drop.ID), "[Create the delivery] type: ")
	line := strings.TrimSpace(draft[strings.Index(draft, "type: ")+len("type: "):])
	line = strings.SplitN(line, "\n", 2)[0]
	created := consoleAnswer(t, s, line, "Delivery created")
	page := deliveryPageRE.FindString(created)
	if status, body := openPage(t, page, nil); status != http.StatusOK || !strings.Contains(body, "Console Delivery") || !strings.Contains(body, "<form") {
		t.Fatalf("GET %s = %d, want the delivery's page with a form:\n%s", page, status, body)
	}
	if status, body := openPage(t, page, url.Values{"address": {coretest.Address(bob)}}); status != http.StatusForbidden || !strings.Contains(body, "is not on this delivery") {
		t.Errorf("POST %s with an address not listed = %d, want 403 not on the list:\n%s", page, status, body)
	}
	if status, body := openPage(t, page, url.Values{"address": {coretest.Address(alice)}}); status != http.StatusOK || !strings.Contains(body, "minted the POAP of Console Delivery") {
		t.Errorf("POST %s with alice's address = %d, want minted:\n%s", page, status, body)
	}
	holders := sb.Holders(drop.ID)
	if len(holders) != 1 || !strings.EqualFold(holders[0], coretest.Address(alice)) {
		t.Errorf("holders of the delivered drop = %v, want alice's address only", holders)
	}
}

// rehearseWebsiteInfo sets a drop up with a website claim: /drop info
// shows the website claim and no mint-link stock.
func rehearseWebsiteInfo(t *testing.T, s *session) {
	t.Helper()
	web, code := s.m.SandboxAPI.CreateDrop(sandbox.Drop{Name: "Console Website"}, 3)
	consoleAnswer(t, s, fmt.Sprintf("/drop add %d %s delivery:link", web.ID, code), "is set up here")
	consoleAnswer(t, s, fmt.Sprintf("/drop website %d console-site count:5", web.ID), "Asked POAP for the website claim")
	info := consoleAnswer(t, s, fmt.Sprintf("/drop info %d", web.ID), "Website claim console-site")
	if strings.Contains(info, "Mint links:") || strings.Contains(info, "available") {
		t.Errorf("/drop info of a website drop shows mint-link stock:\n%s", info)
	}
}
