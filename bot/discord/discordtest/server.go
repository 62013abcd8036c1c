// Package discordtest is a fake Discord for tests: the REST routes the bot
// calls and a gateway websocket, served on loopback so that the real
// discordgo client talks to it. Point the bot at URL() (the value of
// DISCORD_API_URL) with DefaultToken, then dispatch interactions and wait
// for the bot's answers:
//
//	srv := discordtest.NewServer(t, discordtest.Options{}) // before the bot: closes after it
//	// run the bot: DISCORD_API_URL=srv.URL(), DISCORD_TOKEN=discordtest.DefaultToken,
//	// DISCORD_GUILD_ID=srv.GuildID()
//	it := srv.Command(discordtest.Alice, "/poaps 0x5aAe…")
//	ack, err := it.WaitResponse(ctx) // the acknowledgement: ack.Status, ack.Type, ack.Ephemeral()
//	msg, err := it.WaitReply(ctx)    // the message Alice reads: msg.Content, msg.Ephemeral
//	next, _ := msg.Button("Next")
//	it = srv.Press(discordtest.Bob, next.CustomID)
//
// The fake keeps each interaction's conversation the way Discord does: a
// deferred response is a loading message until edited, a follow-up sent
// while it loads replaces it and keeps its visibility, a second callback
// fails with 40060 and a callback later than the acknowledgement deadline
// (3 s after the interaction's creation, which its snowflake id encodes)
// with 10062 Unknown interaction. LateCallbacks lists those: a test checks
// "in time" by the fake's verdict, as Discord judges it, never by timing
// the bot. Options.Clock replaces the wall clock. Messages the bot posts in
// channels (POST and PATCH /channels/{id}/messages) are kept too:
// ChannelMessages, WaitChannelMessage, and DenyChannel for a channel the
// bot may not post in (403, 50013 Missing Permissions). The test guild
// has roles and members for gating: GET /guilds/{g}, its roles and its
// members (404, 10007 Unknown Member), role changes that refuse what
// Discord refuses (403, 50013) and dispatch GUILD_MEMBER_UPDATE, AddRole,
// AddMember, SetBotRoles, Join and Leave (GUILD_MEMBER_ADD and _REMOVE),
// ForbidRoleChanges, RateLimitRoleChanges (429 with retry_after) and
// WaitRole; the bot's DMs (POST /users/@me/channels, DMs, CloseDMs for
// 50007). Files members attach: AddFile and AddFileFunc (with
// PseudoRandom for a large one) register a file that a typed line's
// attachment option resolves to by name, served at a signed attachment URL
// on the fake's origin (ex, is and hm query parameters, as Discord's CDN
// links carry; 404 when the signature is wrong or the file was removed,
// RemoveFile). Outages (reconnect.go): DropGateway drops the gateway
// connection as a network failure would, and Reconnect lets the bot back,
// resuming its session (the events of the outage replayed, then RESUMED)
// or not (Invalid Session, then READY and GUILD_CREATE). Voice (voice.go): AddVoiceChannel (voice or stage),
// SetVoice, JoinVoice and LeaveVoice (VOICE_STATE_UPDATE), PutVoice (the
// voice_states of GUILD_CREATE), AddBot, scheduled events
// (AddScheduledEvent, SetScheduledEventStatus, DeleteScheduledEvent: their
// GUILD_SCHEDULED_EVENT_* events, and GET .../scheduled-events) and GET
// /channels/{id}. Routes it does not know answer 404 and are recorded; HandleFunc
// adds more, Dispatch sends other gateway events. Build and Session serve tests that call handlers
// directly.
//
// Stop the bot before the server closes (create the server first, so that
// its cleanup runs last): a discordgo session whose gateway drops keeps
// trying to reconnect.
package discordtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Defaults of Options, usable as test constants.
const (
	DefaultToken     = "test-token"
	DefaultAppID     = "100000000000000001"
	DefaultGuildID   = "200000000000000002"
	DefaultGuildName = "Test server"
	DefaultChannelID = "300000000000000003"
)

