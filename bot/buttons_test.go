package bot

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/poap/sandbox"
)

// in runs line as who in place, with the rights mod gives.
func (e *dropEnv) in(t *testing.T, place, who string, mod bool, line string) (*Request, Reply) {
	t.Helper()
	req := &Request{Place: core.Place{Platform: core.Console, ExternalID: place, Name: place}, Caller: Caller{ExternalID: who, Name: who, ManagesDrops: mod}}
	reply, ok := e.b.HandleLine(context.Background(), req, line, "")
	if !ok {
		t.Fatalf("HandleLine(%q) says not a command", line)
	}
	return req, reply
}

// press presses the button of reply labelled label as who in place.
func (e *dropEnv) press(t *testing.T, place, who string, r Reply, label string) (Reply, bool) {
	t.Helper()
	buttons := r.Buttons
	if r.Post != nil {
		buttons = append(buttons, r.Post.Buttons...)
	}
	for _, b := range buttons {
		if b.Label == label {
			req := &Request{Place: core.Place{Platform: core.Console, ExternalID: place}, Caller: Caller{ExternalID: who, Name: who}}
			return e.b.Press(context.Background(), req, b.Action)
		}
	}
	t.Fatalf("reply has no button %q: %+v", label, buttons)
	return Reply{}, false
}

// TestBot_Press: a press runs the stored line of a button the bot made,
// for the member and in the place it was made for, and nothing else.
func TestBot_Press(t *testing.T) {
	e := newDropEnv(t, coretest.NewMemStore())
	_, page1 := e.in(t, "guild", "alice", false, "/poaps "+sandbox.DemoWallet)
	if len(page1.Buttons) != 1 || page1.Buttons[0].Action == "" {
		t.Fatalf("page 1 buttons = %+v, want Next with its stored action", page1.Buttons)
	}
	t.Run("OK", func(t *testing.T) {
		page2, refused := e.press(t, "guild", "alice", page1, "Next")
		if refused || !strings.Contains(page2.Text, "(page 2 of 2)") {
			t.Errorf("Press(Next) = %q, refused %v; want page 2", page2.Text, refused)
		}
	})
	t.Run("ErrButtonNotYours", func(t *testing.T) {
		r, refused := e.press(t, "guild", "bob", page1, "Next")
		if !refused || !strings.Contains(r.Text, "belongs to the member who ran the command") || !r.Personal {
			t.Errorf("Press(another's Next) = %q, refused %v; want a personal refusal", r.Text, refused)
		}
	})
	t.Run("ErrButtonUnknown", func(t *testing.T) {
		for name, tt := range map[string]struct{ place, id string }{
			"OtherPlace": {"other-guild", page1.Buttons[0].Action},
			"ALine":      {"guild", "forget"},
			"NeverMade":  {"guild", strings.Repeat("A", core.ButtonIDLen)},
		} {
			req := &Request{Place: core.Place{Platform: core.Console, ExternalID: tt.place}, Caller: Caller{ExternalID: "alice"}}
			r, refused := e.b.Press(context.Background(), req, tt.id)
			if !refused || !strings.Contains(r.Text, "I did not make this button") {
				t.Errorf("%s: Press(%q) = %q, refused %v; want a refusal", name, tt.id, r.Text, refused)
			}
		}
	})
}

