package discord

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

// deferredBefore reports whether the fake had received the deferral of
// the request's interaction.
func deferredBefore(fake *discordtest.Server, req *bot.Request) bool {
	id := strings.TrimPrefix(req.Key, keyPrefix)
	for _, r := range fake.Requests() {
		if strings.Contains(r.Path, "/interactions/"+id+"/") && strings.HasSuffix(r.Path, "/callback") {
			return true
		}
	}
	return false
}

// step is one response as the member's conversation shows it.
type step struct {
	Kind      discordtest.Kind
	Content   string
	Ephemeral bool
	Status    int
}

func steps(rs []discordtest.Response) []step {
	var out []step
	for _, r := range rs {
		out = append(out, step{r.Kind, r.Content, r.Ephemeral(), r.Status})
	}
	return out
}

// TestAdapter_Long: a Long command is deferred publicly before it runs,
// however long it takes, and each progress it shows edits the deferred
// response, in order, before the final reply does.
func TestAdapter_Long(t *testing.T) {
	t.Parallel()
	shows := make(chan string)
	deferred := make(chan bool, 1)
	var fake atomic.Pointer[discordtest.Server]
	r := startMoment(t, func(_ context.Context, req *bot.Request) (bot.Reply, error) {
		deferred <- deferredBefore(fake.Load(), req)
		for text := range shows {
			req.Progress(bot.Reply{Text: text})
		}
		return bot.Reply{Text: "Moment posted"}, nil
	})
	fake.Store(r.fake)
	it := r.fake.Command(discordtest.Alice, "/moment drop:1 description:hi media:photo.png")
	// The command waits for shows: the acknowledgement comes anyway.
	ack := wantAck(t, it, discordgo.InteractionResponseDeferredChannelMessageWithSource, false)
	t.Logf("deferred %s after creation", ack.Delay().Round(time.Millisecond))
	if !<-deferred {
		t.Error("the command ran before its interaction was deferred")
	}
	progress := []string{"Uploading 1 of 2", "Uploading 2 of 2", "Processing"}
	for i, text := range progress {
		shows <- text
		if _, err := it.WaitResponses(timeout(t, 10*time.Second), func(rs []discordtest.Response) bool {
			return len(rs) == i+2 && rs[i+1].Content == text
		}); err != nil {
			t.Fatalf("waiting for the edit %q: %v (responses %+v)", text, err, steps(it.Responses()))
		}
	}
	close(shows)
	if _, err := it.WaitMessage(timeout(t, 10*time.Second), func(m discordtest.Message) bool { return m.Content == "Moment posted" }); err != nil {
		t.Fatal(err)
	}
	want := []step{{discordtest.KindCallback, "", false, 204}}
	for _, text := range append(progress, "Moment posted") {
		want = append(want, step{discordtest.KindEdit, text, false, 200})
	}
	if diff := cmp.Diff(want, steps(it.Responses())); diff != "" {
		t.Errorf("responses mismatch (-want +got):\n%s", diff)
	}
	if late := r.fake.LateCallbacks(); len(late) != 0 {
		t.Errorf("late callbacks: %+v", late)
	}
}

// TestAdapter_LongLate: a Long command's reply that comes when the
// interaction's token is about to expire is posted as a message, in the
// channel (naming the member) or, when personal, in the member's DMs; the
// progress shown after then is dropped.
func TestAdapter_LongLate(t *testing.T) {
	t.Parallel()
	for _, personal := range []bool{false, true} {
		t.Run(map[bool]string{false: "Public", true: "Personal"}[personal], func(t *testing.T) {
			t.Parallel()
			fake := discordtest.NewServer(t, discordtest.Options{})
			clock := coretest.NewClock(time.Now())
			var it *discordtest.Interaction
			cmd := momentCommand(func(ctx context.Context, req *bot.Request) (bot.Reply, error) {
				req.Progress(bot.Reply{Text: "Uploading"})
				if _, err := it.WaitMessage(ctx, func(m discordtest.Message) bool { return m.Content == "Uploading" }); err != nil {
					return bot.Reply{}, err
				}
				clock.Add(tokenLife - tokenMargin + time.Second)
				req.Progress(bot.Reply{Text: "Processing"})
				return bot.Reply{Text: "Moment posted", Personal: personal}, nil
			})
			a, err := newAdapter(withCommands{Bot: plainBot(), extra: []*bot.Command{cmd}}, Options{Token: core.Secret(fake.Token()), APIURL: fake.URL()})
			if err != nil {
				t.Fatal(err)
			}
			a.now = clock.Now
			it, raw, err := fake.Build(discordtest.InteractionSpec{User: discordtest.Alice, Data: &discordgo.ApplicationCommandInteractionData{
				Name: "moment", CommandType: discordgo.ChatApplicationCommand,
			}})
			if err != nil {
				t.Fatal(err)
			}
			j, err := a.job(a.session, raw)
			if err != nil {
				t.Fatal(err)
			}
			a.answerLong(context.Background(), a.session, raw, j, clock.Now(), func() {})
			want := []step{{discordtest.KindCallback, "", false, 204}, {discordtest.KindEdit, "Uploading", false, 200}}
			if diff := cmp.Diff(want, steps(it.Responses())); diff != "" {
				t.Errorf("responses mismatch (-want +got):\n%s", diff)
			}
			channel, dms := fake.ChannelMessages(discordtest.DefaultChannelID), fake.DMs(discordtest.Alice.ID)
			posted, other := channel, dms
			text := "<@" + discordtest.Alice.ID + "> Moment posted"
			if personal {
				posted, other, text = dms, channel, "Moment posted"
			}
			if len(posted) != 1 || posted[0].Content != text || len(other) != 0 {
				t.Errorf("channel messages %+v, DMs %+v; want only %q in the %s", channel, dms, text,
					map[bool]string{false: "channel", true: "DMs"}[personal])
			}
		})
	}
}

// TestProgress: show never waits for an edit; while one is sent, only the
// latest reply waits, so an older one never follows a newer one; stop
// waits for the edit in flight and nothing is sent after it.
func TestProgress(t *testing.T) {
	t.Parallel()
	sent := make(chan string, 10)
	release := make(chan struct{})
	var finished atomic.Int32
	p := newProgress(func(r bot.Reply) {
		sent <- r.Text
		<-release
		finished.Add(1)
	})
	p.show(bot.Reply{Text: "1"})
	if got := <-sent; got != "1" {
		t.Fatalf("first edit = %q, want 1", got)
	}
	p.show(bot.Reply{Text: "2"}) // while 1 is being sent: neither call waits
	p.show(bot.Reply{Text: "3"})
	release <- struct{}{}
	if got := <-sent; got != "3" {
		t.Errorf("edit after 1 = %q, want 3 (the latest)", got)
	}
	stopped := make(chan struct{})
	go func() { p.stop(); close(stopped) }()
	release <- struct{}{}
	<-stopped
	if finished.Load() != 2 {
		t.Errorf("stop returned with %d edits finished, want 2", finished.Load())
	}
	p.show(bot.Reply{Text: "4"})
	if len(sent) != 0 {
		t.Errorf("edit %q sent after stop", <-sent)
	}
}
