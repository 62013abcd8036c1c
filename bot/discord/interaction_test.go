package discord

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/poap/sandbox"
)

// wantAck checks the acknowledgement of an interaction: the fake answers
// 204 only to a callback within Discord's deadline.
func wantAck(t *testing.T, it *discordtest.Interaction, typ discordgo.InteractionResponseType, ephemeral bool) discordtest.Response {
	t.Helper()
	resp, err := it.WaitResponse(timeout(t, 10*time.Second))
	if err != nil {
		t.Fatalf("WaitResponse: %v", err)
	}
	if resp.Type != typ || resp.Ephemeral() != ephemeral || resp.Status != 204 {
		t.Errorf("acknowledgement = type %d, ephemeral %v, status %d; want type %d, ephemeral %v, 204",
			resp.Type, resp.Ephemeral(), resp.Status, typ, ephemeral)
	}
	return resp
}

// wantReply waits for the reply and checks it is personal and says want.
func wantReply(t *testing.T, it *discordtest.Interaction, want string) discordtest.Message {
	t.Helper()
	m, err := it.WaitReply(timeout(t, 15*time.Second))
	if err != nil {
		t.Fatalf("WaitReply: %v", err)
	}
	if !strings.Contains(m.Content, want) || !m.Ephemeral {
		t.Errorf("reply = %q (ephemeral %v), want an ephemeral reply containing %q", m.Content, m.Ephemeral, want)
	}
	return m
}

func TestAdapter_Interaction(t *testing.T) {
	t.Parallel()
	t.Run("FastPersonal", func(t *testing.T) {
		t.Parallel()
		r := start(t, Options{GuildID: discordtest.DefaultGuildID})
		it := r.fake.Command(discordtest.Alice, "/help")
		wantAck(t, it, discordgo.InteractionResponseChannelMessageWithSource, true)
		wantReply(t, it, "brings POAPs")
	})
	t.Run("SlowIssuer", func(t *testing.T) {
		t.Parallel()
		r := start(t, Options{GuildID: discordtest.DefaultGuildID}) // default AckAfter
		r.sandbox.SetLatency(5 * time.Second)
		it := r.fake.Command(discordtest.Alice, "/poaps "+sandbox.DemoWallet)
		ack := wantAck(t, it, discordgo.InteractionResponseDeferredChannelMessageWithSource, true)
		t.Logf("acknowledged %s after creation (issuing service latency 5 s)", ack.Delay().Round(time.Millisecond))
		m := wantReply(t, it, "POAPs of")
		if _, ok := m.Button("Next"); !ok {
			t.Errorf("reply buttons = %+v, want Next", m.Buttons)
		}
		wantPictures(t, m, 10)
		if rs := it.Responses(); rs[len(rs)-1].Kind != discordtest.KindEdit {
			t.Errorf("last response = %s, want the edit of the deferral", rs[len(rs)-1].Kind)
		}
	})
	t.Run("Buttons", func(t *testing.T) {
		t.Parallel()
		r := start(t, Options{GuildID: discordtest.DefaultGuildID})
		first := wantReply(t, r.fake.Command(discordtest.Alice, "/poaps "+sandbox.DemoWallet), "(page 1 of 2)")
		next, ok := first.Button("Next")
		if !ok || next.Style != discordgo.SecondaryButton {
			t.Fatalf("first page buttons = %+v, want a Next command button", first.Buttons)
		}
		if !strings.HasPrefix(next.CustomID, "b:") || len(next.CustomID) != 2+core.ButtonIDLen {
			t.Errorf("Next custom_id = %q, want b: and an action's id", next.CustomID)
		}
		// The button is Alice's: Bob is told so, and sees no page.
		wantReply(t, r.fake.Press(discordtest.Bob, next.CustomID), "belongs to the member who ran the command")
		it := r.fake.Press(discordtest.Alice, next.CustomID)
		wantAck(t, it, discordgo.InteractionResponseChannelMessageWithSource, true)
		second := wantReply(t, it, "(page 2 of 2)")
		if _, ok := second.Button("Previous"); !ok {
			t.Errorf("second page buttons = %+v, want Previous", second.Buttons)
		}
		wantPictures(t, first, 10)
		wantPictures(t, second, 4)
	})
	t.Run("DM", func(t *testing.T) {
		t.Parallel()
		r := start(t, Options{})
		it := r.fake.CommandDM(discordtest.Bob, "/poaps wallet:"+sandbox.DemoWallet2)
		wantAck(t, it, discordgo.InteractionResponseChannelMessageWithSource, true)
		wantReply(t, it, "POAPs of")
	})
	t.Run("ForgedButtons", func(t *testing.T) {
		t.Parallel()
		r := start(t, Options{GuildID: discordtest.DefaultGuildID})
		first := wantReply(t, r.fake.Command(discordtest.Alice, "/poaps "+sandbox.DemoWallet), "(page 1 of 2)")
		next, _ := first.Button("Next")
		// Alice's own button, pressed outside the server it was made in.
		wantReply(t, r.fake.Interact(discordtest.InteractionSpec{User: discordtest.Alice, DM: true, CustomID: next.CustomID}), "I did not make this button")
		wantReply(t, r.fake.Press(discordtest.Alice, "b:"+strings.Repeat("A", core.ButtonIDLen)), "I did not make this button")
		wantReply(t, r.fake.Press(discordtest.Alice, "B:forget"), "I did not make this button")
		wantReply(t, r.fake.Press(discordtest.Moderator, "cmd:drop remove 197001"), "older version")
		wantReply(t, r.fake.Press(discordtest.Alice, "cmd:forget"), "older version")
		// An old claim message's button still claims its drop.
		m := wantReply(t, r.fake.Press(discordtest.Alice, "cmd:claim 197001"), "197001")
		if strings.Contains(m.Content, "older version") {
			t.Errorf("old claim button = %q, want the claim's answer", m.Content)
		}
	})
	t.Run("ForeignButton", func(t *testing.T) {
		t.Parallel()
		r := start(t, Options{})
		it := r.fake.Press(discordtest.Alice, "someone-else:42")
		wantAck(t, it, discordgo.InteractionResponseChannelMessageWithSource, true)
		wantReply(t, it, "no longer works")
	})
	t.Run("Concurrent", func(t *testing.T) {
		t.Parallel()
		r := start(t, Options{GuildID: discordtest.DefaultGuildID})
		its := make(chan *discordtest.Interaction, 20)
		for range cap(its) {
			go func() { its <- r.fake.Command(discordtest.Moderator, "/poaps "+sandbox.DemoWallet2) }()
		}
		for range cap(its) {
			it := <-its
			// The issuing-service client paces its requests, so some of
			// these are deferred; all are acknowledged in time.
			ack, err := it.WaitResponse(timeout(t, 10*time.Second))
			if err != nil || !ack.Ephemeral() || ack.Status != 204 {
				t.Errorf("acknowledgement = %+v, %v; want an ephemeral one in time (204)", ack, err)
			}
			wantReply(t, it, "POAPs of")
		}
		if late := r.fake.LateCallbacks(); len(late) != 0 {
			t.Errorf("late callbacks: %+v", late)
		}
	})
}

