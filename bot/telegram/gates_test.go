package telegram

import (
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core"
)

var (
	place      = strconv.FormatInt(group.ID, 10)
	allRights  = telegramtest.BotRights{Status: "administrator", CanInvite: true, CanRestrict: true, CanDelete: true}
	groupGate  = core.GateTarget{ID: place, Name: group.Title, Kind: core.GateGroup}
	aliceID    = strconv.FormatInt(alice.ID, 10)
	channelID  = int64(-1009876543210)
	gateNotice = core.GateNotice{Kind: core.NoticeJoinPending, Gate: core.Gate{
		Platform: core.Telegram, Place: place, Target: groupGate, Drops: []core.GateDrop{{ID: 7, Name: "Berlin <3"}}, Mode: core.GateAny,
	}}
)

// gateEnv is a fake with the group registered and an adapter on it; the
// bot has rights in the group.
func gateEnv(t *testing.T, rights telegramtest.BotRights) (*env, *Gates) {
	t.Helper()
	e := newEnv(t, Options{})
	e.tg.SetChat(group.ID, group.Type, group.Title)
	e.tg.SetChat(channelID, "channel", "News")
	e.tg.SetBotRights(group.ID, rights)
	return e, &Gates{a: e.a}
}

func TestGates_Prepare(t *testing.T) {
	for _, status := range []string{"administrator", "creator"} {
		t.Run("OK/"+status, func(t *testing.T) {
			e, g := gateEnv(t, telegramtest.BotRights{Status: status, CanInvite: true, CanRestrict: true})
			got, err := g.Prepare(t.Context(), place, "")
			if err != nil {
				t.Fatalf("Prepare() = %v", err)
			}
			if diff := cmp.Diff(groupGate, got); diff != "" {
				t.Errorf("Prepare() (-want +got):\n%s", diff)
			}
			// Prepare creates nothing: the link comes once the gate is
			// stored.
			if n := len(e.tg.Calls("createChatInviteLink")); n != 0 {
				t.Fatalf("Prepare() called createChatInviteLink %d times, want 0", n)
			}
			link, err := g.CreateInviteLink(t.Context(), place, got)
			if err != nil || link != "https://t.me/+fakeInvite0001" {
				t.Fatalf("CreateInviteLink() = %q, %v; want the fake's first link", link, err)
			}
			calls := e.tg.Calls("createChatInviteLink")
			if len(calls) != 1 {
				t.Fatalf("createChatInviteLink called %d times, want 1", len(calls))
			}
			if p := calls[0].Params; p["creates_join_request"] != "true" || p["name"] != inviteLinkName || p["chat_id"] != place {
				t.Errorf("createChatInviteLink params = %v, want a named join-request link of the group", p)
			}
		})
	}

	refusals := []struct {
		name   string
		place  string
		rights telegramtest.BotRights
	}{
		{"PrivateChat", aliceID, allRights},
		{"Channel", strconv.FormatInt(channelID, 10), allRights},
		{"NotAdmin", place, telegramtest.BotRights{Status: "member"}},
		{"NoInvite", place, telegramtest.BotRights{Status: "administrator", CanRestrict: true}},
		{"NoBan", place, telegramtest.BotRights{Status: "administrator", CanInvite: true}},
		{"NoInviteNoBan", place, telegramtest.BotRights{Status: "administrator", CanDelete: true}},
		{"Kicked", place, telegramtest.BotRights{Status: "kicked"}},
	}
	reasons := map[string]string{}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			e, g := gateEnv(t, tt.rights)
			_, err := g.Prepare(t.Context(), tt.place, "")
			var p *core.GateProblem
			if !errors.Is(err, core.ErrCannotEnforce) || !errors.As(err, &p) || p.Forbidden {
				t.Fatalf("Prepare() = %v, want a *core.GateProblem matching ErrCannotEnforce", err)
			}
			if p.Reason == "" || p.Fix == "" {
				t.Errorf("Prepare() = %+v, want a reason and a fix", p)
			}
			if other, seen := reasons[p.Reason]; seen {
				t.Errorf("Prepare() reason %q, the same as for %s", p.Reason, other)
			}
			reasons[p.Reason] = tt.name
			if n := len(e.tg.Calls("createChatInviteLink")); n != 0 {
				t.Errorf("createChatInviteLink called %d times, want 0", n)
			}
		})
	}

	t.Run("NotGroupIsErrNotGroup", func(t *testing.T) {
		_, g := gateEnv(t, allRights)
		if _, err := g.Prepare(t.Context(), aliceID, ""); !errors.Is(err, core.ErrNotGroup) {
			t.Errorf("Prepare(private chat) = %v, want ErrNotGroup", err)
		}
	})
	t.Run("LinkRefused", func(t *testing.T) {
		e, g := gateEnv(t, allRights)
		e.tg.ForbidAdmin(group.ID)
		var p *core.GateProblem
		if _, err := g.CreateInviteLink(t.Context(), place, groupGate); !errors.Is(err, core.ErrCannotEnforce) || !errors.As(err, &p) || p.Fix == "" {
			t.Errorf("CreateInviteLink() with the link refused = %v, want ErrCannotEnforce with a fix", err)
		}
	})
	t.Run("TelegramDown", func(t *testing.T) {
		e, g := gateEnv(t, allRights)
		e.tg.Fail("getChat", telegramtest.Failure{Code: http.StatusInternalServerError, Description: "Internal Server Error"})
		_, err := g.Prepare(t.Context(), place, "")
		var p *core.GateProblem
		if err == nil || errors.As(err, &p) {
			t.Errorf("Prepare() with getChat failing = %v, want an error that is no problem of the gate", err)
		}
	})
}

