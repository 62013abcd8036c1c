package discord

import (
	"container/list"
	"slices"
	"sync"
)

// maxCachedMembers bounds the member cache of a process: about 10 MB. A
// server of 100,000 members is never listed whole; the members gating
// asks about are read one by one and kept, the least recently used
// evicted first.
const maxCachedMembers = 50_000

// memberKey is a member of a server.
type memberKey struct{ guild, user string }

// memberEntry is what the cache knows of a member: whether they are in the
// server, with which roles, as of the gateway event with sequence seq.
type memberEntry struct {
	key   memberKey
	in    bool
	roles []string
	seq   int64
}

// memberCache keeps the roles of the servers' members, from the gateway's
// member events and from the members read over REST, so that gating's
// Standing rarely calls Discord. It answers only while a gateway session
// is live (events keep it current) and for the servers of this shard,
// which are the ones whose events it receives.
//
// discordgo runs each event's handlers in a goroutine of their own, so two
// events of one member may be handled out of order. Each entry keeps the
// sequence number of the event it comes from: an event older than the
// entry is ignored. An answer read over REST is stamped with the highest
// sequence handled when the request went out, and replaces an entry no
// newer than that.
type memberCache struct {
	max  int
	keep func(guild string) bool // the servers of this shard

	mu      sync.Mutex
	session string // the gateway session the entries follow; "" when none
	seq     int64  // the highest event sequence handled
	order   *list.List
	items   map[memberKey]*list.Element
	changed chan struct{} // closed and replaced on every event applied
}

func newMemberCache(max int, keep func(string) bool) *memberCache {
	return &memberCache{max: max, keep: keep, order: list.New(), items: map[memberKey]*list.Element{}, changed: make(chan struct{})}
}

// follow empties the cache unless it follows that gateway session already:
// a new session has missed the events of the gap (a resumed one has not).
// seq is the session's current sequence. An empty session stops caching.
func (c *memberCache) follow(session string, seq int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if session != "" && session == c.session {
		return
	}
	c.session, c.seq = session, seq
	c.order.Init()
	clear(c.items)
}

// get returns the cached entry of the member.
func (c *memberCache) get(k memberKey) (memberEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if !ok || c.session == "" {
		return memberEntry{}, false
	}
	c.order.MoveToFront(el)
	return *el.Value.(*memberEntry), true
}

// stamp returns the sequence to stamp a REST request going out now with.
func (c *memberCache) stamp() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seq
}

// event applies a member event with sequence seq: the member is in the
// server with roles, or (in false) left it.
func (c *memberCache) event(k memberKey, in bool, roles []string, seq int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq = max(c.seq, seq)
	if el, ok := c.items[k]; ok && el.Value.(*memberEntry).seq >= seq {
		return
	}
	c.putLocked(memberEntry{key: k, in: in, roles: roles, seq: seq})
	close(c.changed)
	c.changed = make(chan struct{})
}

// store keeps an answer read over REST, stamped with stamp, unless an
// event newer than the request was applied meanwhile.
func (c *memberCache) store(k memberKey, in bool, roles []string, stamp int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok && el.Value.(*memberEntry).seq > stamp {
		return
	}
	c.putLocked(memberEntry{key: k, in: in, roles: roles, seq: stamp})
}

// roleChanged records a role the bot added or removed, on a cached member.
// Discord's GUILD_MEMBER_UPDATE that follows confirms it.
func (c *memberCache) roleChanged(k memberKey, role string, add bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if !ok {
		return
	}
	e := el.Value.(*memberEntry)
	roles := slices.DeleteFunc(slices.Clone(e.roles), func(r string) bool { return r == role })
	if add {
		roles = append(roles, role)
	}
	e.roles = roles
}

// putLocked stores e as the most recent entry, evicting the least
// recently used one when the cache is full. c.mu must be held.
func (c *memberCache) putLocked(e memberEntry) {
	if c.session == "" || !c.keep(e.key.guild) {
		return
	}
	if !e.in {
		e.roles = nil
	}
	if el, ok := c.items[e.key]; ok {
		*el.Value.(*memberEntry) = e
		c.order.MoveToFront(el)
		return
	}
	if c.order.Len() >= c.max {
		oldest := c.order.Back()
		delete(c.items, oldest.Value.(*memberEntry).key)
		c.order.Remove(oldest)
	}
	c.items[e.key] = c.order.PushFront(&e)
}

// len returns the number of cached members.
func (c *memberCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