// heldIssuer answers Holdings once released, and tells when a call
// starts waiting.
type heldIssuer struct {
	entered chan struct{}
	release chan struct{}
}

func (h heldIssuer) Holdings(ctx context.Context, _ string) ([]core.Holding, error) {
	h.entered <- struct{}{}
	select {
	case <-h.release:
		return []core.Holding{{DropID: 1, DropName: "Held drop", Chain: "xdai"}}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// wantPictures checks that a /poaps reply shows n POAPs as embeds: each
// with the POAP's small image as its large image and, as its title, the
// drop's name and id, a drop the text lists too.
func wantPictures(t *testing.T, m discordtest.Message, n int) {
	t.Helper()
	if len(m.Embeds) != n {
		t.Fatalf("reply embeds = %d, want %d", len(m.Embeds), n)
	}
	for i, e := range m.Embeds {
		id := "" // "#163450" of "Tokyo Ethereum Meetup #7 (#163450)"
		if cut := strings.LastIndex(e.Title, " (#"); cut > 0 {
			id = strings.TrimSuffix(e.Title[cut+len(" ("):], ")")
		}
		if e.Image == nil || !strings.HasPrefix(e.Image.URL, "https://assets.poap.xyz/") || !strings.HasSuffix(e.Image.URL, "?size=small") ||
			e.Thumbnail != nil || id == "" || !strings.Contains(m.Content, "** · drop "+id+" · ") {
			t.Errorf("embed %d = title %q, image %+v, thumbnail %+v; want a small image titled with a drop of the text", i, e.Title, e.Image, e.Thumbnail)
		}
	}
}

// TestAdapter_Busy: while MaxCommands commands run, an interaction is
// deferred, not answered in one response, and its command runs once a
// slot frees up (and its three seconds are over).
func TestAdapter_Busy(t *testing.T) {
	t.Parallel()
	fake := discordtest.NewServer(t, discordtest.Options{})
	held := heldIssuer{entered: make(chan struct{}, 1), release: make(chan struct{})}
	b := bot.New(bot.Services(coretest.NewServices(coretest.Deps{Scanner: held})), bot.Options{})
	a, err := New(Options{
		Token: core.Secret(fake.Token()), APIURL: fake.URL(), GuildID: discordtest.DefaultGuildID, MaxCommands: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, b) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v", err)
		}
	})
	release := sync.OnceFunc(func() { close(held.release) })
	t.Cleanup(release) // before Run's cleanup, which waits for the command
	slow := fake.Command(discordtest.Alice, "/poaps "+sandbox.DemoWallet)
	select {
	case <-held.entered: // the one slot is taken until release
	case <-timeout(t, 10*time.Second).Done():
		t.Fatal("the first command did not start")
	}
	it := fake.Command(discordtest.Bob, "/help")
	ack := wantAck(t, it, discordgo.InteractionResponseDeferredChannelMessageWithSource, true)
	t.Logf("deferred %s after creation while the slot was taken", ack.Delay().Round(time.Millisecond))
	release()
	wantReply(t, it, "brings POAPs")
	wantReply(t, slow, "POAPs of")
}

