package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/sandbox"
)

// TestRefusal_WebsiteConsole: POAP's refusals of /drop website are told as
// what they are, never as POAP not answering, and store nothing: a drop
// that has a website claim already (named, with how to use it), the same
// request twice, and a claim name another drop's claim has.
func TestRefusal_WebsiteConsole(t *testing.T) {
	t.Parallel()
	s := startMainWith(t, map[string]string{}, true)
	sb := s.m.SandboxAPI
	demo := sandbox.DemoLinksDropID
	noAnswer := func(out string) {
		t.Helper()
		if strings.Contains(out, "not answering") || strings.Contains(out, "did not answer") {
			t.Errorf("a refusal told as POAP not answering:\n%s", out)
		}
	}
	consoleAnswer(t, s, fmt.Sprintf("/drop add %d %s delivery:link", demo, sandbox.DemoEditCode), "is set up here")
	out := consoleAnswer(t, s, fmt.Sprintf("/drop website %d another-site", demo), "nothing was changed")
	noAnswer(out)
	for _, want := range []string{"already has the website claim sandbox-demo-website", "/drop remove 197001",
		"delivery:website website:sandbox-demo-website"} {
		if !strings.Contains(out, want) {
			t.Errorf("/drop website on a drop with a website claim = %q, want %q", out, want)
		}
	}
	tenants, err := s.m.DB.DropPlaces(t.Context(), core.Console, demo)
	if err != nil || len(tenants) != 1 {
		t.Fatalf("DropPlaces() = %+v, %v, want the console", tenants, err)
	}
	if d, err := s.m.DB.DropByEvent(t.Context(), tenants[0].ID, demo); err != nil || d.Website != "" || d.Method != core.ClaimLink {
		t.Errorf("after the refusal the drop is %+v, %v, want it unchanged: mint links, no website", d, err)
	}

	web, code := sb.CreateDrop(sandbox.Drop{Name: "Refusal Website"}, 0)
	consoleAnswer(t, s, fmt.Sprintf("/drop add %d %s delivery:link", web.ID, code), "is set up here")
	consoleAnswer(t, s, fmt.Sprintf("/drop website %d refusal-site", web.ID), "Asked POAP for the website claim")
	sb.ApproveRequests(web.ID)
	for _, name := range []string{"refusal-site", "refusal-site-2"} {
		out := consoleAnswer(t, s, fmt.Sprintf("/drop website %d %s", web.ID, name), "nothing was changed")
		noAnswer(out)
		if !strings.Contains(out, "already has its website claim refusal-site") || !strings.Contains(out, fmt.Sprintf("/drop info %d", web.ID)) {
			t.Errorf("/drop website %s again = %q, want the claim it has and /drop info", name, out)
		}
	}

	other, otherCode := sb.CreateDrop(sandbox.Drop{Name: "Refusal Other"}, 0)
	consoleAnswer(t, s, fmt.Sprintf("/drop add %d %s delivery:link", other.ID, otherCode), "is set up here")
	noAnswer(consoleAnswer(t, s, fmt.Sprintf("/drop website %d refusal-site", other.ID), "refusal-site is taken by another claim"))
}
