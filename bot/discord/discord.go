// Package discord is the Discord adapter. It owns the connection to
// Discord (the gateway session, sharded, and the REST client): it
// registers the bot's command table as slash commands, turns interactions
// into bot requests and the bot's replies into interaction responses, and
// acknowledges every interaction within Discord's three seconds. Long
// commands (a Moment's upload) are deferred at once, publicly, and show
// their progress by editing the deferred response.
//
// It also does Discord's part in the core's services: gating by roles
// (GateActions gives and takes roles and tells members and moderators;
// the members who join a server are handed to gating; members' roles are
// kept in a bounded cache fed by the gateway's member events, never by
// listing a server's members), the attachments of a command opened from
// Discord's CDN for Moments (MediaOpener), and its posts kept up to date
// (EditPost, Notify).
//
// With Options.Voice it follows who is in the voice and stage channels
// (VOICE_STATE_UPDATE, GUILD_CREATE's voice states, scheduled events,
// members leaving) for attendance.
//
// The session asks for the Guilds and GuildMembers intents, and with
// Options.Voice for GuildVoiceStates and GuildScheduledEvents too
// (VoiceIntents, not privileged). GuildMembers is privileged: enable
// "Server Members Intent" for the bot in the Discord developer portal, or
// Discord refuses the connection (close code 4014).
package discord

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// Defaults and bounds of Options.
const (
	DefaultAPIURL   = "https://discord.com"
	DefaultAckAfter = 1500 * time.Millisecond
	// discordDeadline is how long after its creation Discord accepts an
	// interaction's first response.
	discordDeadline = 3 * time.Second
	// maxAckAfter leaves the deferral a second to reach Discord before its
	// three-second deadline.
	maxAckAfter = 2 * time.Second
	// commandsPerCPU is the default of Options.MaxCommands per processor
	// the Go runtime uses.
	commandsPerCPU = 4
	// restTimeout bounds one REST call, retries after a 429 included.
	restTimeout = 10 * time.Second
)

// Intents are the gateway intents the adapter asks for: servers, and
// server members for join events (privileged). With Options.Voice it asks
// for VoiceIntents too.
const Intents = discordgo.IntentsGuilds | discordgo.IntentsGuildMembers

// Options configure an Adapter.
type Options struct {
	// Token is the bot token (DISCORD_TOKEN), without "Bot ".
	Token core.Secret
	// GuildID, when set, registers the commands in that server only
	// (instant, for setup); otherwise they are global.
	GuildID string
	// APIURL is the origin that receives every REST call
	// (DISCORD_API_URL); default https://discord.com. Paths stay as
	// discordgo sends them.
	APIURL string
	// ShardID and ShardCount split the gateway across processes; only
	// shard 0 registers the commands. A zero ShardCount means 1.
	ShardID, ShardCount int
	Logger              *slog.Logger
	// HTTPClient, when set, is the base of the REST client; its transport
	// is wrapped to rewrite the origin, the client itself is not changed.
	// Media's opener uses its transport too, as it is.
	HTTPClient *http.Client
	// AckAfter is how long after the interaction's creation a command may
	// run before the interaction is deferred; default 1.5 s, at most 2 s.
	AckAfter time.Duration
	// MaxCommands bounds the commands running at once; default 4 per
	// processor (GOMAXPROCS). An interaction that arrives while that many
	// run is deferred at once, and its command waits until the
	// interaction's three seconds are over, then for one of them to end: in
	// a burst (a thousand members pressing Claim), the acknowledgements go
	// out first. Commands spend CPU (SQLite, JSON) that the gateway reader
	// and the acknowledgements need within those three seconds, and the
	// database pool or the issuing service's rate limit bounds them anyway.
	// Long commands have as many slots again, of their own.
	MaxCommands int
	// Gates, when set, is told of every member who joins a server of
	// this shard (GUILD_MEMBER_ADD) instead of the bot Run serves, which
	// gives them their roles (tests record the joins).
	Gates MemberJoins
	// Voice, when set, is told of the voice states of the servers of this
	// shard, their scheduled events' changes and the members who leave
	// them, each server's in the order the gateway sent them; the session
	// then asks for VoiceIntents too. *core.AttendanceService is one.
	Voice VoiceSink
	// Summaries is called with the summaries of the attendance sessions
	// Voice's Resume and EventChanged stopped, for the caller to post;
	// nil drops them. It runs in the order of the server's voice events,
	// which wait for it: post without waiting long.
	Summaries func(ctx context.Context, summaries []core.AttendanceSummary)
	// VoiceClock tells the time of the voice states Voice is told of; nil
	// is time.Now. It should be Voice's clock (tests move both).
	VoiceClock func() time.Time
	// Observer, when set, is told of the voice events dropped, for
	// metrics; web.Metrics satisfies it.
	Observer Observer
}

