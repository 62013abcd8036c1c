package bot

import (
	"context"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

// TestHandle_NamesWithoutDirectionControls: the names a platform gives
// with a request lose their direction controls before anything reads
// them: the member's stored name, the challenge message and what the
// adapter reads back from the request are clean.
func TestHandle_NamesWithoutDirectionControls(t *testing.T) {
	e := newLinkEnv(t, migrated.SQLiteURL(t), Options{})
	req := &Request{Place: core.Place{Platform: core.Telegram, ExternalID: "4242", Name: "\u202Bthe group\u202C"}, Chat: Chat{Private: true},
		Caller: Caller{ExternalID: "4242", Name: "Ann\u202Egnp.exe\u2067\u200F"}}
	reply, ok := e.b.HandleLine(context.Background(), req, "/link "+coretest.TestAddress, "")
	if !ok {
		t.Fatal("HandleLine(/link) says not a command")
	}
	if msg := message(t, reply); !strings.Contains(msg, "Member: Anngnp.exe (4242)\n") {
		t.Errorf("challenge message lacks the cleaned name:\n%s", msg)
	}
	u, err := e.db.FindUser(t.Context(), core.Telegram, "4242")
	if err != nil || u.Name != "Anngnp.exe" {
		t.Errorf("stored user = %+v, %v; want the name Anngnp.exe", u, err)
	}
	if req.Caller.Name != "Anngnp.exe" || req.Place.Name != "the group" {
		t.Errorf("request names after Handle = %q, %q; want them cleaned", req.Caller.Name, req.Place.Name)
	}
	if strings.ContainsFunc(reply.Text, core.IsDirectionControl) {
		t.Errorf("reply holds a direction control: %q", reply.Text)
	}
}
