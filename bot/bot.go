package bot

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/poapbot/poapbot/core"
)

// Observer counts commands; web.Metrics satisfies it.
type Observer interface {
	ObserveCommand(platform, command, outcome string)
}

// Options configure a Bot.
type Options struct {
	// Name is the bot's display name, used in replies.
	Name string
	// PublicURL is the public base URL of the web server (PUBLIC_URL).
	// When set, /link replies carry a button to the verification page,
	// core.VerificationURL; when empty, they carry none.
	PublicURL string
	// CommandTimeout bounds one command, also while the process shuts
	// down. Default 30 s.
	CommandTimeout time.Duration
	Observer       Observer
	Logger         *slog.Logger
	// Signer, when set (only under -sandbox with the console), adds the
	// console's /sign, which signs with the sandbox's demo keys.
	Signer DemoSigner
}

// Services are the core's services the commands call; each is required
// but the last three.
type Services struct {
	Wallets     *core.WalletService
	Collections *core.CollectionService
	Drops       *core.DropService
	// Links is the mint links' service Drops claims through; the bot
	// reads the links' addresses from it.
	Links   *core.MintLinkService
	Gates   *core.GateService
	Moments *core.MomentService
	Buttons *core.ButtonService
	// Websites, Deliveries and Networks serve website claims (/drop
	// website), deliveries (/drop deliver) and drops' networks (/drop
	// network); the commands of a nil one are not offered.
	Websites   *core.WebsiteService
	Deliveries *core.DeliveryService
	Networks   *core.NetworkService
	// Attendance counts who attends voice channels (/attendance), and
	// restricts the claims of drops with sessions; required.
	Attendance *core.AttendanceService
}

// Bot is the command table bound to the core's services. Adapters hand it
// requests and render its replies.
type Bot struct {
	wallets     *core.WalletService
	collections *core.CollectionService
	drops       *core.DropService
	links       *core.MintLinkService
	gates       *core.GateService
	moments     *core.MomentService
	buttons     *core.ButtonService
	websites    *core.WebsiteService
	deliveries  *core.DeliveryService
	networks    *core.NetworkService
	attendance  *core.AttendanceService
	name        string
	publicURL   string
	timeout     time.Duration
	observer    Observer
	log         *slog.Logger
	commands    []*Command
	byName      map[string]*Command
	signer      DemoSigner
	// voice is who is in voice on the console, as its stand-ins said.
	voice    rehearsalVoice
	inflight sync.WaitGroup
}

// New returns the bot with its full command table. It panics when a service
// is missing: that is a wiring mistake, never a member's to see.
func New(s Services, opts Options) *Bot {
	if s.Wallets == nil || s.Collections == nil || s.Drops == nil || s.Links == nil || s.Gates == nil || s.Moments == nil || s.Buttons == nil ||
		s.Attendance == nil {
		panic("bot: New needs every service: wallets, collections, drops, links, gates, moments, buttons and attendance")
	}
	b := &Bot{
		wallets:     s.Wallets,
		collections: s.Collections,
		drops:       s.Drops,
		links:       s.Links,
		gates:       s.Gates,
		moments:     s.Moments,
		buttons:     s.Buttons,
		websites:    s.Websites,
		deliveries:  s.Deliveries,
		networks:    s.Networks,
		attendance:  s.Attendance,
		name:        opts.Name,
		publicURL:   strings.TrimRight(opts.PublicURL, "/"),
		timeout:     opts.CommandTimeout,
		observer:    opts.Observer,
		log:         opts.Logger,
		byName:      map[string]*Command{},
		signer:      opts.Signer,
	}
	if b.name == "" {
		b.name = "POAP bot"
	}
	if b.timeout <= 0 {
		b.timeout = 30 * time.Second
	}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	b.register(b.helpCommand())
	b.register(b.linkCommand())
	b.register(b.verifyCommand())
	if b.signer != nil {
		b.register(b.signCommand())
	}
	b.register(b.walletCommand())
	b.register(b.unlinkCommand())
	b.register(b.forgetCommand())
	b.register(b.poapsCommand())
	b.register(b.claimCommand())
	b.register(b.distributeCommand())
	for _, c := range b.dropCommands() {
		b.register(c)
	}
	for _, c := range b.gateCommands() {
		b.register(c)
	}
	b.register(b.momentCommand())
	b.register(b.momentsCommand())
	b.register(b.setupMomentsCommand())
	for _, c := range b.attendanceCommands() {
		b.register(c)
	}
	return b
}

func (b *Bot) register(c *Command) {
	b.commands = append(b.commands, c)
	b.byName[c.Name] = c
}

