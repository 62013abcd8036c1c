package discordtest

import (
	"strings"
	"sync"
	"time"
)

// outage is a gateway outage a test caused with DropGateway; guarded by
// Server.mu but for its once.
type outage struct {
	released chan struct{} // closed by Reconnect (or Close)
	once     sync.Once
	resume   bool
	missed   []missedEvent
}

// missedEvent is an event dispatched during an outage.
type missedEvent struct {
	event string
	data  any
}

func (o *outage) release() { o.once.Do(func() { close(o.released) }) }

// DropGateway drops the open gateway connections as a network failure
// would (no close frame), so that the bot reconnects. Until Reconnect, its
// new connections wait for Hello and Dispatch keeps the events it is given
// (SetVoice, Leave...) for a resumed session; PutVoice changes what the
// next GUILD_CREATE tells.
func (s *Server) DropGateway() {
	s.mu.Lock()
	if s.outage == nil {
		s.outage = &outage{released: make(chan struct{})}
	}
	var open []*conn
	for _, c := range s.conns {
		if c.info.Open {
			open = append(open, c)
		}
	}
	s.mu.Unlock()
	for _, c := range open {
		c.drop()
	}
}

// Reconnect ends the outage of DropGateway: the bot's connection gets
// Hello. With resume, its Resume (op 6) of a session the fake gave is
// accepted: the events Dispatch kept are sent, then RESUMED, as Discord
// does. Without, it is answered Invalid Session (op 9, not resumable): the
// bot identifies again and gets READY and GUILD_CREATE, with the voice
// states as they are now, and the kept events are dropped.
func (s *Server) Reconnect(resume bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.outage != nil {
		s.outage.resume = resume
		s.outage.release()
	}
}

// held waits, during an outage, for Reconnect; it reports false when the
// server closed meanwhile.
func (s *Server) held() bool {
	s.mu.Lock()
	o := s.outage
	s.mu.Unlock()
	if o != nil {
		<-o.released
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.closed
}

// missed keeps an event dispatched during an outage and reports whether
// it did.
func (s *Server) missed(event string, data any) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.outage == nil {
		return false
	}
	s.outage.missed = append(s.outage.missed, missedEvent{event: event, data: data})
	return true
}

// endOutageLocked forgets the outage once the bot is back; s.mu must be
// held.
func (s *Server) endOutageLocked() {
	if s.outage != nil {
		s.outage.release()
		s.outage = nil
	}
}

// resume answers a Resume (op 6): when Reconnect allowed it and the
// session is one the fake gave, with the events missed and RESUMED
// (resumed true); otherwise with Invalid Session, not resumable, after
// which the client identifies again.
func (s *Server) resume(c *conn, token, session string) (resumed bool, err error) {
	s.mu.Lock()
	info, known := s.sessions[session]
	o := s.outage
	ok := known && o != nil && o.resume && strings.TrimPrefix(token, "Bot ") == s.opts.Token
	var missed []missedEvent
	if ok {
		missed = o.missed
		s.endOutageLocked()
	}
	s.mu.Unlock()
	if !ok {
		return false, c.send(9, "", false)
	}
	c.info = info
	c.info.Open, c.info.Resumed, c.info.CloseCode, c.info.At = true, true, 0, s.now()
	_ = c.ws.SetReadDeadline(time.Time{})
	for _, m := range missed {
		if err := c.send(0, m.event, m.data); err != nil {
			return true, err
		}
	}
	if err := c.send(0, "RESUMED", map[string]any{}); err != nil {
		return true, err
	}
	s.mu.Lock()
	s.conns = append(s.conns, c)
	s.notifyLocked()
	s.mu.Unlock()
	return true, nil
}

// drop closes the connection without a close frame, as a network failure.
func (c *conn) drop() {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.ws.Close()
}
