package core_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/core"
)

// whyOf is /why of the member in their Telegram private chat: the one
// entry it must give.
func (e *gateEnv) whyOf(member string) core.WhyEntry {
	e.t.Helper()
	m := core.Member{Platform: core.Telegram, ExternalID: member}
	entries, err := e.svc.Why(context.Background(), m, core.Place{Platform: core.Telegram, ExternalID: member}, core.WhyQuery{Private: true})
	if err != nil || len(entries) != 1 {
		e.t.Fatalf("Why(%s) = %d entries, %v; want 1", member, len(entries), err)
	}
	return entries[0]
}

// requestJoin asks, as the member, to join the gated group, and waits
// for the decision.
func (e *gateEnv) requestJoin(member string) {
	e.t.Helper()
	e.svc.JoinRequested(context.Background(), core.Telegram, e.place.ExternalID, core.Member{Platform: core.Telegram, ExternalID: member})
	e.wait()
}

// TestGate_WhyJoinDeclines: /why in private explains a declined join
// request (missing drops, or no verified wallet in time) until a newer
// request or a grant stands, and not after JoinDeclineTTL, when the
// schedule deletes it.
func TestGate_WhyJoinDeclines(t *testing.T) {
	e := newGateEnv(t, core.Telegram, core.GateGroup)
	g := e.add("", "12", "")
	start := e.clock.Now()

	lacks := e.member("lacks", "v:"+addrB)
	e.requestJoin("lacks")
	want := &core.JoinDecline{GateID: g.ID, UserID: lacks.ID, Member: "lacks", Reason: core.DeclineMissing,
		Missing: g.Drops, RequestedAt: start, DeclinedAt: start}
	got := e.whyOf("lacks")
	if diff := cmp.Diff(want, got.Declined); diff != "" || got.Request != nil || got.Granted || got.Verdict.Qualifies {
		t.Errorf("Why(declined) = %+v, decline diff (-want +got):\n%s", got, diff)
	}

	// Never verifies: declined at the sweep after a day, then asks again.
	e.requestJoin("late")
	e.clock.Add(core.JoinRequestTTL)
	e.sync()
	if got := e.whyOf("late"); got.Declined == nil || got.Declined.Reason != core.DeclineExpired || got.Request != nil {
		t.Errorf("Why(expired) = %+v, want the decline for want of a verified wallet", got)
	}
	e.requestJoin("late")
	if got := e.whyOf("late"); got.Declined != nil || got.Request == nil || !got.Request.RequestedAt.Equal(e.clock.Now()) {
		t.Errorf("Why(asked again) = %+v, want the waiting request only", got)
	}

	// Gets the POAP and asks again: admitted, the decline is history.
	e.issuer.give(addrB, 12)
	e.requestJoin("lacks")
	if got := e.whyOf("lacks"); !got.Granted || got.Declined != nil || !got.Verdict.Qualifies {
		t.Errorf("Why(admitted) = %+v, want granted without the old decline", got)
	}

	// Declined, then in the group by another invite link: the decline is
	// no longer theirs to read.
	e.member("joined", "v:"+addrC)
	e.requestJoin("joined")
	if got := e.whyOf("joined"); got.Declined == nil {
		t.Fatalf("Why(declined) = %+v, want the decline", got)
	}
	e.actions.set("joined", true)
	if got := e.whyOf("joined"); got.Declined != nil {
		t.Errorf("Why(declined, since in the group) = %+v, want no decline", got)
	}
	e.actions.set("joined", false)

	// Past JoinDeclineTTL: nothing to explain, and the sweep deletes it.
	gone := e.member("gone", "v:"+addrC)
	e.requestJoin("gone")
	e.clock.Add(core.JoinDeclineTTL + time.Second)
	m := core.Member{Platform: core.Telegram, ExternalID: "gone"}
	if _, err := e.svc.Why(context.Background(), m, core.Place{Platform: core.Telegram, ExternalID: "gone"}, core.WhyQuery{Private: true}); !errors.Is(err, core.ErrNoGate) {
		t.Errorf("Why(declined %s ago) = %v, want core.ErrNoGate", core.JoinDeclineTTL, err)
	}
	if _, err := e.svc.Sweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ds, err := e.store.UserJoinDeclines(context.Background(), gone.ID, time.Time{}); err != nil || len(ds) != 0 {
		t.Errorf("declines after the sweep = %v, %v, want none", ds, err)
	}
}
