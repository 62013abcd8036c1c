package bot

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/storage"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

// t0 is when the link tests start, on the fake clock.
var t0 = time.Date(2026, 11, 22, 17, 0, 0, 0, time.UTC)

// recordedEvents records the events the core emits.
type recordedEvents struct {
	mu       sync.Mutex
	verified []core.Wallet
	moved    []core.Wallet
	unlinked []core.Wallet
}

func (r *recordedEvents) WalletVerified(_ context.Context, _ core.User, w core.Wallet, moved []core.Wallet) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.verified = append(r.verified, w)
	r.moved = append(r.moved, moved...)
}

func (r *recordedEvents) WalletUnlinked(_ context.Context, _ core.User, wallets []core.Wallet) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.unlinked = append(r.unlinked, wallets...)
}

func (r *recordedEvents) MemberForgotten(_ context.Context, f core.Forgotten) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.unlinked = append(r.unlinked, f.Wallets...)
}

// linkEnv is a bot over a real database, with a fake clock.
type linkEnv struct {
	b      *Bot
	db     *storage.DB
	clock  *coretest.Clock
	events *recordedEvents
	obs    *lockedObserver
}

// lockedObserver is a countingObserver safe for concurrent commands.
type lockedObserver struct {
	mu sync.Mutex
	countingObserver
}

func (o *lockedObserver) ObserveCommand(platform, command, outcome string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.countingObserver.ObserveCommand(platform, command, outcome)
}

// eachLinkEnv runs f on a new environment per dialect (see storagetest).
func eachLinkEnv(t *testing.T, opts Options, f func(t *testing.T, e *linkEnv)) {
	t.Helper()
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		f(t, newLinkEnv(t, newURL(), opts))
	})
}

func newLinkEnv(t *testing.T, databaseURL string, opts Options) *linkEnv {
	t.Helper()
	db, err := storage.Open(t.Context(), databaseURL)
	if err != nil {
		t.Fatalf("storage.Open() = %v", err)
	}
	t.Cleanup(func() { db.Close() })
	e := &linkEnv{db: db, clock: coretest.NewClock(t0), events: &recordedEvents{}, obs: &lockedObserver{}}
	return e.withLimits(core.LinkLimits{}, opts)
}

// withLimits returns a copy of e whose bot, over the same database, clock
// and recorders, holds members to limits (zero fields: the defaults).
func (e *linkEnv) withLimits(limits core.LinkLimits, opts Options) *linkEnv {
	c := *e
	svc := coretest.NewServices(coretest.Deps{Store: e.db, Wallets: e.db, Scanner: stubIssuer{}, BotName: "POAP bot",
		Events: e.events, Clock: e.clock, WalletLimits: limits, PublicURL: opts.PublicURL})
	opts.Observer = e.obs
	c.b = New(Services(svc), opts)
	return &c
}

// as runs a command line as the console member who.
func (e *linkEnv) as(t *testing.T, who, line string) Reply {
	t.Helper()
	req := &Request{Place: core.Place{Platform: core.Console, ExternalID: "console"}, Caller: Caller{ExternalID: who, Name: who}}
	reply, ok := e.b.HandleLine(context.Background(), req, line, "")
	if !ok {
		t.Fatalf("HandleLine(%q) says not a command", line)
	}
	if !reply.Personal {
		t.Errorf("%s: reply is public, want personal: %q", line, reply.Text)
	}
	return reply
}

// state is what the database holds about a member.
type state struct {
	Known      bool
	Wallets    []core.Wallet
	Challenges []core.Challenge
}

// snapshot reads what the database holds about the console member who.
func (e *linkEnv) snapshot(t *testing.T, who string) state {
	t.Helper()
	u, err := e.db.FindUser(t.Context(), core.Console, who)
	if err != nil {
		return state{}
	}
	wallets, err := e.db.Wallets(t.Context(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	challenges, err := e.db.RecentChallenges(t.Context(), u.ID, 100)
	if err != nil {
		t.Fatal(err)
	}
	return state{Known: true, Wallets: wallets, Challenges: challenges}
}

// message returns the challenge message in the code block of a /link
// reply, checking that coretest.FindMessage finds the same.
func message(t *testing.T, r Reply) string {
	t.Helper()
	_, rest, ok := strings.Cut(r.Text, "```\n")
	block, _, ok2 := strings.Cut(rest, "\n```")
	if !ok || !ok2 {
		t.Fatalf("reply has no code block:\n%s", r.Text)
	}
	if found, ok := coretest.FindMessage(r.Text, "POAP bot"); !ok || found != block {
		t.Errorf("coretest.FindMessage() = %q, %v, want %q", found, ok, block)
	}
	return block
}

// linkAndSign links wallet as who and returns the /verify line that signs
// the challenge with key.
func (e *linkEnv) linkAndSign(t *testing.T, who, wallet string) string {
	t.Helper()
	return "/verify " + coretest.Sign(coretest.TestKey, message(t, e.as(t, who, "/link "+wallet)))
}

// wantText fails the test unless the reply contains every want.
// shown is the reply's text with its mentions rendered plain, as the
// console and Telegram show them.
func shown(r Reply) string { return RenderMentions(r.Text, Mention.Plain) }

// wantText fails the test unless the reply's text, as shown, has every one
// of wants.
func wantText(t *testing.T, r Reply, wants ...string) {
	t.Helper()
	text := shown(r)
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("reply lacks %q:\n%s", want, text)
		}
	}
}

// sameState fails the test when the member's stored state changed, as
// opts compare it.
func sameState(t *testing.T, before, after state, opts ...cmp.Option) {
	t.Helper()
	if diff := cmp.Diff(before, after, opts...); diff != "" {
		t.Errorf("stored state changed (-before +after):\n%s", diff)
	}
}

// runConcurrently runs f(0..n-1) in n goroutines released at once and
// waits for them.
func runConcurrently(n int, f func(i int)) {
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			f(i)
		})
	}
	close(start)
	wg.Wait()
}