func TestGates_Check(t *testing.T) {
	e, g := gateEnv(t, allRights)
	if err := g.Check(t.Context(), place, groupGate); err != nil {
		t.Errorf("Check() = %v, want nil", err)
	}
	e.tg.SetBotRights(group.ID, telegramtest.BotRights{Status: "administrator", CanInvite: true})
	if err := g.Check(t.Context(), place, groupGate); !errors.Is(err, core.ErrCannotEnforce) {
		t.Errorf("Check() without the right to ban = %v, want ErrCannotEnforce", err)
	}
	if n := len(e.tg.Calls("createChatInviteLink")); n != 0 {
		t.Errorf("createChatInviteLink called %d times, want 0", n)
	}
}

func TestGates_Standing(t *testing.T) {
	tests := []struct {
		status string
		want   core.Standing
	}{
		{"creator", core.Standing{InPlace: true, Has: true}},
		{"administrator", core.Standing{InPlace: true, Has: true}},
		{"member", core.Standing{InPlace: true, Has: true}},
		{"restricted", core.Standing{InPlace: true, Has: true}},
		{"left", core.Standing{}},
		{"kicked", core.Standing{}},
	}
	e, g := gateEnv(t, allRights)
	for _, tt := range tests {
		e.tg.SetStatus(group.ID, alice.ID, tt.status)
		got, err := g.Standing(t.Context(), place, groupGate, aliceID)
		if err != nil || got != tt.want {
			t.Errorf("Standing(%s) = %+v, %v; want %+v", tt.status, got, err, tt.want)
		}
	}
	e.tg.Fail("getChatMember", telegramtest.Failure{Code: http.StatusBadRequest, Description: "Bad Request: user not found"})
	if got, err := g.Standing(t.Context(), place, groupGate, "999"); err != nil || got != (core.Standing{}) {
		t.Errorf("Standing(unknown user) = %+v, %v; want not in the group", got, err)
	}
	e.tg.SetBotRights(group.ID, telegramtest.BotRights{Status: "kicked"})
	if _, err := g.Standing(t.Context(), place, groupGate, aliceID); !errors.Is(err, core.ErrGateForbidden) {
		t.Errorf("Standing() with the bot kicked = %v, want ErrGateForbidden", err)
	}
}

func TestGates_Grant(t *testing.T) {
	e, g := gateEnv(t, allRights)
	e.tg.RequestJoin(group.ID, alice)
	if err := g.Grant(t.Context(), place, groupGate, aliceID); err != nil {
		t.Fatalf("Grant() = %v", err)
	}
	if err := e.tg.WaitApproved(waitCtx(t), group.ID, alice.ID); err != nil {
		t.Error(err)
	}
	if got := e.tg.Member(group.ID, alice.ID); got != "member" {
		t.Errorf("status after Grant = %q, want member", got)
	}
	// The request is handled already (HIDE_REQUESTER_MISSING): the bot
	// did not admit anyone this time, and says so.
	if err := g.Grant(t.Context(), place, groupGate, aliceID); !errors.Is(err, core.ErrJoinRequestGone) {
		t.Errorf("Grant() again = %v, want ErrJoinRequestGone", err)
	}
	if n := len(e.tg.Calls("approveChatJoinRequest")); n != 2 {
		t.Errorf("approveChatJoinRequest called %d times, want 2", n)
	}
}

