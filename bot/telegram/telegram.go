// Package telegram is the Telegram adapter. It owns the connection to the
// Bot API and its limits: it turns updates into bot requests and the bot's
// replies into Telegram messages.
//
// Updates arrive by long polling (getUpdates) or, when a webhook URL is
// configured, through WebhookHandler, which the web server mounts; either
// way each is stored in the inbox before Telegram is told it arrived, and
// handled from there: at most maxConcurrent at once, one member's in
// order, each within Options.UpdateTimeout and its replies' wait for their
// turn under Telegram's flood limits. A long command (bot.Command.Long, a
// Moment's upload) runs apart, bounded by its own Timeout, and shows its
// progress by editing one reply.
//
// A command may be the caption of a photo, video, animation or document,
// or of an album, whose items are collected first; a command that takes
// files gets them in Request.Media, also those of the message a text
// command replies to, and MediaOpener opens them by file_id from
// TELEGRAM_API_URL, streaming.
//
// Personal replies always go to the member's private chat; a member who
// never opened it is told so in the group, with the t.me deep link that
// opens it. A /drop add typed in a group carries the drop's edit code: the
// adapter deletes it at once and answers in the private chat. In the
// private chat, the adapter answers for the bot whether the member
// belongs to a group (getChatMember, Request.ActFor), so that a /claim
// <drop> typed there claims in the one group of theirs that hands the drop
// out. In a group, the group is the member's one Request.Roles entry, so a
// drop whose required_role is its group's chat id is claimable there; a
// required_role naming another chat is not checked yet and is refused as a
// missing role.
//
// Its part in gating is a group's admission (GateActions): it creates the
// gate's join-request invite link, approves, declines and removes (ban,
// then unban) members; the chat_join_request updates go, like every
// update, through the inbox to gating.
//
// The library (telegram-bot-api v5.5.1) takes no context. The adapter gives
// it one anyway: every call goes through an HTTP client bound to the
// caller's context (see ctxClient), so cancelling Run's context aborts the
// pending long poll at once and a slow Bot API cannot hold an update past
// its deadline. Run polls with its own loop instead of GetUpdatesChan and
// StopReceivingUpdates because that loop logs raw transport errors, which
// carry the token in the URL, through the library's global logger, cannot
// abort a pending long poll, and retries at a fixed pace. Where the library
// lags the current Bot API (setWebhook's secret_token, link_preview_options)
// the adapter calls the methods through the library's generic MakeRequest.
package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// DefaultAPIURL is the Bot API base used when Options.APIURL is empty.
const DefaultAPIURL = "https://api.telegram.org"

// Defaults and bounds.
const (
	defaultUpdateTimeout = 60 * time.Second
	// connectTimeout bounds getMe at construction and the start-up calls.
	connectTimeout = 30 * time.Second
	// maxConcurrent bounds the updates handled at the same time.
	maxConcurrent = 32
)

// ErrTokenRefused means the Bot API refused TELEGRAM_TOKEN.
var ErrTokenRefused = errors.New("telegram: TELEGRAM_TOKEN was refused")

