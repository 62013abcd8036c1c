package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/console"
	"github.com/poapbot/poapbot/bot/discord"
	"github.com/poapbot/poapbot/bot/telegram"
	"github.com/poapbot/poapbot/core"
)

// adapter is a chat platform connection: Run serves until ctx is done.
type adapter interface {
	Run(ctx context.Context) error
}

// postEditor is an adapter that can edit the posts it published
// (Reply.Post), for the updates of Bot.PostUpdates.
type postEditor interface {
	EditPost(ctx context.Context, ref bot.PostRef, p bot.Post) error
}

// notifier is a post editor that can also post a notice in the channel of
// a published post, for the notices of Bot.Notices.
type notifier interface {
	Notify(ctx context.Context, ref bot.PostRef, text string) error
}

// addAdapter keeps an adapter, and registers it as the editor of its
// platform's posts when it is one.
func (m *Main) addAdapter(platform core.Platform, a adapter) {
	m.adapters = append(m.adapters, a)
	if e, ok := a.(postEditor); ok {
		m.setEditor(platform, e)
	}
}

// setEditor registers e as the editor of its platform's posts.
func (m *Main) setEditor(platform core.Platform, e postEditor) {
	if m.editors == nil {
		m.editors = map[core.Platform]postEditor{}
	}
	m.editors[platform] = e
}

// openAdapters builds the adapters the configuration asks for; the
// Telegram webhook, when configured, is served by the web server.
func (m *Main) openAdapters() error {
	c := m.Config
	if m.Console {
		m.console = console.New(m.Bot, m.Stdin, m.Stdout, m.Interactive)
		if m.LogNote != "" {
			m.console.Say(m.LogNote)
		}
		m.gates.Attach(core.Console, m.console.Gates())
		m.moments.Attach(core.Console, m.console.Media())
		// The console prints its posts, and each change of their count.
		m.setEditor(core.Console, m.console)
	}
	if !c.DiscordToken.IsZero() {
		dc, err := discord.New(m.Bot, discord.Options{
			Token: c.DiscordToken, GuildID: c.DiscordGuildID, APIURL: c.DiscordAPIURL,
			ShardID: c.DiscordShardID, ShardCount: c.DiscordShardCount, Gates: m.Bot, Logger: m.Logger,
		})
		if err != nil {
			return err
		}
		m.gates.Attach(core.Discord, dc.Gates())
		m.moments.Attach(core.Discord, dc.Moments())
		m.addAdapter(core.Discord, dc)
	}
	if !c.TelegramToken.IsZero() {
		tg, err := telegram.New(m.Bot, telegram.Options{
			Token: c.TelegramToken, APIURL: c.TelegramAPIURL,
			WebhookURL: c.TelegramWebhookURL, WebhookSecret: c.TelegramWebhookSecret,
			Inbox: m.DB, Locks: m.DB, Observer: m.Metrics, GapWait: m.TelegramGapWait,
			Limits:       m.telegramLimits(),
			JoinRequests: m.Bot, Logger: m.Logger,
		})
		if err != nil {
			return err
		}
		m.gates.Attach(core.Telegram, tg.Gates())
		m.moments.Attach(core.Telegram, tg.Media())
		if c.TelegramWebhookURL != "" {
			u, err := url.Parse(c.TelegramWebhookURL)
			if err != nil {
				return fmt.Errorf("TELEGRAM_WEBHOOK_URL: %w", err)
			}
			m.Web.Handle("POST "+webhookPath(u.Path), tg.WebhookHandler())
		}
		m.addAdapter(core.Telegram, tg)
	}
	return nil
}

// telegramLimits are the flood limits of the Telegram adapter: Main's,
// with TELEGRAM_RATE messages a second in all unless Main sets that too.
func (m *Main) telegramLimits() telegram.Limits {
	l := m.TelegramLimits
	if l.Global.N == 0 {
		l.Global = telegram.Window{N: m.Config.TelegramRate, Per: time.Second}
	}
	return l
}

// webhookPath is the path the webhook is served on: the URL's path, or "/".
func webhookPath(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// runAdapters runs every adapter and the console until ctx is done or one
// fails. The end of the console's input stops the program only when the
// console is all it runs.
func (m *Main) runAdapters(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	running := m.adapters
	if m.console != nil {
		running = append(running, consoleAdapter{c: m.console, alone: len(m.adapters) == 0, stop: cancel})
	}
	if len(running) == 0 {
		<-ctx.Done()
		return nil
	}
	errs := make(chan error, len(running))
	for _, a := range running {
		go func() { errs <- a.Run(ctx) }()
	}
	var all []error
	for range running {
		if err := <-errs; err != nil && !errors.Is(err, context.Canceled) {
			all = append(all, err)
			cancel()
		}
	}
	return errors.Join(all...)
}

// consoleAdapter runs the console; at the end of its input it stops the
// program when it is the only adapter.
type consoleAdapter struct {
	c     *console.Console
	alone bool
	stop  context.CancelFunc
}

func (a consoleAdapter) Run(ctx context.Context) error {
	err := a.c.Run(ctx)
	if a.alone {
		a.stop()
	}
	return err
}
