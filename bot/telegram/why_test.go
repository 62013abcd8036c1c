package telegram

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

// whyEnv is an adapter whose gating runs on a MemStore and a fake clock;
// every address holds drops 1 to 3.
type whyEnv struct {
	*env
	store *coretest.MemStore
	clock *coretest.Clock
}

func newWhyEnv(t *testing.T) whyEnv {
	t.Helper()
	store, clock := coretest.NewMemStore(), coretest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	// The bot hands the adapter's join requests to gating.
	e := newEnvWith(t, coretest.Deps{Store: store, Scanner: stubIssuer{holdings: holdings(3)}, Clock: clock}, Options{})
	return whyEnv{env: e, store: store, clock: clock}
}

// gate makes chat a gated group with its invite link, on drops.
func (w whyEnv) gate(t *testing.T, chat telegramtest.Chat, link string, mode core.GateMode, drops ...core.GateDrop) {
	t.Helper()
	w.tg.SetChat(chat.ID, chat.Type, chat.Title)
	w.tg.SetBotRights(chat.ID, allRights)
	id := strconv.FormatInt(chat.ID, 10)
	tn, err := w.store.UpsertPlace(t.Context(), core.Place{Platform: core.Telegram, ExternalID: id})
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.store.AddGate(t.Context(), core.Gate{PlaceID: tn.ID, Drops: drops, Mode: mode,
		Target: core.GateTarget{ID: id, Name: chat.Title, Kind: core.GateGroup, InviteLink: link}})
	if err != nil {
		t.Fatal(err)
	}
}

// verified stores u with a verified wallet.
func (w whyEnv) verified(t *testing.T, u telegramtest.User) {
	t.Helper()
	user, err := w.store.UpsertUser(t.Context(), core.User{Platform: core.Telegram, ExternalID: strconv.FormatInt(u.ID, 10), Name: u.FirstName})
	if err != nil {
		t.Fatal(err)
	}
	at := w.clock.Now()
	if _, err := w.store.AddWallet(t.Context(), core.Wallet{UserID: user.ID, Kind: core.KindAddress, Value: demo, Address: demo, VerifiedAt: &at}); err != nil {
		t.Fatal(err)
	}
}

// why sends /why in u's private chat and returns the answer, the one
// message to u containing mark.
func (w whyEnv) why(t *testing.T, u telegramtest.User, mark string) string {
	t.Helper()
	w.tg.SendText(telegramtest.PrivateChat(u), u, "/why")
	return w.waitMessage(t, telegramtest.All(telegramtest.To(u.ID), telegramtest.Contains(mark))).Text
}

func wantIn(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, text)
		}
	}
}

// TestWhy_JoinRequests: /why in the private chat explains the join
// requests the bot declined (each group, the drops that were missing, how
// to qualify, the invite link) and the one that waits for a verified
// wallet; a decline older than 30 days is no longer shown, and the
// schedule deletes it; a request declined for want of a verified wallet
// says so.
func TestWhy_JoinRequests(t *testing.T) {
	w := newWhyEnv(t)
	meetup := telegramtest.Group(-1005550000001, "Paris meetup")
	w.gate(t, group, "https://t.me/+fans", core.GateAny, core.GateDrop{ID: 99, Name: "Berlin"})
	w.gate(t, meetup, "", core.GateMode{All: true}, core.GateDrop{ID: 2, Name: "Drop 02"}, core.GateDrop{ID: 98, Name: "Paris"})
	w.verified(t, bob)
	w.tg.SetStatus(meetup.ID, alice.ID, "left") // never asked to join it
	for _, u := range []telegramtest.User{alice, bob} {
		w.tg.OpenPrivateChat(u.ID)
	}
	w.run(t)

	w.tg.RequestJoin(group.ID, bob)
	w.tg.RequestJoin(meetup.ID, bob)
	if _, err := w.tg.WaitMessages(waitCtx(t), 2, telegramtest.All(telegramtest.To(bob.ID), telegramtest.Contains("is declined"))); err != nil {
		t.Fatalf("bob was not declined by both groups: %v", err)
	}
	text := w.why(t, bob, "needs")
	wantIn(t, "/why of a declined member", text,
		"<b>POAP fans</b> needs a POAP of <b>Berlin</b>",
		"declined on 2026-03-01 at 12:00 UTC for lacking <b>Berlin</b> (<code>99</code>)",
		"link a wallet that holds the missing POAPs",
		"ask to join again through the group's invite link: https://t.me/+fans",
		"<b>Paris meetup</b> needs POAPs of all of",
		"for lacking <b>Paris</b> (<code>98</code>).",
		"holds <b>Drop 02</b>",
		"the group's invite link (its administrators share it)",
	)
	if strings.Contains(text, "There is no gate") {
		t.Errorf("/why of a declined member says there is nothing to explain:\n%s", text)
	}

	w.tg.RequestJoin(group.ID, alice)
	w.waitMessage(t, telegramtest.All(telegramtest.To(alice.ID), telegramtest.Contains("You asked to join")))
	text = w.why(t, alice, "needs")
	wantIn(t, "/why of a pending requester", text,
		"<b>POAP fans</b> needs a POAP of <b>Berlin</b>",
		"You have no wallet linked",
		"You asked to join on 2026-03-01 at 12:00 UTC; the request is pending while you have no verified wallet",
		"it is declined 2026-03-02 at 12:00 UTC otherwise",
	)
	if strings.Contains(text, "Paris meetup") {
		t.Errorf("/why of alice names a group she never asked to join:\n%s", text)
	}

	// 31 days later: bob's declines are too old to explain, and the
	// schedule deletes them.
	w.clock.Add(core.JoinDeclineTTL + 24*time.Hour)
	wantIn(t, "/why 31 days after the declines", w.why(t, bob, "nothing to explain"), "in the last 30 days")
	if _, err := w.env.svc.Gates.Sweep(t.Context()); err != nil {
		t.Fatalf("Sweep() = %v", err)
	}
	user, err := w.store.FindUser(t.Context(), core.Telegram, strconv.FormatInt(bob.ID, 10))
	if err != nil {
		t.Fatal(err)
	}
	if left, err := w.store.UserJoinDeclines(t.Context(), user.ID, time.Time{}); err != nil || len(left) != 0 {
		t.Errorf("bob's declines after the sweep = %v, %v, want none", left, err)
	}
	// The same sweep declined alice's request, left without a verified
	// wallet for more than a day: /why says so.
	wantIn(t, "/why after an expired request", w.why(t, alice, "the request was declined on"),
		"<b>POAP fans</b> needs", "the request was declined on 2026-04-01 at 12:00 UTC: no verified wallet within 24 hours.",
		"ask to join again through the group's invite link: https://t.me/+fans")
}