func TestCreated(t *testing.T) {
	t.Parallel()
	received := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	// snowflake returns an id created at t, as Discord makes them.
	snowflake := func(t time.Time) string {
		return strconv.FormatInt((t.UnixMilli()-1420070400000)<<22|42, 10)
	}
	tests := []struct {
		name string
		id   string
		want time.Time
	}{
		{"ReceivedAtOnce", snowflake(received), received},
		{"ReceivedLate", snowflake(received.Add(-2 * time.Second)), received.Add(-2 * time.Second)},
		{"ClockBehind", snowflake(received.Add(time.Second)), received},
		{"ClockAhead", snowflake(received.Add(-time.Minute)), received},
		{"NotASnowflake", "x", received},
	}
	for _, tt := range tests {
		if got := created(tt.id, received); !got.Equal(tt.want) {
			t.Errorf("%s: created(%s, received) = received%+v, want received%+v", tt.name, tt.id, got.Sub(received), tt.want.Sub(received))
		}
	}
}

// TestAdapter_Complete covers replies whose visibility differs from the
// deferral's: the member must end with exactly the reply, with its own
// visibility, and a personal reply must never be public, even for a moment.
func TestAdapter_Complete(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		deferPrivate  bool
		reply         bot.Reply
		wantEphemeral bool
	}{
		{"Same", true, bot.Reply{Text: "your link", Personal: true, Pictures: picturesOf(3)}, true},
		{"PersonalAfterPublic", false, bot.Reply{Text: "your link", Personal: true, Pictures: picturesOf(3)}, true},
		{"PublicAfterPrivate", true, bot.Reply{Text: "claim here", Pictures: picturesOf(3)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := discordtest.NewServer(t, discordtest.Options{})
			a, err := newAdapter(plainBot(), Options{Token: core.Secret(fake.Token()), APIURL: fake.URL()})
			if err != nil {
				t.Fatal(err)
			}
			it, raw, err := fake.Build(discordtest.InteractionSpec{Data: &discordgo.ApplicationCommandInteractionData{Name: "help"}})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := a.deferReply(ctx, a.session, raw, tt.deferPrivate); err != nil {
				t.Fatalf("deferReply: %v", err)
			}
			a.complete(ctx, a.session, raw, tt.reply, tt.deferPrivate)
			msgs := it.Messages()
			if len(msgs) != 1 || msgs[0].Content != tt.reply.Text || msgs[0].Ephemeral != tt.wantEphemeral {
				t.Fatalf("messages = %+v, want only %q with ephemeral %v", msgs, tt.reply.Text, tt.wantEphemeral)
			}
			if diff := cmp.Diff(pictureEmbeds(3), msgs[0].Embeds); diff != "" {
				t.Errorf("message embeds mismatch (-want +got):\n%s", diff)
			}
			for _, resp := range it.Responses() {
				if strings.Contains(resp.Content, tt.reply.Text) && tt.reply.Personal && !resp.Ephemeral() {
					t.Errorf("personal text sent publicly in a %s", resp.Kind)
				}
			}
		})
	}
}

// TestAdapter_RefusedMessage checks that a reply Discord refuses for its
// image or buttons still reaches the member as text.
func TestAdapter_RefusedMessage(t *testing.T) {
	t.Parallel()
	fake := discordtest.NewServer(t, discordtest.Options{})
	a, err := newAdapter(plainBot(), Options{Token: core.Secret(fake.Token()), APIURL: fake.URL()})
	if err != nil {
		t.Fatal(err)
	}
	reply := bot.Reply{Text: "your POAPs", Personal: true, Image: "ftp://img.test/1.png", Buttons: []bot.Button{{Label: "Open", URL: "javascript:alert(1)"}}}
	ctx := context.Background()
	t.Run("Respond", func(t *testing.T) {
		it, raw, err := fake.Build(discordtest.InteractionSpec{Data: &discordgo.ApplicationCommandInteractionData{Name: "help"}})
		if err != nil {
			t.Fatal(err)
		}
		a.respond(ctx, a.session, raw, reply)
		if msgs := it.Messages(); len(msgs) != 1 || msgs[0].Content != "your POAPs" || !msgs[0].Ephemeral || len(msgs[0].Buttons) != 0 {
			t.Errorf("messages = %+v, want the text alone, ephemeral", msgs)
		}
	})
	t.Run("Edit", func(t *testing.T) {
		it, raw, err := fake.Build(discordtest.InteractionSpec{Data: &discordgo.ApplicationCommandInteractionData{Name: "help"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.deferReply(ctx, a.session, raw, true); err != nil {
			t.Fatal(err)
		}
		a.complete(ctx, a.session, raw, reply, true)
		if msgs := it.Messages(); len(msgs) != 1 || msgs[0].Content != "your POAPs" || msgs[0].Loading || len(msgs[0].Embeds) != 0 {
			t.Errorf("messages = %+v, want the text alone", msgs)
		}
	})
}
