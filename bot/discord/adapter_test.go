package discord

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/sandbox"
)

const sandboxKey = "sandbox-key"

// newBot returns a bot whose issuing service is a seeded sandbox.
func newBot(t *testing.T) (*bot.Bot, *sandbox.Server) {
	t.Helper()
	sb := sandbox.New(sandbox.Options{APIKey: sandboxKey})
	sb.SeedDemo()
	srv := httptest.NewServer(sb)
	t.Cleanup(srv.Close)
	client, err := poap.NewClient(poap.Options{BaseURL: srv.URL, APIKey: sandboxKey})
	if err != nil {
		t.Fatalf("poap.NewClient: %v", err)
	}
	return bot.New(bot.Services(coretest.NewServices(coretest.Deps{Scanner: client})), bot.Options{}), sb
}

// plainBot is a bot whose services have nothing stored and know no drop.
func plainBot() *bot.Bot {
	return bot.New(bot.Services(coretest.NewServices(coretest.Deps{})), bot.Options{})
}

// loopbackOnly records where REST calls go and refuses any that would
// leave the machine.
type loopbackOnly struct {
	mu    sync.Mutex
	hosts []string
}

func (l *loopbackOnly) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	l.hosts = append(l.hosts, r.URL.Host)
	l.mu.Unlock()
	if ip := net.ParseIP(r.URL.Hostname()); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("test refuses a request to %s", r.URL.Host)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func (l *loopbackOnly) seen() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.hosts...)
}

// rig is an adapter running against the fake Discord and a sandbox.
type rig struct {
	fake    *discordtest.Server
	sandbox *sandbox.Server
	adapter *Adapter
	net     *loopbackOnly

	cancel context.CancelFunc
	done   chan error
	once   sync.Once
	err    error
}

// start runs an adapter of a bot whose issuing service is a seeded
// sandbox with opts (token, URL and client filled in) and waits until it
// is ready.
func start(t *testing.T, opts Options) *rig {
	t.Helper()
	b, sb := newBot(t)
	r := startWith(t, b, opts)
	r.sandbox = sb
	return r
}

// startWith runs an adapter of the command table with opts (token, URL
// and client filled in) and waits until it is ready.
func startWith(t *testing.T, b commandTable, opts Options) *rig {
	t.Helper()
	return startOn(t, discordtest.NewServer(t, discordtest.Options{}), b, opts, nil)
}

// startOn runs an adapter of the command table with opts against fake,
// prepared by prepare (when not nil) before it connects, and waits until
// it is ready.
func startOn(t *testing.T, fake *discordtest.Server, b commandTable, opts Options, prepare func(*Adapter)) *rig {
	t.Helper()
	r := &rig{fake: fake, net: &loopbackOnly{}, done: make(chan error, 1)}
	opts.Token, opts.APIURL = core.Secret(r.fake.Token()), r.fake.URL()
	opts.HTTPClient = &http.Client{Transport: r.net}
	a, err := newAdapter(b, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if prepare != nil {
		prepare(a)
	}
	r.adapter = a
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.done <- a.connect(ctx) }()
	t.Cleanup(func() {
		if err := r.stop(); err != nil {
			t.Errorf("Run = %v, want nil", err)
		}
	})
	select {
	case <-a.Ready():
	case err := <-r.done:
		r.once.Do(func() {}) // Run is over: nothing left to stop
		t.Fatalf("Run = %v before ready", err)
	case <-time.After(10 * time.Second):
		t.Fatal("adapter not ready after 10 s")
	}
	return r
}

// stop cancels Run and returns its result.
func (r *rig) stop() error {
	r.once.Do(func() {
		r.cancel()
		select {
		case r.err = <-r.done:
		case <-time.After(15 * time.Second):
			r.err = errors.New("Run did not return within 15 s")
		}
	})
	return r.err
}

func timeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestAdapter_Register(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, guild string }{{"Guild", discordtest.DefaultGuildID}, {"Global", ""}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := start(t, Options{GuildID: tt.guild})
			cmds := r.fake.Commands(tt.guild)
			if len(cmds) != len(r.adapter.Commands()) || len(cmds) == 0 {
				t.Fatalf("registered %d commands in scope %q, want %d", len(cmds), tt.guild, len(r.adapter.Commands()))
			}
			puts := 0
			for _, req := range r.fake.Requests() {
				if req.Method == http.MethodPut {
					puts++
				}
			}
			if puts != 1 {
				t.Errorf("%d PUT requests, want one bulk overwrite", puts)
			}
			var poaps []string
			for _, c := range cmds {
				if c.Name == "poaps" {
					for _, o := range c.Options {
						poaps = append(poaps, fmt.Sprintf("%s:%d", o.Name, o.Type))
					}
				}
			}
			if fmt.Sprint(poaps) != "[wallet:3 member:6]" {
				t.Errorf("poaps options = %v, want [wallet:3 member:6] (page is hidden)", poaps)
			}
		})
	}
}

