package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/console"
	"github.com/poapbot/poapbot/bot/discord"
	"github.com/poapbot/poapbot/bot/telegram"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/auth"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/storage"
	"github.com/poapbot/poapbot/web"
)

// botName is how the bot calls itself in replies and challenge messages.
const botName = "POAP bot"

// shutdownGrace bounds how long commands in flight may take to finish after
// a stop signal.
const shutdownGrace = 30 * time.Second

// Credentials the built-in sandbox expects when POAP_API_KEY or
// POAP_CLIENT_ID are not set, how long its review of a request takes, and
// the rate it throttles website claims to. Production throttles POST
// /website/claim at a rate it does not publish (a 429 with Retry-After);
// the sandbox plays it at 2 claims a second, in bursts of 2, below the
// client's own 5 a second, so that a rehearsal on the console with a few
// members meets the throttle, and its queue of website claims waits it
// out, as it would in production.
const (
	sandboxAPIKey            = "sandbox-api-key"
	sandboxClientID          = "sandbox-client"
	sandboxClientSecret      = core.Secret("sandbox-client-secret")
	sandboxReviewDelay       = 30 * time.Second
	sandboxWebsiteClaimRate  = 2
	sandboxWebsiteClaimBurst = 2
)

// Main is the whole program, built from a Config. Tests build one, Run it
// against fakes and Close it.
type Main struct {
	Config      Config
	Sandbox     bool
	Console     bool
	Stdin       io.Reader
	Stdout      io.Writer
	Interactive bool
	Logger      *slog.Logger
	// LogNote says where the log goes; the console prints it once at
	// start. Empty says nothing.
	LogNote string
	// PostInterval is how often published posts are brought up to date;
	// zero means postInterval. Tests shorten it.
	PostInterval time.Duration
	// WebsiteWait is how long a claim through a website claim waits for
	// its mint before the member is told they are queued; zero is
	// core.DefaultWebsiteWait (tests shorten it).
	WebsiteWait time.Duration
	// CommandTimeout bounds one command; zero is the bot's default.
	// Tests shorten it to hold the bot to a deadline.
	CommandTimeout time.Duration
	// POAPCircuit says when calls to a failing issuing service are held;
	// the zero value is the client's default. Tests lengthen the hold.
	POAPCircuit poap.CircuitPolicy
	// ChainTimeout bounds each JSON-RPC call to a chain of
	// CHAIN_RPC_URLS; zero is chain.DefaultTimeout. Tests shorten it.
	ChainTimeout time.Duration
	// HoldingsTTL is how long a wallet's holdings are reused; zero is
	// core.HoldingsTTL. Tests that count scans lengthen it.
	HoldingsTTL time.Duration
	// TelegramLimits are the flood limits the Telegram adapter holds;
	// zero fields are Telegram's (TELEGRAM_RATE sets the global one).
	// Tests that are not about the limits lift the group's.
	TelegramLimits telegram.Limits
	// TelegramGapWait is how long the Telegram inbox waits for an update
	// missing below one stored; zero is telegram.DefaultGapWait. Tests
	// that store updates out of order lengthen it.
	TelegramGapWait time.Duration
	// AttendanceInterval is how often open attendance sessions get their
	// heartbeat and expired ones stop; zero is
	// core.AttendanceHeartbeatEvery. Tests shorten it.
	AttendanceInterval time.Duration
	// Clock is the attendance sessions' clock; nil is the system clock.
	// Tests move it, so that a session counts minutes at once.
	Clock core.Clock
	// WrapVoice, when set, wraps the attendance service as the Discord
	// adapter's voice sink: tests see each voice event handled.
	WrapVoice func(discord.VoiceSink) discord.VoiceSink
	// AttendanceTurned, when set, is called after each attendance turn
	// (heartbeat, expired sessions): tests wait for one.
	AttendanceTurned func()

	// Set by Run.
	DB  *storage.DB
	Web *web.Server
	// MetricsWeb serves /metrics and the probes on METRICS_ADDR; nil
	// when it is not set (they are on Web then).
	MetricsWeb *web.Server
	Metrics    *web.Metrics
	Bot        *bot.Bot
	SandboxURL string
	// SandboxAPI is the built-in sandbox under -sandbox, for tests to
	// steer (latency, failures).
	SandboxAPI *sandbox.Server

	sandboxSrv *http.Server
	started    chan struct{}
	adapters   bot.Adapters
	drops      *core.DropService
	links      *core.MintLinkService
	websites   *core.WebsiteService
	gates      *core.GateService
	moments    *core.MomentService
	attendance *core.AttendanceService
	console    *console.Console
	// summaries are the summaries of sessions that stopped by themselves,
	// waiting for tellSummaries.
	summaries *summaryQueue
}