// Options configure the adapter.
type Options struct {
	// Token is the bot token from @BotFather (TELEGRAM_TOKEN).
	Token core.Secret
	// APIURL is the Bot API base (TELEGRAM_API_URL); default DefaultAPIURL.
	APIURL string
	// WebhookURL switches from long polling to webhook mode
	// (TELEGRAM_WEBHOOK_URL); WebhookSecret is the secret_token Telegram
	// sends back in every delivery (TELEGRAM_WEBHOOK_SECRET).
	WebhookURL    string
	WebhookSecret core.Secret
	Logger        *slog.Logger
	// UpdateTimeout, with QueueWait, bounds the handling of one update:
	// the command itself is bounded by the bot's own timeout, and its
	// replies may wait up to QueueWait for their turn. Default 60 s.
	UpdateTimeout time.Duration
	// HTTPClient sends the Bot API requests; default a plain client (every
	// request is bounded by a context).
	HTTPClient *http.Client
	// Inbox stores every update before Telegram is told it arrived, and
	// is where updates are handled from (inbox.go); storage.DB keeps it
	// in the database. nil keeps it in memory: nothing survives the
	// process and replicas do not share it, which suits tests only.
	Inbox core.Inbox
	// Locks lets one replica at a time handle the shared inbox
	// (storage.DB); nil handles it here always.
	Locks core.Exclusive
	// GapWait is how long, in webhook mode, the inbox waits for an update
	// missing below one stored before it goes on without it (drain.go);
	// default DefaultGapWait. Long polling never waits: getUpdates hands
	// the updates out in order.
	GapWait time.Duration
	// Limits are the flood limits held for every message (flood.go);
	// zero fields are DefaultLimits'. Limits.Global.N is TELEGRAM_RATE.
	Limits Limits
	// QueueWait is how long a message may wait for its turn under the
	// limits before it is dropped, with a log line and a metric. Default
	// DefaultQueueWait.
	QueueWait time.Duration
	// Observer is told of the queue, the inbox, 429s and reply times,
	// for metrics; nil tells no one.
	Observer Observer
	// JoinRequests is told of requests to join the groups the bot
	// administers, for gating; nil is the bot Run serves, which tests
	// replace.
	JoinRequests JoinRequests
	// AlbumWait is how long the items of an album are collected after the
	// last one arrived before its command runs (album.go). Default
	// DefaultAlbumWait.
	AlbumWait time.Duration
}

// DefaultAlbumWait is Options.AlbumWait's default: Telegram delivers the
// items of an album within moments of each other.
const DefaultAlbumWait = time.Second

// commandTable is what the adapter asks of the bot: *bot.Bot. Tests put a
// table with a command of their own in its place.
type commandTable interface {
	JoinRequests
	Commands() []*bot.Command
	ParseLine(line, botName string) (*bot.Command, map[string]string, error)
	HandleLine(ctx context.Context, req *bot.Request, line, botName string) (bot.Reply, bool)
	MayCarrySecret(line, botName string) bool
	Posted(ctx context.Context, ref bot.PostRef, p bot.Post) error
	Press(ctx context.Context, req *bot.Request, id string) (bot.Reply, bool)
	ButtonPlace(ctx context.Context, platform core.Platform, id string) (string, error)
	LinkPlace(ctx context.Context, platform core.Platform, id string) (string, error)
	FollowLink(ctx context.Context, req *bot.Request, id string) (bot.Reply, bool)
	Refusal(req *bot.Request, err error) bot.Reply
}

// Adapter connects one bot to Telegram. Create it with New, then Run it.
type Adapter struct {
	bot       commandTable
	api       *tgbotapi.BotAPI
	opts      Options
	log       *slog.Logger
	username  string
	admins    *adminCache
	slots     chan struct{}
	longSlots chan struct{}
	albums    *albums
	flood     *flood
	edits     postEdits
	inbox     core.Inbox
	nudge     chan struct{} // an update was stored here
	clock     inboxClock    // the inbox reader's; nil is the wall clock
	served    atomic.Bool   // Run was called

	mu       sync.Mutex
	running  bool
	quit     chan struct{} // closed when Run stops
	longEnd  time.Time     // when the last long command in flight must end
	inflight sync.WaitGroup
}

var _ bot.Adapter = (*Adapter)(nil)

