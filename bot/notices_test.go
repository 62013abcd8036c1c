package bot

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/sandbox"
)

// notices returns the texts of Notices by channel, or fails the test.
func (e *dropEnv) notices(t *testing.T) map[string]string {
	t.Helper()
	ns, err := e.b.Notices(t.Context())
	if err != nil {
		t.Fatalf("Notices() = %v", err)
	}
	out := map[string]string{}
	for _, n := range ns {
		if _, ok := out[n.Ref.Channel]; ok {
			t.Errorf("Notices() has two notices for channel %s", n.Ref.Channel)
		}
		out[n.Ref.Channel] = n.Text
	}
	return out
}

// publishIn publishes the reply's post as message in channel.
func (e *dropEnv) publishIn(t *testing.T, r Reply, channel, message string) {
	t.Helper()
	ref := PostRef{Platform: core.Console, Place: "guild", Channel: channel, Message: message}
	if err := e.b.Posted(t.Context(), ref, *r.Post); err != nil {
		t.Fatalf("Posted(%s) = %v", message, err)
	}
}

// TestBot_Notices: when a claim takes a distributed drop below its
// low_stock, one notice goes to every channel of its claim messages, once
// per shortage, again after a refresh brought links and they ran low again.
func TestBot_Notices(t *testing.T) {
	t.Parallel()
	eachDropEnv(t, func(t *testing.T, e *dropEnv) {
		id, code := e.createDrop(t, "Notice drop", 5)
		wantText(t, e.mod(t, fmt.Sprintf("/drop add %d %s delivery:link low_stock:3", id, code)),
			"Moderators are told where it is posted when fewer than 3 links are left.")
		dist := e.mod(t, fmt.Sprintf("/distribute %d", id))
		e.publishIn(t, dist, "c", "m1")
		e.publishIn(t, dist, "c", "m2") // the same channel: one notice there
		e.publishIn(t, dist, "d", "m3")
		claim := func(who string) {
			t.Helper()
			wantText(t, e.as(t, who, false, fmt.Sprintf("/claim %d", id)), "Here is your mint link")
		}

		claim("m0")
		claim("m1")
		if got := e.notices(t); len(got) != 0 {
			t.Errorf("Notices() at 3 links left, threshold 3 = %v, want none", got)
		}
		claim("m2")
		text := fmt.Sprintf("Only 2 mint links left for **Notice drop** (drop `%d`). "+
			"Moderators: `/drop topup %d` asks POAP for more (review can take a day), then `/drop refresh %d`.", id, id, id)
		if diff := cmp.Diff(map[string]string{"c": text, "d": text}, e.notices(t)); diff != "" {
			t.Errorf("Notices() at 2 links left (-want +got):\n%s", diff)
		}
		claim("m3")
		if got := e.notices(t); len(got) != 0 {
			t.Errorf("Notices() after the notice = %v, want none", got)
		}

		// A top-up re-arms the notice.
		wantText(t, e.mod(t, fmt.Sprintf("/drop topup %d 2", id)), "Asked POAP for 2 more mint links")
		if n := e.sb.ApproveRequests(id); n != 1 {
			t.Fatalf("ApproveRequests() = %d, want 1", n)
		}
		wantText(t, e.mod(t, fmt.Sprintf("/drop refresh %d", id)), "Imported 2 new mint links")
		if got := e.notices(t); len(got) != 0 {
			t.Errorf("Notices() after a refresh = %v, want none", got)
		}
		claim("m4")
		claim("m5")
		want := fmt.Sprintf("Only 1 mint link left for **Notice drop** (drop `%d`).", id)
		got := e.notices(t)
		if len(got) != 2 {
			t.Fatalf("Notices() when running low again = %v, want two", got)
		}
		wantText(t, Reply{Text: got["c"]}, want)
	})
}

// TestBot_Notices_Replicas has replicas ask at once: the notice goes to
// one of them only.
func TestBot_Notices_Replicas(t *testing.T) {
	t.Parallel()
	eachDropEnv(t, func(t *testing.T, e *dropEnv) {
		id, code := e.createDrop(t, "Raced drop", 3)
		e.mod(t, fmt.Sprintf("/drop add %d %s delivery:link low_stock:3", id, code))
		e.publish(t, e.mod(t, fmt.Sprintf("/distribute %d", id)), "m1")
		e.as(t, "m0", false, fmt.Sprintf("/claim %d", id))
		replica := New(e.services, Options{})
		var (
			mu  sync.Mutex
			got []PostNotice
			wg  sync.WaitGroup
		)
		for _, b := range []*Bot{e.b, replica, e.b, replica} {
			wg.Go(func() {
				ns, err := b.Notices(context.Background())
				if err != nil {
					t.Errorf("Notices() = %v", err)
				}
				mu.Lock()
				defer mu.Unlock()
				got = append(got, ns...)
			})
		}
		wg.Wait()
		if len(got) != 1 {
			t.Errorf("racing Notices() = %+v, want one notice in all", got)
		}
	})
}

// TestBot_Notices_Never: low_stock:0 turns the notice off.
func TestBot_Notices_Never(t *testing.T) {
	t.Parallel()
	eachDropEnv(t, func(t *testing.T, e *dropEnv) {
		id, code := e.createDrop(t, "Quiet drop", 2)
		r := e.mod(t, fmt.Sprintf("/drop add %d %s delivery:link low_stock:0", id, code))
		wantText(t, r, "is set up here")
		e.publish(t, e.mod(t, fmt.Sprintf("/distribute %d", id)), "m1")
		e.as(t, "m0", false, fmt.Sprintf("/claim %d", id))
		e.as(t, "m1", false, fmt.Sprintf("/claim %d", id))
		if got := e.notices(t); len(got) != 0 {
			t.Errorf("Notices() with low_stock:0 = %v, want none", got)
		}
		wantText(t, e.mod(t, fmt.Sprintf("/drop add %d %s low_stock:-1", sandbox.DemoLinksDropID, sandbox.DemoEditCode)),
			"The option `low_stock` must be a number of links")
	})
}