// NewMain returns a Main with the default configuration.
func NewMain() *Main {
	return &Main{Logger: slog.New(slog.DiscardHandler), started: make(chan struct{}), summaries: newSummaryQueue()}
}

// Started is closed once Run has opened everything and serves.
func (m *Main) Started() <-chan struct{} { return m.started }

// Run opens the database, starts the sandbox (with -sandbox), the web
// server and the adapters, and blocks until ctx is done or the console's
// input ends. Commands in flight finish (bounded by shutdownGrace) before it
// returns. Close releases what Run opened.
func (m *Main) Run(ctx context.Context) error {
	if err := m.open(ctx); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	webDone := make(chan error, 1)
	go func() { webDone <- m.serveWeb(ctx) }()
	workDone := make(chan struct{})
	go func() { m.background(ctx); close(workDone) }()
	close(m.started)
	metricsAddr := m.Web.Addr()
	if m.MetricsWeb != nil {
		metricsAddr = m.MetricsWeb.Addr()
	}
	m.Logger.Info("bot started", "version", version, "http", m.Web.Addr(), "metrics", metricsAddr,
		"database", m.DB.Dialect(), "sandbox", m.Sandbox)

	m.resumeConsole(ctx)
	err := m.runAdapters(ctx)
	cancel()
	waitCtx, waitCancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer waitCancel()
	if werr := m.Bot.Wait(waitCtx); werr != nil {
		m.Logger.Warn("commands still running at shutdown", "err", werr)
	}
	if werr := m.gates.Wait(waitCtx); werr != nil {
		m.Logger.Warn("gate changes still running at shutdown", "err", werr)
	}
	err = errors.Join(err, <-webDone)
	<-workDone
	m.Logger.Info("bot stopped")
	return err
}

// open builds every component; on failure Close releases what was opened.
func (m *Main) open(ctx context.Context) error {
	if m.Sandbox {
		if err := m.startSandbox(); err != nil {
			return err
		}
	}
	key, err := storage.LoadKey(m.Config.DatabaseURL, m.Config.BotSecretKey)
	if err != nil {
		return err
	}
	m.DB, err = storage.Open(ctx, m.Config.DatabaseURL, storage.WithKey(key), storage.WithLogger(m.Logger))
	if err != nil {
		return err
	}
	if err := m.openWeb(); err != nil {
		return err
	}
	client, err := m.poapClient()
	if err != nil {
		return err
	}
	// Attendance needs only the database and the clock: the Discord
	// adapter tells it who is in voice.
	m.attendance, err = core.NewAttendanceService(core.AttendanceServiceDeps{
		Members: m.DB, Drops: m.DB, Store: m.DB, Audit: m.DB, MaxLength: m.Config.AttendanceMaxLength, Clock: m.Clock, Logger: m.Logger,
	})
	if err != nil {
		return err
	}
	if err := m.openAdapters(); err != nil {
		return err
	}
	services := m.services(client)
	m.drops, m.links, m.websites = services.Drops, services.Links, services.Websites
	m.gates, m.moments = services.Gates, services.Moments
	opts := bot.Options{Name: botName, PublicURL: m.Config.PublicURL, CommandTimeout: m.CommandTimeout,
		Observer: m.Metrics, Logger: m.Logger}
	if m.Sandbox && m.Console {
		// The console's /sign signs with the demo wallets' published keys.
		opts.Signer = sandbox.NewSigner()
	}
	m.Bot = bot.New(services, opts)
	if m.Config.PublicURL != "" {
		m.Web.HandleVerification(services.Wallets, web.VerificationOptions{PublicURL: m.Config.PublicURL, BotName: botName})
	}
	return nil
}

