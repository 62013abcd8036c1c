package discord

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/core"
)

// joined is a call of MemberJoined.
type joined struct {
	place  string
	member core.Member
}

// joinRecorder is a MemberJoins that hands each join to the test.
type joinRecorder chan joined

func (r joinRecorder) MemberJoined(ctx context.Context, place string, m core.Member) {
	select {
	case r <- joined{place, m}:
	case <-ctx.Done():
	}
}

// waitCached waits until the cache's entry of k satisfies cond.
func waitCached(ctx context.Context, t *testing.T, c *memberCache, k memberKey, cond func(e memberEntry, ok bool) bool) {
	t.Helper()
	for {
		c.mu.Lock()
		var e memberEntry
		el, ok := c.items[k]
		if ok {
			e = *el.Value.(*memberEntry)
		}
		done, changed := cond(e, ok), c.changed
		c.mu.Unlock()
		if done {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("cache entry of %v: %v", k, ctx.Err())
		}
	}
}

// TestGates_Standing checks the answers and where they come from: REST on
// a miss, then the cache, kept by the bot's own changes and the gateway's
// member events.
func TestGates_Standing(t *testing.T) {
	t.Parallel()
	joins := make(joinRecorder, 1)
	r := start(t, Options{Gates: joins})
	fake, g, guild := r.fake, r.adapter.GateActions(), discordtest.DefaultGuildID
	fake.AddRole(discordgo.Role{ID: holdersID, Name: "Holders", Position: 2})
	fake.AddMember(carol, "Carol", holdersID)
	ctx := timeout(t, 10*time.Second)
	check := func(member string, want core.Standing, wantGets int) {
		t.Helper()
		got, err := g.Standing(ctx, guild, holders, member)
		if err != nil || got != want {
			t.Errorf("Standing(%s) = %+v, %v; want %+v", member, got, err, want)
		}
		if n := requests(fake, http.MethodGet, "/members/"+member); n != wantGets {
			t.Errorf("Standing(%s): %d GET requests of the member, want %d", member, n, wantGets)
		}
	}
	check(carol, core.Standing{InPlace: true, Has: true}, 1)
	check(carol, core.Standing{InPlace: true, Has: true}, 1) // cached
	check(dave, core.Standing{}, 1)
	check(dave, core.Standing{}, 1) // not in the server, cached too

	if err := g.Revoke(ctx, guild, holders, carol); err != nil {
		t.Fatal(err)
	}
	check(carol, core.Standing{InPlace: true}, 1)

	if err := fake.Leave(ctx, carol); err != nil {
		t.Fatal(err)
	}
	waitCached(ctx, t, r.adapter.members, memberKey{guild, carol}, func(e memberEntry, ok bool) bool { return ok && !e.in })
	check(carol, core.Standing{}, 1)

	if err := fake.Join(ctx, dave, "Dave"); err != nil {
		t.Fatal(err)
	}
	select {
	case j := <-joins:
		want := joined{guild, core.Member{Platform: core.Discord, ExternalID: dave, Name: "Dave"}}
		if j != want {
			t.Errorf("MemberJoined(%+v), want %+v", j, want)
		}
	case <-ctx.Done():
		t.Fatal("MemberJoined not called after GUILD_MEMBER_ADD")
	}
	waitCached(ctx, t, r.adapter.members, memberKey{guild, dave}, func(e memberEntry, ok bool) bool { return ok && e.in })
	check(dave, core.Standing{InPlace: true}, 1)
}

// TestGates_StandingWithoutGateway checks that nothing is cached without
// a gateway session, whose events would keep the cache current.
func TestGates_StandingWithoutGateway(t *testing.T) {
	t.Parallel()
	fake, a := newGates(t, nil)
	for i := range 2 {
		if got, err := a.GateActions().Standing(context.Background(), discordtest.DefaultGuildID, holders, carol); err != nil || got != (core.Standing{InPlace: true}) {
			t.Errorf("Standing = %+v, %v; want in the server without the role", got, err)
		}
		if n := requests(fake, http.MethodGet, "/members/"+carol); n != i+1 {
			t.Errorf("%d GET requests after %d calls, want one each", n, i+1)
		}
	}
}