// Observer is told what the adapter drops, for metrics.
type Observer interface {
	// CountDiscordVoiceDropped counts n voice events not handed to
	// Options.Voice, by reason: "full" (too many waited) or "closing"
	// (the adapter was stopping).
	CountDiscordVoiceDropped(reason string, n int)
}

// commandTable is what the adapter needs of the bot: its commands, the
// calls that run them and record posts, and the members who join.
// *bot.Bot is the one Run takes; tests wrap it to add commands of their
// own.
type commandTable interface {
	MemberJoins
	Commands() []*bot.Command
	Command(name string) *bot.Command
	Handle(ctx context.Context, req *bot.Request) bot.Reply
	ParseLine(line, botName string) (*bot.Command, map[string]string, error)
	HandleLine(ctx context.Context, req *bot.Request, line, botName string) (bot.Reply, bool)
	Posted(ctx context.Context, ref bot.PostRef, p bot.Post) error
	Press(ctx context.Context, req *bot.Request, id string) (bot.Reply, bool)
	Refusal(req *bot.Request, err error) bot.Reply
}

// Adapter connects the bot to Discord.
type Adapter struct {
	bot      commandTable
	log      *slog.Logger
	guildID  string
	shardID  int
	ackAfter time.Duration
	limit    *limiter
	// longs bounds the Long commands running at once, apart from limit:
	// an upload that runs for minutes must not hold a slot of the
	// commands that answer within seconds.
	longs *limiter
	// now tells the time of a Long command's token expiry (see
	// answerLong); tests move it by hand.
	now      func() time.Time
	media    *MediaOpener
	commands []*discordgo.ApplicationCommand
	session  *discordgo.Session

	shardCount int
	members    *memberCache
	gates      *gates
	joins      *joinQueue // Options.Gates', or the bot's once served
	voice      *voice     // nil without Options.Voice

	served atomic.Bool
	ran    atomic.Bool
	ready  chan struct{}

	mu       sync.Mutex
	stopped  bool           // Run is closing or closed
	inflight sync.WaitGroup // interactions being answered
}

var _ bot.Adapter = (*Adapter)(nil)

