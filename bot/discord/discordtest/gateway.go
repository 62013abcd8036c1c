package discordtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
)

// Connection is one gateway connection as the fake saw it.
type Connection struct {
	// Token is the token sent in Identify, as sent ("Bot test-token").
	Token   string
	Intents discordgo.Intent
	// Shard is [id, count]; [0, 1] when Identify named none, as Discord
	// assumes.
	Shard [2]int
	// Open is true until either side closes the connection.
	Open bool
	// CloseCode is the close code the client sent, 0 if it sent none.
	CloseCode int
	// Resumed is true for a connection that resumed a session (op 6)
	// rather than identifying.
	Resumed bool
	// SessionID is the gateway session's id, as READY gave it.
	SessionID string
	At        time.Time
}

// conn is one identified websocket.
type conn struct {
	ws  *websocket.Conn
	wmu sync.Mutex // one writer at a time
	seq int64      // guarded by wmu

	// guarded by Server.mu
	info Connection
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// send writes one gateway payload; dispatches (op 0) get the next sequence.
// The data is encoded before the connection is taken, so that concurrent
// dispatches (a thousand members pressing a button at once) queue for the
// write alone, not for each other's encoding.
func (c *conn) send(op int, event string, d any) error {
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"op":%d,"d":%s`, op, data)
	if op == 0 {
		c.seq++
		t, _ := json.Marshal(event)
		fmt.Fprintf(&b, `,"s":%d,"t":%s`, c.seq, t)
	}
	b.WriteByte('}')
	_ = c.ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return c.ws.WriteMessage(websocket.TextMessage, b.Bytes())
}

// close ends the connection from the server's side.
func (c *conn) close() {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	msg := websocket.FormatCloseMessage(websocket.CloseGoingAway, "server closing")
	_ = c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
	_ = c.ws.Close()
}

// gateway serves one websocket: Hello, Identify, READY and GUILD_CREATE,
// then heartbeat ACKs until the connection ends.
func (s *Server) gateway(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		http.Error(w, "closed", http.StatusServiceUnavailable)
		return
	}
	s.handlers.Add(1)
	s.mu.Unlock()
	defer s.handlers.Done()

	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer ws.Close()
	if !s.held() {
		return
	}
	c := &conn{ws: ws}
	if err := s.handshake(c); err != nil {
		return
	}
	s.serveConn(c)
}

// handshake sends Hello, reads Identify, checks the token and sends READY
// and the guild. The connection is recorded once identified.
func (s *Server) handshake(c *conn) error {
	hello := map[string]any{"heartbeat_interval": s.opts.HeartbeatInterval.Milliseconds()}
	if err := c.send(10, "", hello); err != nil {
		return err
	}
	_ = c.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	var p struct {
		Op int `json:"op"`
		D  struct {
			Token     string           `json:"token"`
			Intents   discordgo.Intent `json:"intents"`
			Shard     *[2]int          `json:"shard"`
			SessionID string           `json:"session_id"`
		} `json:"d"`
	}
	if err := c.ws.ReadJSON(&p); err != nil {
		return err
	}
	if p.Op == 6 {
		resumed, err := s.resume(c, p.D.Token, p.D.SessionID)
		if resumed || err != nil {
			return err
		}
		// Invalid Session: the client identifies again.
		if err := c.ws.ReadJSON(&p); err != nil {
			return err
		}
	}
	_ = c.ws.SetReadDeadline(time.Time{})
	if p.Op != 2 {
		return c.refuse(4003, "Not authenticated.")
	}
	if strings.TrimPrefix(p.D.Token, "Bot ") != s.opts.Token {
		return c.refuse(4004, "Authentication failed.")
	}
	shard := [2]int{0, 1}
	if p.D.Shard != nil {
		shard = *p.D.Shard
	}
	session := "session-" + s.newID()
	c.info = Connection{Token: p.D.Token, Intents: p.D.Intents, Shard: shard, Open: true, SessionID: session, At: s.now()}
	s.mu.Lock()
	if s.sessions == nil {
		s.sessions = map[string]Connection{}
	}
	s.sessions[session] = c.info
	s.endOutageLocked() // a new session: the events of the outage are not replayed
	s.mu.Unlock()
	if err := c.send(0, "READY", s.ready(shard, session)); err != nil {
		return err
	}
	if s.onShard(s.opts.GuildID, shard) {
		if err := c.send(0, "GUILD_CREATE", s.guildCreate()); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.conns = append(s.conns, c)
	s.notifyLocked()
	s.mu.Unlock()
	return nil
}

// refuse closes the connection with a gateway close code.
func (c *conn) refuse(code int, reason string) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
	return errors.New(reason)
}

func (s *Server) ready(shard [2]int, session string) map[string]any {
	var guilds []map[string]any
	if s.onShard(s.opts.GuildID, shard) {
		guilds = append(guilds, map[string]any{"id": s.opts.GuildID, "unavailable": true})
	}
	return map[string]any{
		"v":           10,
		"session_id":  session,
		"user":        map[string]any{"id": s.opts.AppID, "username": "poapbot", "bot": true},
		"application": map[string]any{"id": s.opts.AppID, "flags": 0},
		"guilds":      guilds,
		"shard":       shard,
	}
}

func (s *Server) guildCreate() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	channels, voiceStates, events, members := s.guildCreateVoiceLocked()
	return map[string]any{
		"id": s.opts.GuildID, "name": s.opts.GuildName, "owner_id": s.guild.owner, "member_count": len(s.guild.members),
		"roles": slices.Clone(s.guild.roles), "members": members,
		"channels": channels, "voice_states": voiceStates, "guild_scheduled_events": events,
	}
}

// onShard reports whether events of the guild go to that shard, by
// Discord's rule (guild_id >> 22) % count; DMs ("") go to shard 0.
func (s *Server) onShard(guildID string, shard [2]int) bool {
	id, err := strconv.ParseUint(guildID, 10, 64)
	if guildID == "" || err != nil || shard[1] <= 1 {
		return shard[0] == 0
	}
	return int((id>>22)%uint64(shard[1])) == shard[0]
}

// serveConn acknowledges heartbeats until the connection ends, then marks
// it closed with the client's close code.
func (s *Server) serveConn(c *conn) {
	code := 0
	for {
		var p struct {
			Op int `json:"op"`
		}
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				code = ce.Code
			}
			break
		}
		if json.Unmarshal(data, &p) == nil && p.Op == 1 {
			if c.send(11, "", nil) != nil {
				break
			}
		}
	}
	s.mu.Lock()
	c.info.Open, c.info.CloseCode = false, code
	s.notifyLocked()
	s.mu.Unlock()
}

// Connections returns every identified gateway connection, in order.
func (s *Server) Connections() []Connection {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Connection, len(s.conns))
	for i, c := range s.conns {
		out[i] = c.info
	}
	return out
}

// WaitConnected waits until a client has identified and is connected,
// and returns that connection.
func (s *Server) WaitConnected(ctx context.Context) (Connection, error) {
	var got Connection
	err := s.wait(ctx, func() bool {
		for _, c := range s.conns {
			if c.info.Open {
				got = c.info
				return true
			}
		}
		return false
	})
	return got, err
}

// WaitClosed waits until at least one client has connected and every
// connection is closed.
func (s *Server) WaitClosed(ctx context.Context) error {
	return s.wait(ctx, func() bool {
		for _, c := range s.conns {
			if c.info.Open {
				return false
			}
		}
		return len(s.conns) > 0
	})
}

// Dispatch sends any gateway event (GUILD_MEMBER_ADD, ...) with its data
// to the connection of the test guild's shard. During an outage
// (DropGateway) it keeps the event for a resumed session and returns.
func (s *Server) Dispatch(ctx context.Context, event string, data any) error {
	if s.missed(event, data) {
		return nil
	}
	c, err := s.connFor(ctx, s.opts.GuildID)
	if err != nil {
		return err
	}
	return c.send(0, event, data)
}