// New checks the token with getMe and returns the adapter; Run serves a
// bot on it. A refused token is ErrTokenRefused; an unreachable or
// non-Telegram TELEGRAM_API_URL is an error naming it. No error carries
// the token.
func New(opts Options) (*Adapter, error) {
	if err := opts.setDefaults(); err != nil {
		return nil, err
	}
	a := &Adapter{
		opts: opts, log: opts.Logger, admins: newAdminCache(),
		slots: make(chan struct{}, maxConcurrent), longSlots: make(chan struct{}, maxLong),
		albums: &albums{pending: map[albumKey]*pendingAlbum{}},
		flood:  newFlood(opts.Limits, opts.QueueWait, opts.Observer, opts.Logger),
		inbox:  opts.Inbox, nudge: make(chan struct{}, 1),
	}
	if a.inbox == nil {
		a.inbox = &memInbox{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	// The endpoint is a format string: a "%" in the base must not count.
	endpoint := strings.ReplaceAll(opts.APIURL, "%", "%%") + "/bot%s/%s"
	api, err := tgbotapi.NewBotAPIWithClient(opts.Token.Reveal(), endpoint, a.client(ctx))
	if err != nil {
		return nil, a.connectError(err)
	}
	a.api, a.username = api, api.Self.UserName
	return a, nil
}

// setDefaults fills the zero options and checks the token and the URL.
func (o *Options) setDefaults() error {
	if o.Token.IsZero() {
		return errors.New("telegram: TELEGRAM_TOKEN is empty")
	}
	if o.APIURL == "" {
		o.APIURL = DefaultAPIURL
	}
	o.APIURL = strings.TrimRight(o.APIURL, "/")
	if u, err := url.Parse(o.APIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("telegram: TELEGRAM_API_URL must be an absolute http:// or https:// address")
	}
	if o.QueueWait <= 0 {
		o.QueueWait = DefaultQueueWait
	}
	o.Limits = o.Limits.withDefaults()
	if o.UpdateTimeout <= 0 {
		o.UpdateTimeout = defaultUpdateTimeout
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	if o.AlbumWait <= 0 {
		o.AlbumWait = DefaultAlbumWait
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// Username returns the bot's username, without "@".
func (a *Adapter) Username() string { return a.username }

// connectError names the variable to fix for a failed getMe.
func (a *Adapter) connectError(err error) error {
	var apiErr *tgbotapi.Error
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &apiErr) && refused(err):
		return fmt.Errorf("%w by the Bot API at %s (%s): copy the token from @BotFather again", ErrTokenRefused, a.opts.APIURL, apiErr.Message)
	case errors.As(err, &apiErr):
		return fmt.Errorf("telegram: getMe at TELEGRAM_API_URL %s failed: %d %s", a.opts.APIURL, apiErr.Code, apiErr.Message)
	case errors.As(err, &syntaxErr):
		return fmt.Errorf("telegram: TELEGRAM_API_URL %s does not answer like the Telegram Bot API: %w", a.opts.APIURL, err)
	}
	return fmt.Errorf("telegram: TELEGRAM_API_URL %s is unreachable: %w", a.opts.APIURL, err)
}

// with returns the library client with every request bound to ctx. The
// copy shares the token and endpoint; only the HTTP client differs.
func (a *Adapter) with(ctx context.Context) *tgbotapi.BotAPI {
	api := *a.api
	api.Client = a.client(ctx)
	return &api
}

func (a *Adapter) client(ctx context.Context) *ctxClient {
	return &ctxClient{ctx: ctx, c: a.opts.HTTPClient, token: a.opts.Token.Reveal()}
}

// ctxClient is the library's HTTPClient, bound to a context, that scrubs
// the token from errors: the library puts it in every URL, and
// *url.Error prints the URL.
type ctxClient struct {
	ctx   context.Context
	c     *http.Client
	token string
}

// Do sends req under the client's context.
func (c *ctxClient) Do(req *http.Request) (*http.Response, error) {
	resp, err := c.c.Do(req.WithContext(c.ctx))
	if err == nil {
		return resp, nil
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		u := strings.ReplaceAll(ue.URL, c.token, "[token]")
		u = strings.ReplaceAll(u, url.PathEscape(c.token), "[token]")
		return nil, &url.Error{Op: ue.Op, URL: u, Err: ue.Err}
	}
	return nil, errors.New(strings.ReplaceAll(err.Error(), c.token, "[token]"))
}

// capabilities are what Telegram can do: a gate is the group, entered by
// a join request; personal replies go to the private chat.
var capabilities = bot.Capabilities{
	GroupGates:     true,
	PrivateReplies: true,
	FilesHint:      "send your photos or videos (one, or an album) with the command as their caption, or reply to your own with it",
}

// Capabilities returns what Telegram can do.
func (a *Adapter) Capabilities() bot.Capabilities { return capabilities }

// Platform returns core.Telegram.
func (a *Adapter) Platform() core.Platform { return core.Telegram }

// serve makes t the command table the adapter answers with, and the
// handler of join requests unless Options name one. It is called once,
// before Run receives anything.
func (a *Adapter) serve(t commandTable) {
	a.bot = t
	if a.opts.JoinRequests == nil {
		a.opts.JoinRequests = t
	}
}