// New checks the options and prepares the session; Run connects and
// serves a bot. It fails on a missing token, a malformed APIURL, bad shard
// numbers or AckAfter over 2 s.
func New(opts Options) (*Adapter, error) {
	if opts.Token.IsZero() {
		return nil, errors.New("discord: the bot token is empty")
	}
	if opts.ShardCount == 0 {
		opts.ShardCount = 1
	}
	if opts.ShardID < 0 || opts.ShardID >= opts.ShardCount {
		return nil, fmt.Errorf("discord: shard %d is not between 0 and %d", opts.ShardID, opts.ShardCount-1)
	}
	if opts.AckAfter <= 0 {
		opts.AckAfter = DefaultAckAfter
	}
	if opts.AckAfter > maxAckAfter {
		return nil, fmt.Errorf("discord: AckAfter %s leaves no time to acknowledge within 3 s (at most %s)", opts.AckAfter, maxAckAfter)
	}
	if opts.MaxCommands <= 0 {
		opts.MaxCommands = commandsPerCPU * runtime.GOMAXPROCS(0)
	}
	origin, err := parseOrigin(opts.APIURL)
	if err != nil {
		return nil, err
	}
	s, err := newSession(opts, origin)
	if err != nil {
		return nil, err
	}
	a := &Adapter{
		log: opts.Logger, guildID: opts.GuildID, shardID: opts.ShardID,
		ackAfter: opts.AckAfter, limit: newLimiter(opts.MaxCommands), longs: newLimiter(opts.MaxCommands),
		now: time.Now, session: s, ready: make(chan struct{}), shardCount: opts.ShardCount,
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	a.log = a.log.With("adapter", "discord", "shard", opts.ShardID)
	a.media = newMediaOpener(origin, opts.HTTPClient)
	a.members = newMemberCache(maxCachedMembers, a.onShard)
	a.gates = &gates{session: s, log: a.log, render: a.render, members: a.members, queues: newGuildQueues()}
	if opts.Gates != nil {
		a.joins = newJoinQueue(opts.Gates, a.log)
	}
	if opts.Voice != nil {
		now := opts.VoiceClock
		if now == nil {
			now = a.clock
		}
		a.voice = newVoice(opts.Voice, opts.Summaries, now, a.log, a.onShard)
		a.voice.queue.obs = opts.Observer
	}
	return a, nil
}

// newSession builds a discordgo session whose REST calls go to APIURL.
func newSession(opts Options, origin *url.URL) (*discordgo.Session, error) {
	s, err := discordgo.New("Bot " + strings.TrimPrefix(opts.Token.Reveal(), "Bot "))
	if err != nil {
		return nil, fmt.Errorf("discord: %w", err)
	}
	s.Client = rewriteClient(opts.HTTPClient, origin)
	s.ShardID, s.ShardCount = opts.ShardID, opts.ShardCount
	s.Identify.Intents = Intents
	if opts.Voice != nil {
		s.Identify.Intents |= VoiceIntents
	}
	// Handlers run in the gateway reader, in the order of the events, so
	// that voice events keep their order; the handlers that do work
	// (interactions) start goroutines of their own, the others only queue.
	s.SyncEvents = true
	// Members are kept by the adapter's bounded cache (memberCache), not
	// by discordgo's State, which would keep every member of every server
	// seen in an event.
	s.State.TrackMembers = false
	s.State.TrackPresences = false
	dialer := *websocket.DefaultDialer
	dialer.HandshakeTimeout = restTimeout
	s.Dialer = &dialer
	return s, nil
}

// parseOrigin checks that raw is an http(s) origin, with no path.
func parseOrigin(raw string) (*url.URL, error) {
	if raw == "" {
		raw = DefaultAPIURL
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.User != nil {
		return nil, fmt.Errorf("discord: API URL %q must be an origin such as https://discord.com", raw)
	}
	return &url.URL{Scheme: u.Scheme, Host: u.Host}, nil
}

// Commands returns the slash commands the adapter registers. Callers must
// not modify them.
func (a *Adapter) Commands() []*discordgo.ApplicationCommand { return a.commands }

// Ready is closed once Run is connected and has registered the commands.
func (a *Adapter) Ready() <-chan struct{} { return a.ready }

// Platform returns core.Discord.
func (a *Adapter) Platform() core.Platform { return core.Discord }

// Run serves b: it connects to the gateway, registers b's commands (shard
// 0 only, with one bulk overwrite) and answers interactions until ctx is
// done. It then closes the connection, waits for the answers in flight
// (each bounded by the bot's command timeout and the REST timeout) and
// returns nil. It returns an error when b's command table is one Discord
// would refuse, when the connection or the registration fails, or when
// called twice.
func (a *Adapter) Run(ctx context.Context, b *bot.Bot) error {
	if err := a.serve(b); err != nil {
		return err
	}
	return a.connect(ctx)
}

// serve makes t the command table the adapter answers with: it renders its
// commands, and hands it the members who join unless Options.Gates is set.
func (a *Adapter) serve(t commandTable) error {
	if a.served.Swap(true) {
		return errors.New("discord: Run called twice")
	}
	cmds, err := renderCommands(t.Commands())
	if err != nil {
		return err
	}
	a.bot, a.commands = t, cmds
	if a.joins == nil {
		a.joins = newJoinQueue(t, a.log)
	}
	return nil
}

// connect connects and answers with the command table served.
func (a *Adapter) connect(ctx context.Context) error {
	if a.ran.Swap(true) {
		return errors.New("discord: Run called twice")
	}
	s := a.session
	s.AddHandler(func(s *discordgo.Session, ic *discordgo.InteractionCreate) {
		go a.onInteraction(ctx, s, ic.Interaction)
	})
	s.AddHandler(a.onConnect)
	s.AddHandler(a.onEvent)
	if a.voice != nil {
		a.voice.queue.start(ctx)
		a.voice.register(s)
	}
	if a.joins != nil {
		a.joins.start(ctx)
	}
	if ok, err := a.open(ctx); !ok {
		a.stopJoins()
		a.stopVoice()
		return err
	}
	a.follow()
	if err := a.register(ctx); err != nil {
		a.close()
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	close(a.ready)
	a.log.Info("discord adapter ready", "guild", a.guildID, "commands", len(a.commands))
	<-ctx.Done()
	a.close()
	return nil
}

// open opens the gateway and reports whether it is open. discordgo's Open
// takes no context: when ctx ends first, open returns at once and the
// session is closed as soon as Open returns.
func (a *Adapter) open(ctx context.Context) (bool, error) {
	opened := make(chan error, 1)
	go func() { opened <- a.session.Open() }()
	select {
	case err := <-opened:
		if err != nil {
			return false, fmt.Errorf("discord: open gateway: %w", err)
		}
		return true, nil
	case <-ctx.Done():
		a.stop()
		go func() {
			if <-opened == nil {
				_ = a.session.Close()
			}
		}()
		return false, nil
	}
}

// register overwrites the commands in one call, in the guild or globally.
// The application id comes from READY.
func (a *Adapter) register(ctx context.Context) error {
	if a.shardID != 0 {
		return nil
	}
	s := a.session
	s.State.RLock()
	appID := ""
	if app := s.State.Ready.Application; app != nil {
		appID = app.ID
	} else if s.State.Ready.User != nil {
		appID = s.State.Ready.User.ID
	}
	s.State.RUnlock()
	if appID == "" {
		return errors.New("discord: READY carried no application id")
	}
	ctx, cancel := context.WithTimeout(ctx, restTimeout)
	defer cancel()
	if _, err := s.ApplicationCommandBulkOverwrite(appID, a.guildID, a.commands, discordgo.WithContext(ctx)); err != nil {
		return fmt.Errorf("discord: register commands: %w", err)
	}
	return nil
}

// close closes the gateway and waits for the interactions in flight.
func (a *Adapter) close() {
	if a.voice != nil {
		a.voice.close()
	}
	if err := a.session.Close(); err != nil {
		a.log.Warn("closing the gateway", "err", err)
	}
	a.stop()
	a.inflight.Wait()
	a.stopJoins()
	a.stopVoice()
	a.members.follow("", 0)
	a.log.Info("discord adapter stopped")
}

// follow has the member cache follow the gateway session Open started.
// READY's own handler may run later, in discordgo's goroutine; for the
// same session it changes nothing.
func (a *Adapter) follow() {
	s := a.session
	s.State.RLock()
	session := s.State.SessionID
	s.State.RUnlock()
	a.members.follow(session, 0)
}

// stopJoins waits for the joins being handled and drops the others.
func (a *Adapter) stopJoins() {
	if a.joins != nil {
		a.joins.stop()
	}
}

// stopVoice waits for the voice events being handled and drops the
// others, logged.
func (a *Adapter) stopVoice() {
	if a.voice != nil {
		a.voice.queue.stop()
	}
}

// clock is a.now, read when called (tests move it).
func (a *Adapter) clock() time.Time { return a.now() }

// stop refuses new interactions, so that close can wait for the others.
func (a *Adapter) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stopped = true
}

// begin counts an interaction in flight; it returns false once stopped.
func (a *Adapter) begin() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopped {
		return false
	}
	a.inflight.Add(1)
	return true
}

// onConnect closes a session that discordgo's reconnect loop reopened
// after Run stopped.
func (a *Adapter) onConnect(s *discordgo.Session, _ *discordgo.Connect) {
	if a.stopping() {
		go func() { _ = s.Close() }()
	}
}

// stopping reports whether Run is closing or closed.
func (a *Adapter) stopping() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.stopped
}

// capabilities are what Discord can do: gates are roles, shown as
// mentions; a server's id is its @everyone role's; personal replies are
// ephemeral, in the channel; voice states tell who is in a call.
var capabilities = bot.Capabilities{
	RoleMentions: true,
	EveryoneRole: true,
	Voice:        true,
	FilesHint:    "media, media2 … media5: the photos or videos, attached to the command",
}

// Capabilities returns what Discord can do.
func (a *Adapter) Capabilities() bot.Capabilities { return capabilities }