func TestGates_Decline(t *testing.T) {
	e, g := gateEnv(t, allRights)
	e.tg.RequestJoin(group.ID, alice)
	if err := g.Decline(t.Context(), place, groupGate, aliceID); err != nil {
		t.Fatalf("Decline() = %v", err)
	}
	if err := e.tg.WaitDeclined(waitCtx(t), group.ID, alice.ID); err != nil {
		t.Error(err)
	}
	if got := e.tg.Member(group.ID, alice.ID); got != "left" || e.tg.JoinPending(group.ID, alice.ID) {
		t.Errorf("status after Decline = %q, pending %v; want left, not pending", got, e.tg.JoinPending(group.ID, alice.ID))
	}
	if err := g.Decline(t.Context(), place, groupGate, strconv.FormatInt(bob.ID, 10)); err != nil {
		t.Errorf("Decline(no request) = %v, want nil", err)
	}
}

func TestGates_Revoke(t *testing.T) {
	e, g := gateEnv(t, allRights)
	e.tg.SetStatus(group.ID, alice.ID, "member")
	if err := g.Revoke(t.Context(), place, groupGate, aliceID); err != nil {
		t.Fatalf("Revoke() = %v", err)
	}
	var got []string
	for _, c := range e.tg.Calls("") {
		if c.Method == "banChatMember" || c.Method == "unbanChatMember" {
			got = append(got, c.Method+" "+c.Params["user_id"]+" only_if_banned="+c.Params["only_if_banned"])
		}
	}
	want := []string{"banChatMember 1001 only_if_banned=", "unbanChatMember 1001 only_if_banned=true"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	// Should the unban fail, the ban ends by itself: until_date is set,
	// past Telegram's 30 s under which a ban is for ever.
	ban := e.tg.Calls("banChatMember")[0]
	until, err := strconv.ParseInt(ban.Params["until_date"], 10, 64)
	if err != nil || until < time.Now().Add(30*time.Second).Unix() || until > time.Now().Add(time.Hour).Unix() {
		t.Errorf("ban until_date = %q, want a minute or two from now", ban.Params["until_date"])
	}
	if status := e.tg.Member(group.ID, alice.ID); status != "left" {
		t.Errorf("status after Revoke = %q, want left (free to ask again)", status)
	}
}

func TestGates_Forbidden(t *testing.T) {
	actions := map[string]func(g *Gates) error{
		"Grant":   func(g *Gates) error { return g.Grant(t.Context(), place, groupGate, aliceID) },
		"Decline": func(g *Gates) error { return g.Decline(t.Context(), place, groupGate, aliceID) },
		"Revoke":  func(g *Gates) error { return g.Revoke(t.Context(), place, groupGate, aliceID) },
	}
	for name, act := range actions {
		t.Run(name, func(t *testing.T) {
			e, g := gateEnv(t, allRights)
			e.tg.RequestJoin(group.ID, alice)
			e.tg.ForbidAdmin(group.ID)
			err := act(g)
			var p *core.GateProblem
			if !errors.Is(err, core.ErrGateForbidden) || !errors.As(err, &p) || p.Reason == "" || p.Fix == "" {
				t.Errorf("%s() = %v, want a *core.GateProblem matching ErrGateForbidden", name, err)
			}
		})
	}
	t.Run("UnbanRefused", func(t *testing.T) {
		e, g := gateEnv(t, allRights)
		e.tg.Fail("unbanChatMember", telegramtest.Failure{Code: http.StatusBadRequest, Description: "Bad Request: " + telegramtest.NoRightsToRestrict})
		if err := g.Revoke(t.Context(), place, groupGate, aliceID); !errors.Is(err, core.ErrGateForbidden) {
			t.Errorf("Revoke() with the unban refused = %v, want ErrGateForbidden", err)
		}
	})
	t.Run("OtherError", func(t *testing.T) {
		e, g := gateEnv(t, allRights)
		e.tg.Fail("banChatMember", telegramtest.Failure{Code: http.StatusBadRequest, Description: "Bad Request: user is an administrator of the chat"})
		if err := g.Revoke(t.Context(), place, groupGate, aliceID); err == nil || errors.Is(err, core.ErrGateForbidden) {
			t.Errorf("Revoke(an administrator) = %v, want an error that does not pause the gate", err)
		}
	})
}

func TestGates_RateLimited(t *testing.T) {
	tooMany := telegramtest.Failure{Code: http.StatusTooManyRequests, Description: "Too Many Requests: retry after 1", RetryAfter: 1}
	t.Run("Retried", func(t *testing.T) {
		t.Parallel()
		e, g := gateEnv(t, allRights)
		e.tg.RequestJoin(group.ID, alice)
		e.tg.Fail("approveChatJoinRequest", tooMany)
		if err := g.Grant(t.Context(), place, groupGate, aliceID); err != nil {
			t.Fatalf("Grant() after a 429 = %v, want nil", err)
		}
		if n := len(e.tg.Calls("approveChatJoinRequest")); n != 2 {
			t.Errorf("approveChatJoinRequest called %d times, want 2 (429, then the retry)", n)
		}
	})
	t.Run("Bounded", func(t *testing.T) {
		t.Parallel()
		e, g := gateEnv(t, allRights)
		e.tg.RequestJoin(group.ID, alice)
		for range maxRetries + 2 {
			e.tg.Fail("approveChatJoinRequest", tooMany)
		}
		err := g.Grant(t.Context(), place, groupGate, aliceID)
		var apiErr *tgbotapi.Error
		if !errors.As(err, &apiErr) || apiErr.Code != http.StatusTooManyRequests || errors.Is(err, core.ErrGateForbidden) {
			t.Errorf("Grant() always rate limited = %v, want the 429", err)
		}
		if n := len(e.tg.Calls("approveChatJoinRequest")); n != maxRetries+1 {
			t.Errorf("approveChatJoinRequest called %d times, want %d", n, maxRetries+1)
		}
	})
}

func TestGates_Tell(t *testing.T) {
	e, g := gateEnv(t, allRights)
	if err := g.Tell(t.Context(), aliceID, gateNotice); err != nil {
		t.Fatalf("Tell() = %v", err)
	}
	m := e.waitMessage(t, telegramtest.To(alice.ID))
	if want := renderHTML(bot.GateNoticeText(gateNotice, capabilities)); m.Text != want || m.ParseMode != tgbotapi.ModeHTML {
		t.Errorf("Tell() sent %q (%s), want %q in HTML", m.Text, m.ParseMode, want)
	}
	e.tg.NeverStarted(bob.ID)
	if err := g.Tell(t.Context(), strconv.FormatInt(bob.ID, 10), gateNotice); err == nil {
		t.Error("Tell(a member who never opened the private chat) = nil, want the Bot API's error")
	}
}

func TestGates_Announce(t *testing.T) {
	e, g := gateEnv(t, allRights)
	paused := core.GateNotice{Kind: core.NoticeGatePaused, Gate: gateNotice.Gate, Problem: &refusedBans}
	for _, channel := range []string{"", place, "-1005555"} {
		if err := g.Announce(t.Context(), place, channel, paused); err != nil {
			t.Errorf("Announce(%q) = %v", channel, err)
		}
	}
	var got []int64
	for _, m := range e.tg.Messages() {
		got = append(got, m.ChatID)
	}
	if want := []int64{group.ID, group.ID, -1005555}; !cmp.Equal(want, got) {
		t.Errorf("Announce sent to %v, want %v", got, want)
	}
}

func TestGates_Setup(t *testing.T) {
	type line struct {
		Check string
		OK    bool
		Fix   bool
	}
	lines := func(ls []core.SetupLine) []line {
		out := make([]line, len(ls))
		for i, l := range ls {
			out[i] = line{l.Check, l.OK, l.Fix != ""}
		}
		return out
	}
	checks := []string{"This chat is a group", "I am an administrator of the group", "I may invite users via link, to approve join requests",
		"I may ban users, to remove members who no longer qualify", "I may delete messages, to delete commands that show a drop's edit code"}
	tests := []struct {
		name   string
		place  string
		rights telegramtest.BotRights
		want   []line
	}{
		{"AllRights", place, allRights, []line{{checks[0], true, false}, {checks[1], true, false}, {checks[2], true, false}, {checks[3], true, false}, {checks[4], true, false}}},
		{"NoDelete", place, telegramtest.BotRights{Status: "administrator", CanInvite: true, CanRestrict: true},
			[]line{{checks[0], true, false}, {checks[1], true, false}, {checks[2], true, false}, {checks[3], true, false}, {checks[4], false, true}}},
		{"NotAdmin", place, telegramtest.BotRights{Status: "member"},
			[]line{{checks[0], true, false}, {checks[1], false, true}, {checks[2], false, true}, {checks[3], false, true}, {checks[4], false, true}}},
		{"PrivateChat", aliceID, allRights, []line{{checks[0], false, true}}},
		{"Kicked", place, telegramtest.BotRights{Status: "kicked"}, []line{{"I am in this group", false, true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, g := gateEnv(t, tt.rights)
			if diff := cmp.Diff(tt.want, lines(g.Setup(t.Context(), tt.place))); diff != "" {
				t.Errorf("Setup() (-want +got):\n%s", diff)
			}
		})
	}
}
