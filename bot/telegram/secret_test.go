package telegram

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
)

// TestAdapter_DropAddInGroup: a /drop add typed in a group, which carries
// the edit code, or any moderator command with a six-digit word where no
// drop id goes, is deleted at once and answered in the private chat; when
// it cannot be deleted, the answer says to delete it by hand.
func TestAdapter_DropAddInGroup(t *testing.T) {
	mod := alice
	add := func(event int) string {
		return fmt.Sprintf("/drop@TestBot add %d %s delivery:link", event, testEditCode)
	}
	tests := []struct {
		name        string
		from        telegramtest.User
		event       int
		line        string
		failDelete  bool
		wantReply   string
		wantDeleted bool
	}{
		{name: "Deleted", from: mod, event: 601, wantReply: "is set up here", wantDeleted: true},
		{name: "NotDeleted", from: mod, event: 602, failDelete: true, wantReply: "delete it yourself", wantDeleted: false},
		{name: "NotModerator", from: bob, event: 603, wantReply: "Only moderators", wantDeleted: true},
		{name: "CodeInAnotherCommand", from: mod, line: "/drop info 605 " + testEditCode, wantReply: "Too many words", wantDeleted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newDropsEnv(t)
			e.tg.SetAdmins(group.ID, mod.ID)
			if tt.failDelete {
				e.tg.Fail("deleteMessage", telegramtest.Failure{Code: 400, Description: "Bad Request: message can't be deleted"})
			}
			e.run(t)
			line := tt.line
			if line == "" {
				line = add(tt.event)
			}
			e.tg.SendText(group, tt.from, line)
			reply := e.waitMessage(t, telegramtest.To(tt.from.ID))
			if !strings.Contains(reply.Text, tt.wantReply) {
				t.Errorf("private reply = %q, want it to contain %q", reply.Text, tt.wantReply)
			}
			if tt.failDelete && !strings.Contains(reply.Text, tt.wantReply) {
				t.Errorf("private reply = %q, want the confirmation with the warning", reply.Text)
			}
			ms := e.stopped(t)
			calls := e.tg.Calls("deleteMessage")
			typed := e.tg.MemberMessages(group.ID)
			if len(calls) != 1 || len(typed) != 1 || calls[0].Params["chat_id"] != strconv.FormatInt(group.ID, 10) ||
				calls[0].Params["message_id"] != strconv.Itoa(typed[0].MessageID) {
				t.Fatalf("deleteMessage calls = %+v, want one of message %+v", calls, typed)
			}
			if typed[0].Deleted != tt.wantDeleted {
				t.Errorf("message deleted = %v, want %v", typed[0].Deleted, tt.wantDeleted)
			}
			for _, m := range ms {
				if m.ChatID == group.ID {
					t.Errorf("the bot wrote in the group: %s", m)
				}
				if strings.Contains(m.Text, testEditCode) {
					t.Errorf("a reply shows the edit code: %s", m)
				}
			}
			if strings.Contains(e.logs.String(), testEditCode) {
				t.Errorf("the logs show the edit code:\n%s", e.logs)
			}
		})
	}
}

// TestAdapter_DropAddInGroup_NeverStarted: a moderator who never opened
// the private chat is told in the group to open it, without the code.
func TestAdapter_DropAddInGroup_NeverStarted(t *testing.T) {
	e := newDropsEnv(t)
	e.tg.SetAdmins(group.ID, alice.ID)
	e.tg.NeverStarted(alice.ID)
	e.run(t)
	e.tg.SendText(group, alice, fmt.Sprintf("/drop add 604 %s", testEditCode))
	note := e.waitMessage(t, telegramtest.To(group.ID))
	if !strings.Contains(note.Text, "only answer you in private") || strings.Contains(note.Text, testEditCode) {
		t.Errorf("group note = %q, want the private-chat note without the code", note.Text)
	}
	e.stopped(t)
	if typed := e.tg.MemberMessages(group.ID); len(typed) != 1 || !typed[0].Deleted {
		t.Errorf("member messages = %+v, want the /drop add deleted", typed)
	}
}