// waitLimit bounds the waits Interact does on the test's behalf (for a
// gateway connection, for registered commands).
const waitLimit = 5 * time.Second

// Options configure a Server. The zero value uses the defaults above.
type Options struct {
	// Token is the bot token the fake accepts, without "Bot ".
	Token string
	// AppID is the application (and bot user) id READY announces.
	AppID string
	// GuildID and GuildName describe the one server the bot is in.
	GuildID   string
	GuildName string
	// HeartbeatInterval is announced in Hello; default 1 s, so that tests
	// exercise heartbeats.
	HeartbeatInterval time.Duration
	// AckDeadline is how long after its creation an interaction callback
	// is accepted; default 3 s, Discord's.
	AckDeadline time.Duration
	// Clock tells the fake's time: the creation time its ids (snowflakes)
	// encode, the acknowledgement deadline, the times it records. The
	// zero value is the wall clock; a test that must step past a deadline
	// sets a clock it moves by hand.
	Clock Clock
}

// Clock tells the time.
type Clock interface {
	Now() time.Time
}

// wallClock is the real time.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

// Request is one HTTP request the fake received.
type Request struct {
	Method string
	Path   string
	Query  string
	// Host is the Host the request was sent to.
	Host string
	// Authorized says whether it carried "Bot <token>".
	Authorized bool
	Body       []byte
	At         time.Time
}

// Server is the fake Discord. It is safe for concurrent use.
type Server struct {
	opts Options
	http *httptest.Server
	mux  *http.ServeMux
	// handlers counts running gateway connections, which httptest does
	// not wait for once hijacked.
	handlers sync.WaitGroup

	mu           sync.Mutex
	changed      chan struct{} // closed and replaced on every change
	closed       bool
	lastID       int64
	requests     []Request
	conns        []*conn
	commands     map[string][]json.RawMessage // by scope: "" global, else guild id
	interactions map[string]*Interaction      // by token
	posts        []*ChannelMessage            // messages posted in channels
	denied       map[string]bool              // channels the bot may not post in
	closedDMs    map[string]bool              // DM channels that refuse messages
	late         []LateCallback               // callbacks after the deadline
	guild        guildState                   // the test guild's roles and members
	limits       roleLimits                   // knobs of role changes
	files        fileState                    // files members attach
	voice        voiceWorld                   // voice and stage channels, voice states, scheduled events
	sessions     map[string]Connection        // gateway sessions by id, for Resume
	outage       *outage                      // set from DropGateway until the bot is back
}

// NewServer starts a fake Discord on loopback and closes it when the test
// ends.
func NewServer(tb testing.TB, opts Options) *Server {
	tb.Helper()
	s := &Server{
		opts:         withDefaults(opts),
		mux:          http.NewServeMux(),
		changed:      make(chan struct{}),
		commands:     map[string][]json.RawMessage{},
		interactions: map[string]*Interaction{},
		denied:       map[string]bool{},
		closedDMs:    map[string]bool{},
		files:        fileState{byName: map[string]*file{}, attached: map[string]string{}},
	}
	s.guild = newGuildState(s.opts)
	s.routes()
	s.http = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(s.Close)
	return s
}

func withDefaults(o Options) Options {
	set := func(v *string, def string) {
		if *v == "" {
			*v = def
		}
	}
	set(&o.Token, DefaultToken)
	set(&o.AppID, DefaultAppID)
	set(&o.GuildID, DefaultGuildID)
	set(&o.GuildName, DefaultGuildName)
	if o.HeartbeatInterval <= 0 {
		o.HeartbeatInterval = time.Second
	}
	if o.AckDeadline <= 0 {
		o.AckDeadline = 3 * time.Second
	}
	if o.Clock == nil {
		o.Clock = wallClock{}
	}
	return o
}