// Commands returns the command table in declaration order. Callers must not
// modify it.
func (b *Bot) Commands() []*Command { return b.commands }

// Command returns the command with that name ("poaps", "drop add"), or nil.
func (b *Bot) Command(name string) *Command { return b.byName[name] }

// Handle runs one request and always returns a reply: errors become the
// words a member reads (see Explain). The command runs to completion even
// when ctx is cancelled by a shutdown, bounded by the command timeout, so a
// member never loses a half-done step; Wait lets the process wait for it.
// A Long command (a Moment's upload, minutes long) is the exception: a
// shutdown stops it, and what it leaves is taken up by the next process
// (core.MomentService.Resume), so that a stop does not wait for it. A
// /claim from a private chat where the adapter lets the member act for a
// place (Request.ActFor) claims in the one place that hands the drop out
// (see claimFrom).
func (b *Bot) Handle(ctx context.Context, req *Request) Reply {
	if req.ActFor != nil && req.Command == "claim" {
		if reply, ok := b.claimFrom(ctx, req); ok {
			return reply
		}
	}
	cleanNames(req)
	b.inflight.Add(1)
	defer b.inflight.Done()
	cmd := b.byName[req.Command]
	timeout := b.timeout
	if cmd != nil && cmd.Timeout > 0 {
		timeout = cmd.Timeout
	}
	if cmd == nil || !cmd.Long {
		ctx = context.WithoutCancel(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The issuing service's budget is shared out member by member.
	ctx = core.WithRequester(ctx, core.MemberRequester(req.Place.Platform, req.Caller.ExternalID))

	if cmd == nil || (cmd.Console && !req.Caps.Rehearsal) {
		return b.finish(req, Reply{}, ErrUnknownCommand)
	}
	if req.Caller.Anonymous && !cmd.AnswerInGroup {
		return b.finish(req, Reply{}, ErrAnonymous)
	}
	if !allowed(cmd.Access, req.Caller) {
		return b.finish(req, Reply{}, core.ErrForbidden)
	}
	if err := checkOptions(cmd, req.Options); err != nil {
		return b.finish(req, Reply{}, err)
	}
	reply, err := cmd.Handler(ctx, req)
	if err == nil {
		reply = b.seal(ctx, req, reply)
	}
	return b.finish(req, reply, err)
}

// ErrAnonymous means an anonymous administrator (who posts as the group,
// with no account of their own) ran a command whose answer is not for the
// whole group: a member's own, or a moderator's that shows what members
// must not see.
var ErrAnonymous = errors.New("command not for an anonymous administrator")

// HandleLine parses a typed command line and runs it, filling req.Command
// and req.Options. Lines that are not commands return ok false.
func (b *Bot) HandleLine(ctx context.Context, req *Request, line, botName string) (reply Reply, ok bool) {
	cmd, opts, err := b.ParseLine(line, botName)
	switch {
	case errors.Is(err, ErrNotACommand):
		return Reply{}, false
	case err != nil:
		// A line that is not UTF-8 is answered too: the reply names no
		// bad byte.
		req.Command = commandWord(strings.ToValidUTF8(line, ""))
		if cmd != nil {
			req.Command = cmd.Name
		}
		return b.finish(req, Reply{}, err), true
	}
	req.Command, req.Options = cmd.Name, opts
	return b.Handle(ctx, req), true
}

// Wait blocks until every command in flight has finished, or ctx is done.
func (b *Bot) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { b.inflight.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// finish turns an error into a reply, logs and counts the outcome.
func (b *Bot) finish(req *Request, reply Reply, err error) Reply {
	outcome := OutcomeOK
	if err != nil {
		reply, outcome = b.explain(req, err)
		if cmd := b.byName[req.Command]; cmd != nil && cmd.Long {
			// A long command's answer replaces its progress, where the
			// command was given; its words name no wallet.
			reply.Personal = false
		}
	}
	if req.Caller.Anonymous {
		// Nobody's private chat stands for an anonymous administrator:
		// the answer goes to the group, and says nothing personal.
		reply.Personal = false
	}
	if b.observer != nil {
		b.observer.ObserveCommand(string(req.Place.Platform), metricName(b, req.Command), outcome)
	}
	return reply
}

// metricName keeps the command label bounded: unknown names become "unknown".
func metricName(b *Bot, name string) string {
	if b.byName[name] == nil {
		return "unknown"
	}
	return name
}

func allowed(a Access, c Caller) bool {
	switch a {
	case ManageDrops:
		return c.ManagesDrops
	case ManageRoles:
		return c.ManagesRoles
	case ManageEvents:
		return c.ManagesDrops || c.ManagesEvents
	}
	return true
}
