package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/poapbot/poapbot/bot/console"
	"github.com/poapbot/poapbot/bot/discord"
	"github.com/poapbot/poapbot/bot/telegram"
)

// openAdapters connects the adapters the configuration asks for, each
// without the bot: the services and the bot are built over them (open),
// and runAdapters hands them the bot. Each adapter is listed once, here;
// the Telegram webhook, when configured, is served by the web server.
func (m *Main) openAdapters() error {
	c := m.Config
	if m.Console {
		m.console = console.New(m.Stdin, m.Stdout, m.Interactive)
		if m.LogNote != "" {
			m.console.Say(m.LogNote)
		}
		m.adapters = append(m.adapters, m.console)
	}
	if !c.DiscordToken.IsZero() {
		var voice discord.VoiceSink = m.attendance
		if m.WrapVoice != nil {
			voice = m.WrapVoice(voice)
		}
		dc, err := discord.New(discord.Options{
			Token: c.DiscordToken, GuildID: c.DiscordGuildID, APIURL: c.DiscordAPIURL,
			ShardID: c.DiscordShardID, ShardCount: c.DiscordShardCount, Logger: m.Logger,
			Voice: voice, Summaries: m.postSummaries, VoiceClock: m.now, Observer: m.Metrics,
		})
		if err != nil {
			return err
		}
		m.adapters = append(m.adapters, dc)
	}
	if !c.TelegramToken.IsZero() {
		tg, err := telegram.New(telegram.Options{
			Token: c.TelegramToken, APIURL: c.TelegramAPIURL,
			WebhookURL: c.TelegramWebhookURL, WebhookSecret: c.TelegramWebhookSecret,
			Inbox: m.DB, Locks: m.DB, Observer: m.Metrics, GapWait: m.TelegramGapWait,
			Limits: m.telegramLimits(), Logger: m.Logger,
		})
		if err != nil {
			return err
		}
		if c.TelegramWebhookURL != "" {
			u, err := url.Parse(c.TelegramWebhookURL)
			if err != nil {
				return fmt.Errorf("TELEGRAM_WEBHOOK_URL: %w", err)
			}
			m.Web.Handle("POST "+webhookPath(u.Path), tg.WebhookHandler())
		}
		m.adapters = append(m.adapters, tg)
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

// runAdapters runs every adapter with the bot until ctx is done or one
// fails. The end of the console's input stops the program only when the
// console is all it runs.
func (m *Main) runAdapters(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if len(m.adapters) == 0 {
		<-ctx.Done()
		return nil
	}
	consoleAlone := m.console != nil && len(m.adapters) == 1
	errs := make(chan error, len(m.adapters))
	for _, a := range m.adapters {
		go func() {
			err := a.Run(ctx, m.Bot)
			if consoleAlone {
				cancel()
			}
			errs <- err
		}()
	}
	var all []error
	for range m.adapters {
		if err := <-errs; err != nil && !errors.Is(err, context.Canceled) {
			all = append(all, err)
			cancel()
		}
	}
	return errors.Join(all...)
}