// TestAdapter_onEvent checks which joins reach Options.Gates: those of
// this shard's servers, bots left out.
func TestAdapter_onEvent(t *testing.T) {
	t.Parallel()
	a, err := newAdapter(plainBot(), Options{Token: "t", ShardID: 1, ShardCount: 2, Gates: make(joinRecorder)})
	if err != nil {
		t.Fatal(err)
	}
	onShard, offShard := strconv.FormatUint(5<<22, 10), strconv.FormatUint(4<<22, 10)
	add := func(guild string, bot bool) {
		u := &discordgo.User{ID: carol, Username: "carol", Bot: bot}
		a.onEvent(nil, &discordgo.Event{Sequence: 1, Struct: &discordgo.GuildMemberAdd{Member: &discordgo.Member{GuildID: guild, User: u}}})
	}
	add(offShard, false)
	add(onShard, true)
	if n := len(a.joins.ch); n != 0 {
		t.Errorf("%d joins queued from another shard's server and a bot, want none", n)
	}
	add(onShard, false)
	if n := len(a.joins.ch); n != 1 {
		t.Errorf("%d joins queued, want 1", n)
	}
}

func TestMemberCache(t *testing.T) {
	t.Parallel()
	k1, k2, k3 := memberKey{"g", "1"}, memberKey{"g", "2"}, memberKey{"g", "3"}
	roles := func(c *memberCache, k memberKey) []string {
		e, ok := c.get(k)
		if !ok {
			return nil
		}
		return e.roles
	}
	t.Run("Order", func(t *testing.T) {
		c := newMemberCache(10, func(string) bool { return true })
		c.follow("s1", 0)
		c.event(k1, true, []string{"a"}, 5)
		c.event(k1, true, []string{"old"}, 4) // handled late: ignored
		c.store(k1, true, []string{"rest"}, 3)
		if got := roles(c, k1); !cmp.Equal(got, []string{"a"}) {
			t.Errorf("after older updates: %v, want [a]", got)
		}
		c.store(k1, true, []string{"rest"}, c.stamp())
		c.event(k1, true, []string{"old"}, 5)
		if got := roles(c, k1); !cmp.Equal(got, []string{"rest"}) {
			t.Errorf("after a REST answer stamped 5: %v, want [rest]", got)
		}
		c.roleChanged(k1, "b", true)
		if got := roles(c, k1); !cmp.Equal(got, []string{"rest", "b"}) {
			t.Errorf("after adding b: %v, want [rest b]", got)
		}
		c.event(k1, false, []string{"x"}, 6)
		if e, ok := c.get(k1); !ok || e.in || e.roles != nil {
			t.Errorf("after leaving: %+v, %v; want out, without roles", e, ok)
		}
	})
	t.Run("Evict", func(t *testing.T) {
		c := newMemberCache(2, func(string) bool { return true })
		c.follow("s1", 0)
		c.store(k1, true, nil, 0)
		c.store(k2, true, nil, 0)
		c.get(k1)
		c.store(k3, true, nil, 0)
		if _, ok := c.get(k2); ok || c.len() != 2 {
			t.Errorf("k2 cached %v, %d entries; want the least recently used evicted, 2 entries", ok, c.len())
		}
	})
	t.Run("Follow", func(t *testing.T) {
		c := newMemberCache(10, func(g string) bool { return g == "g" })
		c.store(k1, true, nil, 0)
		if c.len() != 0 {
			t.Error("cached without a session")
		}
		c.follow("s1", 0)
		c.store(k1, true, nil, 0)
		c.store(memberKey{"other shard", "1"}, true, nil, 0)
		c.follow("s1", 3) // READY of the same session
		if c.len() != 1 {
			t.Errorf("%d entries, want k1 alone", c.len())
		}
		c.follow("s2", 0)
		if c.len() != 0 {
			t.Errorf("%d entries after a new session, want none", c.len())
		}
	})
}

// slowJoins is a MemberJoins that waits for release, then records its
// context's error.
type slowJoins struct {
	started, release chan struct{}
	mu               sync.Mutex
	done             bool
	ctxErr           error
}

func (s *slowJoins) MemberJoined(ctx context.Context, _ string, _ core.Member) {
	close(s.started)
	<-s.release
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done, s.ctxErr = true, ctx.Err()
}

// TestAdapter_JoinAtShutdown checks that Run, stopping, waits for the
// join being handled, whose context outlives Run's.
func TestAdapter_JoinAtShutdown(t *testing.T) {
	t.Parallel()
	joins := &slowJoins{started: make(chan struct{}), release: make(chan struct{})}
	r := start(t, Options{Gates: joins})
	ctx := timeout(t, 10*time.Second)
	if err := r.fake.Join(ctx, carol, "Carol"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-joins.started:
	case <-ctx.Done():
		t.Fatal("MemberJoined not called")
	}
	r.cancel()
	close(joins.release)
	if err := r.stop(); err != nil {
		t.Fatalf("Run = %v", err)
	}
	joins.mu.Lock()
	defer joins.mu.Unlock()
	if !joins.done || joins.ctxErr != nil {
		t.Errorf("when Run returned: join done %v, its context's error %v; want done, nil", joins.done, joins.ctxErr)
	}
}