// services builds the core's services over the database, the issuing
// service and the adapters' parts in gating and Moments. A missing dependency is a wiring mistake of this function, so
// it panics rather than start a bot that would fail members later.
func (m *Main) services(client *poap.Client) bot.Services {
	// One read of a wallet serves /poaps, /why and the gates' reaction to
	// the member's events for core.HoldingsTTL.
	holdings, err := core.NewHoldingsCache(core.HoldingsCacheDeps{Issuer: poap.NewGateIssuer(client), TTL: m.HoldingsTTL})
	must(err)
	gates, err := core.NewGateService(core.GateServiceDeps{
		Members: m.DB, Gates: m.DB, Issuer: holdings, Locks: m.DB, Audit: m.DB,
		Check: client, Actions: m.adapters.GateActions(), Interval: m.Config.GateSyncInterval, Logger: m.Logger, Tally: m.Metrics,
	})
	must(err)
	contracts, err := m.contractWallets()
	must(err)
	wallets, err := core.NewWalletService(core.WalletServiceDeps{
		Members: m.DB, Wallets: m.DB, Events: gates, BotName: botName, Logger: m.Logger, Tally: m.Metrics,
		Limits:    core.LinkLimits{Wallets: m.Config.MaxWallets, Challenges: m.Config.MaxChallenges},
		Contracts: contracts,
		PublicURL: m.Config.PublicURL,
	})
	must(err)
	collections, err := core.NewCollectionService(core.CollectionServiceDeps{Members: m.DB, Scanner: holdings})
	must(err)
	ds := m.dropServices(client, gates, holdings)
	moments, err := core.NewMomentService(core.MomentServiceDeps{
		Members: m.DB, Store: m.DB, Issuer: poap.NewMomentIssuer(client), Locks: m.DB, Media: m.adapters.MediaOpeners(),
		MaxBytes: m.Config.MomentMaxBytes, Rate: m.Config.MomentRate, Logger: m.Logger, Tally: m.Metrics,
	})
	must(err)
	buttons, err := core.NewButtonService(core.ButtonServiceDeps{Store: m.DB, Logger: m.Logger})
	must(err)
	return bot.Services{Wallets: wallets, Collections: collections, Drops: ds.Drops, Links: ds.Links, Gates: gates, Moments: moments,
		Buttons: buttons, Websites: ds.Websites, Deliveries: ds.Deliveries, Networks: ds.Networks, Attendance: ds.Attendance}
}

// dropServices builds the drop service and the services of every claim
// method and of drops' networks, over the database and the issuing
// service; the gates say who has a role for a delivery and re-evaluate a
// member the bot minted to. A direct mint forgets what holdings keeps of
// the wallet. Only Drops, Links, Websites, Deliveries, Networks and
// Attendance (m.attendance, whose sessions restrict the claims of their
// drops) are set.
func (m *Main) dropServices(client *poap.Client, gates *core.GateService, holdings *core.HoldingsCache) bot.Services {
	issuer := poap.NewDropIssuer(client)
	links, err := core.NewMintLinkService(core.MintLinkServiceDeps{
		Members: m.DB, Drops: m.DB, MintLinks: m.DB, Audit: m.DB, Issuer: holdings.ForgetMinted(issuer), Mints: gates,
		MintURL: m.Config.POAPMintURL, Logger: m.Logger, Tally: m.Metrics,
	})
	must(err)
	websites, err := core.NewWebsiteService(core.WebsiteServiceDeps{
		Members: m.DB, Drops: m.DB, Audit: m.DB, Store: m.DB, Issuer: issuer, Mints: gates, Wait: m.WebsiteWait, Logger: m.Logger,
	})
	must(err)
	deliveries, err := core.NewDeliveryService(core.DeliveryServiceDeps{
		Members: m.DB, Drops: m.DB, Audit: m.DB, Store: m.DB, Issuer: issuer, Roster: gates, Mints: gates,
		URL: m.Config.POAPDeliveryURL, Logger: m.Logger,
	})
	must(err)
	networks, err := core.NewNetworkService(core.NetworkServiceDeps{
		Members: m.DB, Drops: m.DB, Audit: m.DB, Issuer: issuer, Store: m.DB, Logger: m.Logger,
	})
	must(err)
	attendance := m.attendance
	drops, err := core.NewDropService(core.DropServiceDeps{
		Members: m.DB, Drops: m.DB, MintLinks: m.DB, Posts: m.DB, Audit: m.DB, Issuer: holdings.ForgetMinted(issuer),
		Links: links, Attendance: attendance, Websites: websites, Deliveries: deliveries, Networks: networks, Logger: m.Logger, Tally: m.Metrics,
	})
	must(err)
	return bot.Services{Drops: drops, Links: links, Websites: websites, Deliveries: deliveries, Networks: networks, Attendance: attendance}
}