// URL returns the fake's origin, http://127.0.0.1:port: the value of
// DISCORD_API_URL.
func (s *Server) URL() string { return s.http.URL }

// Token returns the bot token the fake accepts.
func (s *Server) Token() string { return s.opts.Token }

// AppID returns the application id.
func (s *Server) AppID() string { return s.opts.AppID }

// GuildID returns the test server's id.
func (s *Server) GuildID() string { return s.opts.GuildID }

// HandleFunc adds a route, in http.ServeMux pattern syntax, for REST calls
// the fake does not know yet ("PUT /api/{v}/guilds/{g}/members/{u}/roles/{r}").
// Requests to it are recorded like all others.
func (s *Server) HandleFunc(pattern string, h http.HandlerFunc) { s.mux.HandleFunc(pattern, h) }

// Close closes the gateway connections and stops the server. It is safe to
// call more than once.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	conns := append([]*conn(nil), s.conns...)
	if s.outage != nil {
		s.outage.release() // a held connection ends
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
	s.handlers.Wait()
	s.http.Close()
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// serve records the request, then routes it.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	s.mu.Lock()
	s.requests = append(s.requests, Request{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Host: r.Host,
		Authorized: r.Header.Get("Authorization") == "Bot "+s.opts.Token,
		Body:       body, At: s.now(),
	})
	s.notifyLocked()
	s.mu.Unlock()
	s.mux.ServeHTTP(w, r)
}

// authed answers 401 to requests without the bot token, as Discord does.
func (s *Server) authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bot "+s.opts.Token {
			writeError(w, http.StatusUnauthorized, 0, "401: Unauthorized")
			return
		}
		h(w, r)
	}
}

// wait calls cond under the lock after every change until it returns
// true, or ctx is done.
func (s *Server) wait(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		ok, ch := cond(), s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("discordtest: %w", ctx.Err())
		}
	}
}

// notifyLocked wakes the waiters; s.mu must be held.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// now returns the fake's time.
func (s *Server) now() time.Time { return s.opts.Clock.Now() }

// discordEpoch is the start of Discord's snowflake timestamps, 2015-01-01,
// in Unix milliseconds.
const discordEpoch = 1420070400000

// newIDLocked returns a fresh id, a snowflake of the fake's time, as
// Discord's ids are: their creation time in milliseconds since
// discordEpoch, shifted left 22 bits, and a counter. Ids increase; s.mu
// must be held.
func (s *Server) newIDLocked() string {
	id := (s.now().UnixMilli() - discordEpoch) << 22
	if id <= s.lastID {
		id = s.lastID + 1
	}
	s.lastID = id
	return strconv.FormatInt(id, 10)
}

func (s *Server) newID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.newIDLocked()
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers with Discord's error body.
func writeError(w http.ResponseWriter, status, code int, message string) {
	writeJSON(w, status, map[string]any{"message": message, "code": code})
}

// Discord's JSON error codes the fake answers with.
const (
	codeUnknownMessage      = 10008
	codeUnknownWebhook      = 10015
	codeUnknownInteraction  = 10062
	codeAlreadyAcknowledged = 40060
)

// Session returns a discordgo session, not opened, whose REST calls go to
// the fake: for tests that call event handlers directly with interactions
// from Build.
func (s *Server) Session() *discordgo.Session {
	ds, _ := discordgo.New("Bot " + s.opts.Token)
	origin, _ := url.Parse(s.URL())
	ds.Client = &http.Client{Transport: rewrite{origin: origin}, Timeout: 10 * time.Second}
	ds.ShouldReconnectOnError = false
	return ds
}

// rewrite sends every request to origin, keeping path and query.
type rewrite struct{ origin *url.URL }

func (t rewrite) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = t.origin.Scheme, t.origin.Host, ""
	return http.DefaultTransport.RoundTrip(r)
}
