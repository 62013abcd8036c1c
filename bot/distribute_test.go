package bot

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

// publish does what an adapter does with a reply's post: it publishes it
// as message in channel c and reports it with Posted.
func (e *dropEnv) publish(t *testing.T, r Reply, message string) PostRef {
	t.Helper()
	if r.Post == nil {
		t.Fatalf("reply has no post: %q", r.Text)
	}
	ref := PostRef{Platform: core.Console, Place: "guild", Channel: "c", Message: message}
	if err := e.b.Posted(t.Context(), ref, *r.Post); err != nil {
		t.Fatalf("Posted(%s) = %v", message, err)
	}
	return ref
}

// updates returns the texts of PostUpdates by message, or fails the test.
func (e *dropEnv) updates(t *testing.T) map[string]string {
	t.Helper()
	ups, err := e.b.PostUpdates(t.Context())
	if err != nil {
		t.Fatalf("PostUpdates() = %v", err)
	}
	out := map[string]string{}
	for _, u := range ups {
		out[u.Ref.Message] = u.Post.Text
	}
	return out
}

func TestBot_Distribute(t *testing.T) {
	t.Parallel()
	eachDropEnv(t, func(t *testing.T, e *dropEnv) {
		id, code := e.createDrop(t, "Party drop", 5)
		e.mod(t, fmt.Sprintf("/drop add %d %s delivery:link", id, code))

		t.Run("NotModerator", func(t *testing.T) {
			r := e.as(t, "alice", false, fmt.Sprintf("/distribute %d", id))
			wantText(t, r, "Only moderators can run `/distribute` here.")
			if r.Post != nil {
				t.Errorf("a refused /distribute has a post: %+v", r.Post)
			}
		})
		t.Run("UnknownDrop", func(t *testing.T) {
			r := e.mod(t, "/distribute 999999")
			wantText(t, r, "There is no drop `999999` here.")
			if r.Post != nil {
				t.Errorf("a refused /distribute has a post: %+v", r.Post)
			}
		})

		// The drop is the place's only one: /distribute needs no id.
		r := e.mod(t, "/distribute")
		wantText(t, r, "Posted the claim message for **Party drop**", "in this channel")
		want := Post{
			Text: "**Party drop**\nPress Claim to get your POAP.\n\n**5** of 5 links left", Image: r.Post.Image,
			Buttons: []Button{{Label: "Claim", Command: fmt.Sprintf("/claim %d", id)}}, Subject: fmt.Sprintf("drop:%d", id),
		}
		if diff := cmp.Diff(&want, r.Post, ignoreAction); diff != "" || r.Post.Buttons[0].Action == "" {
			t.Errorf("/distribute post (-want +got):\n%s\nwant a stored action", diff)
		}
		if !strings.HasSuffix(r.Post.Image, "?size=medium") {
			t.Errorf("post image = %q, want the drop's image at medium size", r.Post.Image)
		}
		e.publish(t, r, "m1")
		own := e.mod(t, fmt.Sprintf("/distribute %d <#77> Come and get it!\nToday only.", id))
		wantText(t, own, "in `77`")
		if own.Post.Channel != "77" {
			t.Errorf("post channel = %q, want 77", own.Post.Channel)
		}
		e.publish(t, own, "m2")

		// The first tick writes what the posts show; claims then make one
		// update per post, whatever their number.
		e.updates(t)
		for i := range 2 {
			wantText(t, e.as(t, fmt.Sprintf("m%d", i), false, fmt.Sprintf("/claim %d", id)), "Here is your mint link")
		}
		got := e.updates(t)
		wantUpdates := map[string]string{
			"m1": "**Party drop**\nPress Claim to get your POAP.\n\n**3** of 5 links left",
			"m2": "Come and get it! Today only.\n\n**3** of 5 links left",
		}
		if diff := cmp.Diff(wantUpdates, got); diff != "" {
			t.Errorf("PostUpdates() after 2 claims (-want +got):\n%s", diff)
		}
		if got := e.updates(t); len(got) != 0 {
			t.Errorf("PostUpdates() with no change = %v, want none", got)
		}
	})
}

// TestBot_PostUpdates_Replicas has replicas tick at once: each change of
// a post goes to one of them only.
func TestBot_PostUpdates_Replicas(t *testing.T) {
	t.Parallel()
	eachDropEnv(t, func(t *testing.T, e *dropEnv) {
		id, code := e.createDrop(t, "Busy drop", 6)
		e.mod(t, fmt.Sprintf("/drop add %d %s delivery:link", id, code))
		e.publish(t, e.mod(t, fmt.Sprintf("/distribute %d", id)), "m1")
		replica := New(e.services, Options{})
		for round := range 4 {
			if round > 0 {
				e.as(t, fmt.Sprintf("m%d", round), false, fmt.Sprintf("/claim %d", id))
			}
			var (
				mu  sync.Mutex
				got []string
				wg  sync.WaitGroup
			)
			for _, b := range []*Bot{e.b, replica, e.b, replica} {
				wg.Go(func() {
					ups, err := b.PostUpdates(context.Background())
					if err != nil {
						t.Errorf("PostUpdates() = %v", err)
					}
					mu.Lock()
					defer mu.Unlock()
					for _, u := range ups {
						got = append(got, u.Post.Text)
					}
				})
			}
			wg.Wait()
			want := []string{fmt.Sprintf("**Busy drop**\nPress Claim to get your POAP.\n\n**%d** of 6 links left", 6-round)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("round %d: racing PostUpdates() (-want +got):\n%s", round, diff)
			}
		}
	})
}

// TestBot_Distribute_NoLinks posts a drop with no links left: no Claim
// button, and a word about the top-up.
func TestBot_Distribute_NoLinks(t *testing.T) {
	t.Parallel()
	eachDropEnv(t, func(t *testing.T, e *dropEnv) {
		id, code := e.createDrop(t, "Tiny drop", 1)
		e.mod(t, fmt.Sprintf("/drop add %d %s delivery:link", id, code))
		e.publish(t, e.mod(t, fmt.Sprintf("/distribute %d", id)), "m1")
		e.updates(t)
		e.as(t, "alice", false, fmt.Sprintf("/claim %d", id))
		ups, err := e.b.PostUpdates(t.Context())
		if err != nil || len(ups) != 1 {
			t.Fatalf("PostUpdates() = %+v, %v, want one update", ups, err)
		}
		if p := ups[0].Post; len(p.Buttons) != 0 || !strings.HasSuffix(p.Text, "No links left: ask a moderator for a top-up") {
			t.Errorf("update of a drop with no links = %+v, want no button and the top-up line", p)
		}
		r := e.mod(t, fmt.Sprintf("/distribute %d", id))
		if r.Post == nil || len(r.Post.Buttons) != 0 {
			t.Errorf("/distribute of a drop with no links: post %+v, want one without a Claim button", r.Post)
		}
		if long := strings.Repeat("x", maxPostMessage+1); e.mod(t, fmt.Sprintf("/distribute %d c %s", id, long)).Post != nil {
			t.Errorf("/distribute with a message over %d characters has a post", maxPostMessage)
		}
	})
}