func TestAdapter_Identify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		id, count   int
		voice       VoiceSink
		want        [2]int
		wantPuts    int
		wantIntents discordgo.Intent
	}{
		{"Default", 0, 0, nil, [2]int{0, 1}, 1, Intents},
		{"SecondShard", 1, 2, nil, [2]int{1, 2}, 0, Intents}, // only shard 0 registers
		{"Voice", 0, 0, newVoiceRecorder(), [2]int{0, 1}, 1, Intents | discordgo.IntentGuildVoiceStates | discordgo.IntentGuildScheduledEvents},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := start(t, Options{ShardID: tt.id, ShardCount: tt.count, Voice: tt.voice})
			c, err := r.fake.WaitConnected(timeout(t, 5*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if c.Intents != tt.wantIntents || c.Shard != tt.want || c.Token != "Bot "+r.fake.Token() {
				t.Errorf("Identify = intents %d, shard %v, token ok %v; want %d, %v, true",
					c.Intents, c.Shard, c.Token == "Bot "+r.fake.Token(), tt.wantIntents, tt.want)
			}
			if tt.voice == nil && (r.adapter.voice != nil || c.Intents&VoiceIntents != 0) {
				t.Errorf("without Voice: voice follower %v, intents %d; want none", r.adapter.voice != nil, c.Intents)
			}
			puts := 0
			for _, req := range r.fake.Requests() {
				if req.Method == http.MethodPut {
					puts++
				}
			}
			if puts != tt.wantPuts {
				t.Errorf("%d bulk overwrites, want %d", puts, tt.wantPuts)
			}
		})
	}
}

func TestAdapter_Origin(t *testing.T) {
	t.Parallel()
	r := start(t, Options{GuildID: discordtest.DefaultGuildID})
	if _, err := r.fake.Command(discordtest.Alice, "/help").WaitResponse(timeout(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(r.fake.URL())
	hosts := r.net.seen()
	if len(hosts) < 3 { // gateway, commands, callback
		t.Errorf("only %d REST calls seen: %v", len(hosts), hosts)
	}
	for _, h := range hosts {
		if h != u.Host {
			t.Errorf("a REST call went to %s, want %s", h, u.Host)
		}
	}
	for _, req := range r.fake.Requests() {
		if req.Host != u.Host || (req.Method == http.MethodPut && !req.Authorized) {
			t.Errorf("request %s %s: host %s, authorized %v", req.Method, req.Path, req.Host, req.Authorized)
		}
	}
}

func TestAdapter_Close(t *testing.T) {
	t.Parallel()
	r := start(t, Options{})
	if _, err := r.fake.WaitConnected(timeout(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := r.stop(); err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
	if err := r.fake.WaitClosed(timeout(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	if c := r.fake.Connections()[0]; c.Open || c.CloseCode != 1000 {
		t.Errorf("connection open %v, close code %d; want closed with 1000", c.Open, c.CloseCode)
	}
}

func TestAdapter_BadToken(t *testing.T) {
	t.Parallel()
	b, _ := newBot(t)
	fake := discordtest.NewServer(t, discordtest.Options{})
	a, err := New(Options{Token: "wrong-token", APIURL: fake.URL()})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Run(timeout(t, 10*time.Second), b); err == nil {
		t.Error("Run with a wrong token = nil, want an error")
	}
}

func TestNew_Errors(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"NoToken", Options{}},
		{"BadURL", Options{Token: "t", APIURL: "discord.com"}},
		{"ShardTooBig", Options{Token: "t", ShardID: 2, ShardCount: 2}},
		{"NegativeShard", Options{Token: "t", ShardID: -1}},
		{"AckTooLate", Options{Token: "t", AckAfter: 2500 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.opts); err == nil {
				t.Errorf("New(%+v) = nil error, want one", tt.opts)
			}
		})
	}
}

// newAdapter is New serving the command table b, without connecting.
func newAdapter(b commandTable, opts Options) (*Adapter, error) {
	a, err := New(opts)
	if err != nil {
		return nil, err
	}
	return a, a.serve(b)
}