// TestBot_FollowLink: a deep link starts only a post's button whose
// command a link may start (a claim), for anyone in its place.
func TestBot_FollowLink(t *testing.T) {
	e := newDropEnv(t, coretest.NewMemStore())
	e.mod(t, fmt.Sprintf("/drop add %d %s delivery:link", sandbox.DemoLinksDropID, sandbox.DemoEditCode))
	_, dist := e.in(t, "guild", "mod", true, fmt.Sprintf("/distribute %d", sandbox.DemoLinksDropID))
	if dist.Post == nil || len(dist.Post.Buttons) != 1 {
		t.Fatalf("/distribute = %+v, want a post with a Claim button", dist)
	}
	claim := dist.Post.Buttons[0].Action
	member := func(who string) *Request {
		return &Request{Place: core.Place{Platform: core.Console, ExternalID: "guild"}, Caller: Caller{ExternalID: who, Name: who}}
	}
	place, err := e.b.LinkPlace(t.Context(), core.Console, claim)
	if err != nil || place != "guild" {
		t.Fatalf("LinkPlace(claim) = %q, %v; want guild", place, err)
	}
	r, refused := e.b.FollowLink(t.Context(), member("carol"), claim)
	if refused || !strings.Contains(r.Text, "/mint/") || r.Post != nil {
		t.Errorf("FollowLink(claim) = %+v, refused %v; want carol's mint link", r, refused)
	}

	// A reply's button (made for one member) and an action whose command
	// a link may not start are refused, and run nothing.
	_, page1 := e.in(t, "guild", "carol", false, "/poaps "+sandbox.DemoWallet)
	forget, err := e.services.Buttons.Make(t.Context(), core.ButtonAction{Platform: core.Console, Place: "guild", Line: "/forget"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for name, id := range map[string]string{"ReplyButton": page1.Buttons[0].Action, "Forget": forget.ID} {
		if _, err := e.b.LinkPlace(t.Context(), core.Console, id); err == nil {
			t.Errorf("%s: LinkPlace = nil error, want a refusal", name)
		}
		r, refused := e.b.FollowLink(t.Context(), member("carol"), id)
		if !refused || !strings.Contains(r.Text, "I did not make this button") {
			t.Errorf("%s: FollowLink = %q, refused %v; want a refusal", name, r.Text, refused)
		}
	}
}

// TestBot_Anonymous: an anonymous administrator runs the moderator
// commands whose answers the group may read, answered in the group, with
// no codeword shown; every other command is refused, and runs nothing.
func TestBot_Anonymous(t *testing.T) {
	e := newDropEnv(t, coretest.NewMemStore())
	anon := func(line string) Reply {
		t.Helper()
		req := &Request{Place: core.Place{Platform: core.Console, ExternalID: "guild"},
			Caller: Caller{ExternalID: "guild", Name: "anonymous administrator", ManagesDrops: true, ManagesRoles: true, Anonymous: true}}
		reply, _ := e.b.HandleLine(context.Background(), req, line, "")
		if reply.Personal {
			t.Errorf("%s: the answer is personal, want it in the group", line)
		}
		return reply
	}
	added := anon(fmt.Sprintf("/drop add %d %s delivery:link codeword:sesame", sandbox.DemoLinksDropID, sandbox.DemoEditCode))
	if !strings.Contains(added.Text, "is set up here") || strings.Contains(added.Text, "sesame") || !strings.Contains(added.Text, "Codeword: required") {
		t.Errorf("/drop add = %q, want the drop set up, its codeword required and not shown", added.Text)
	}
	dist := anon(fmt.Sprintf("/distribute %d", sandbox.DemoLinksDropID))
	if dist.Post == nil {
		t.Fatalf("/distribute = %+v, want a post", dist)
	}
	for _, line := range []string{
		fmt.Sprintf("/drop info %d", sandbox.DemoLinksDropID), fmt.Sprintf("/drop export %d", sandbox.DemoLinksDropID),
		"/link " + sandbox.DemoWallet, "/forget", fmt.Sprintf("/claim %d sesame", sandbox.DemoLinksDropID), "/wallet", "/why",
	} {
		r := anon(line)
		if !strings.Contains(r.Text, "anonymous administrator") || r.File != nil {
			t.Errorf("%s = %q, want a refusal that says to use their own account", line, r.Text)
		}
	}
	if info := e.mod(t, fmt.Sprintf("/drop info %d", sandbox.DemoLinksDropID)); !strings.Contains(info.Text, "sesame") {
		t.Errorf("/drop info by a moderator = %q, want the codeword shown in private", info.Text)
	}
}
