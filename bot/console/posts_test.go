package console

import (
	"strings"
	"testing"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

// claimMessage is a claim message as /distribute renders it.
func claimMessage(count string) bot.Post {
	return bot.Post{
		Text:    "**Party**\nPress Claim to get your POAP.\n\n**" + count + "** of 5 links left",
		Buttons: []bot.Button{{Label: "Claim", Command: "/claim 42", Action: "a1"}, {Label: "Site", URL: "https://example.org"}},
		Subject: "drop:42",
	}
}

func TestConsole_Publish(t *testing.T) {
	var out strings.Builder
	b := bot.New(bot.Services(coretest.NewServices(coretest.Deps{})), bot.Options{})
	c := New(strings.NewReader(""), &out, false)
	c.publish(t.Context(), b, claimMessage("4"))
	want := "--- posted here ---\nParty\nPress Claim to get your POAP.\n\n4 of 5 links left\n" +
		"  [Claim] type: /claim 42\n  [Site] https://example.org\n"
	if got := out.String(); !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "---\n") {
		t.Errorf("publish printed:\n%s\nwant it to start with:\n%s", got, want)
	}
	// The fake has no drop 42: the post is out but not recorded.
	if !strings.Contains(out.String(), "will not follow the claims") {
		t.Errorf("an unrecorded post does not say so:\n%s", out.String())
	}
}

func TestConsole_EditPost(t *testing.T) {
	var out strings.Builder
	c := New(strings.NewReader(""), &out, false)
	ref := bot.PostRef{Platform: core.Console, Place: place, Channel: place, Message: "post-1"}
	if err := c.EditPost(t.Context(), ref, claimMessage("3")); err != nil {
		t.Fatal(err)
	}
	ref.Channel = "general"
	if err := c.Notify(t.Context(), ref, "Only **1** link left of `Party`."); err != nil {
		t.Fatal(err)
	}
	want := "[post here updated] 3 of 5 links left\n  [Claim] type: /claim 42\n  [Site] https://example.org\n" +
		"[notice in general] Only 1 link left of Party.\n"
	if got := out.String(); got != want {
		t.Errorf("EditPost and Notify printed:\n%s\nwant:\n%s", got, want)
	}
}
