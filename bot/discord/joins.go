package discord

import (
	"context"
	"log/slog"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/core"
)

// MemberJoins is told of the members who join a server, so that gating
// gives them their roles at once (core's gate service).
type MemberJoins interface {
	// MemberJoined handles a member who joined the server place.
	MemberJoined(ctx context.Context, place string, m core.Member)
}

// Bounds of the handling of joins.
const (
	// joinWorkers handle joins at once. A raid of joins queues rather
	// than running thousands of gate checks side by side.
	joinWorkers = 8
	// joinBacklog joins wait at most (about 1 MB); beyond, joins are
	// dropped and logged: gating's sweep catches up with them.
	joinBacklog = 10_000
	// joinTimeout bounds the handling of one join. It outlives Run's
	// context, so that a join being handled when Run stops completes.
	joinTimeout = time.Minute
)

// join is a member who joined a server.
type join struct {
	place  string
	member core.Member
}

// joinQueue hands joins to MemberJoins from a few workers, so that the
// gateway's handlers never wait for gating.
type joinQueue struct {
	to  MemberJoins
	log *slog.Logger
	ch  chan join

	mu      sync.Mutex
	started bool
	stopped bool
	quit    chan struct{}
	workers sync.WaitGroup
}

func newJoinQueue(to MemberJoins, log *slog.Logger) *joinQueue {
	return &joinQueue{to: to, log: log, ch: make(chan join, joinBacklog), quit: make(chan struct{})}
}

// start starts the workers; the joins they handle get ctx's values.
func (q *joinQueue) start(ctx context.Context) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.started || q.stopped {
		return
	}
	q.started = true
	for range joinWorkers {
		q.workers.Add(1)
		go q.work(context.WithoutCancel(ctx))
	}
}

func (q *joinQueue) work(ctx context.Context) {
	defer q.workers.Done()
	for {
		select {
		case <-q.quit:
			return
		case j := <-q.ch:
			q.handle(ctx, j)
		}
	}
}

// handle hands one join to MemberJoins, within joinTimeout. A panic is
// logged: no join may crash the bot.
func (q *joinQueue) handle(ctx context.Context, j join) {
	ctx, cancel := context.WithTimeout(ctx, joinTimeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			q.log.Error("gating a join panicked", "guild", j.place, "member", j.member.ExternalID, "panic", p, "stack", string(debug.Stack()))
		}
	}()
	q.to.MemberJoined(ctx, j.place, j.member)
}

// add queues a join without waiting; it drops the join, logged, when the
// backlog is full or the queue stopped.
func (q *joinQueue) add(j join) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.stopped {
		q.log.Info("member joined while closing, not gated now", "guild", j.place, "member", j.member.ExternalID)
		return
	}
	select {
	case q.ch <- j:
	default:
		q.log.Warn("too many joins waiting; this one waits for the next gate sync", "guild", j.place, "member", j.member.ExternalID)
	}
}

// stop refuses new joins, waits for the workers to finish the joins they
// handle and logs those left waiting. It may be called more than once.
func (q *joinQueue) stop() {
	q.mu.Lock()
	if q.stopped {
		q.mu.Unlock()
		return
	}
	q.stopped = true
	close(q.quit)
	q.mu.Unlock()
	q.workers.Wait()
	if n := len(q.ch); n > 0 {
		q.log.Warn("joins not gated at shutdown; the next gate sync handles them", "joins", n)
	}
}

// onEvent keeps the member cache from the gateway's member events and
// hands joins to Options.Gates, bots' left out (they hold no wallet). It
// receives every event, with its sequence number, in a goroutine of
// discordgo's.
func (a *Adapter) onEvent(_ *discordgo.Session, e *discordgo.Event) {
	switch ev := e.Struct.(type) {
	case *discordgo.Ready:
		if !a.stopping() { // not a session reopened after Run stopped
			a.members.follow(ev.SessionID, e.Sequence)
		}
	case *discordgo.GuildMemberAdd:
		if ev.Member == nil || ev.User == nil || !a.onShard(ev.GuildID) {
			return
		}
		a.members.event(memberKey{ev.GuildID, ev.User.ID}, true, ev.Roles, e.Sequence)
		if a.joins != nil && !ev.User.Bot {
			a.joins.add(join{place: ev.GuildID, member: core.Member{Platform: core.Discord, ExternalID: ev.User.ID, Name: ev.DisplayName()}})
		}
	case *discordgo.GuildMemberUpdate:
		if ev.Member != nil && ev.User != nil {
			a.members.event(memberKey{ev.GuildID, ev.User.ID}, true, ev.Roles, e.Sequence)
		}
	case *discordgo.GuildMemberRemove:
		if ev.Member != nil && ev.User != nil {
			a.members.event(memberKey{ev.GuildID, ev.User.ID}, false, nil, e.Sequence)
		}
	}
}

// onShard reports whether the guild's events come to this shard, by
// Discord's rule (guild_id >> 22) % shard_count.
func (a *Adapter) onShard(guild string) bool {
	id, err := strconv.ParseUint(guild, 10, 64)
	if err != nil {
		return false
	}
	return int((id>>22)%uint64(a.shardCount)) == a.shardID
}