// must panics on a wiring error.
func must(err error) {
	if err != nil {
		panic(err)
	}
}

// poapClient builds the client of the issuing service, with the token
// manager when client credentials are configured.
func (m *Main) poapClient() (*poap.Client, error) {
	c := m.Config
	var tokens poap.TokenSource
	if c.POAPClientID != "" {
		t, err := auth.New(auth.Options{
			AuthURL: c.POAPAuthURL, ClientID: c.POAPClientID, ClientSecret: c.POAPClientSecret,
			Store: m.DB, Logger: m.Logger, Observer: m.Metrics,
		})
		if err != nil {
			return nil, fmt.Errorf("POAP_AUTH_URL: %w", err)
		}
		tokens = t
	}
	client, err := poap.NewClient(poap.Options{
		BaseURL: c.POAPAPIURL, APIKey: c.POAPAPIKey, Tokens: tokens, Audience: c.POAPAudience,
		MomentsURL: c.POAPMomentsURL, MomentsAudience: c.POAPMomentsAudience, CompassURL: c.POAPCompassURL,
		Observer: m.Metrics, Logger: m.Logger, UserAgent: "poapbot/" + version, Circuit: m.POAPCircuit,
	})
	if err != nil {
		return nil, fmt.Errorf("POAP_API_URL: %w", err)
	}
	return client, nil
}

// startSandbox serves the sandbox on a loopback port and points every
// POAP_* address at it. Stored access tokens are keyed by the token
// service's address and the client id, so the sandbox's (a new loopback
// address each start) never read, replace or spend a real credential's
// token kept in the same database, even when POAP_CLIENT_ID is the real
// one.
func (m *Main) startSandbox() error {
	c := &m.Config
	if c.POAPAPIKey.IsZero() {
		c.POAPAPIKey = sandboxAPIKey
	}
	if c.POAPClientID == "" {
		c.POAPClientID, c.POAPClientSecret = sandboxClientID, sandboxClientSecret
	}
	sb := sandbox.New(sandbox.Options{
		APIKey: c.POAPAPIKey.Reveal(), ClientID: c.POAPClientID, ClientSecret: c.POAPClientSecret.Reveal(),
		Audience: c.POAPAudience, MomentsAudience: c.POAPMomentsAudience,
		// Requests for more mint links are approved after a short
		// rehearsal-sized review instead of production's day.
		ReviewDelay: sandboxReviewDelay,
		// Website claims are throttled as production's are, at a
		// rate a rehearsal reaches.
		WebsiteClaimRate: sandboxWebsiteClaimRate, WebsiteClaimBurst: sandboxWebsiteClaimBurst,
	})
	sb.SeedDemo()
	m.SandboxAPI = sb
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	srv := &http.Server{Handler: sb, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	m.sandboxSrv = srv
	m.SandboxURL = "http://" + ln.Addr().String()
	c.POAPAPIURL, c.POAPAuthURL, c.POAPMomentsURL = m.SandboxURL, m.SandboxURL, m.SandboxURL
	c.POAPCompassURL, c.POAPMintURL, c.POAPDeliveryURL = m.SandboxURL+"/v1/graphql", m.SandboxURL, m.SandboxURL+"/delivery"
	m.Logger.Info("sandbox of the issuing service running", "url", m.SandboxURL)
	return nil
}

// Close stops the sandbox, removing the media files it kept, and closes the
// database. It is safe to call after a failed Run.
func (m *Main) Close() error {
	var errs []error
	if m.sandboxSrv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		errs = append(errs, m.sandboxSrv.Shutdown(ctx), m.SandboxAPI.Close())
	}
	if m.DB != nil {
		errs = append(errs, m.DB.Close())
	}
	m.sandboxSrv, m.DB = nil, nil
	return errors.Join(errs...)
}
