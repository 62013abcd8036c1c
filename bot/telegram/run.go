package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// Long polling. Telegram holds a getUpdates call up to pollSeconds when
// nothing waits; the HTTP request gets pollSlack more before it counts as
// lost. Failed polls back off from minBackoff to maxBackoff.
const (
	pollSeconds = 30
	pollSlack   = 15 * time.Second
	minBackoff  = time.Second
	maxBackoff  = 30 * time.Second
)

// Run serves b: it publishes b's command menu, then receives updates until
// ctx is done: by long polling, or in webhook mode by registering the
// webhook and serving WebhookHandler; meanwhile it handles the inbox, when
// this replica holds it (inbox.go). It then waits for the updates in
// flight, each bounded by the update timeout, and returns nil. It returns
// an error when the Bot API refuses the token (ErrTokenRefused) or the
// webhook, or when called twice.
func (a *Adapter) Run(ctx context.Context, b *bot.Bot) error {
	if a.served.Swap(true) {
		return errors.New("telegram: Run called twice")
	}
	a.serve(b)
	return a.run(ctx)
}

// run receives and handles updates with the command table served.
func (a *Adapter) run(ctx context.Context) error {
	// Open before setWebhook: Telegram may deliver as soon as it is set.
	a.setRunning(true)
	defer a.stop()
	// Cancelled first when Run returns, also on an error: the inbox's
	// handling ends with it.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a.inflight.Add(1)
	go func() {
		defer a.inflight.Done()
		a.process(ctx)
	}()
	if err := a.prepare(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	if a.opts.WebhookURL != "" {
		a.log.Info("telegram webhook set", "bot", a.username)
		<-ctx.Done()
		return nil
	}
	return a.poll(ctx)
}

// prepare publishes the command menu, and sets the webhook or, to poll,
// deletes it; all within connectTimeout. A menu that cannot be published
// is only logged: typed commands work without it.
func (a *Adapter) prepare(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	if err := a.publishCommands(ctx); err != nil {
		if refused(err) {
			return fmt.Errorf("%w: %w", ErrTokenRefused, err)
		}
		a.log.Warn("telegram command menu not published; typed commands still work", "err", err)
	}
	if a.opts.WebhookURL != "" {
		return a.setWebhook(ctx)
	}
	if _, err := a.request(ctx, tgbotapi.DeleteWebhookConfig{}); err != nil {
		return fmt.Errorf("telegram: deleteWebhook before polling: %w", err)
	}
	return nil
}

// setWebhook registers the webhook through MakeRequest: the library's
// WebhookConfig has no secret_token (Bot API 6.1).
// See https://core.telegram.org/bots/api#setwebhook.
func (a *Adapter) setWebhook(ctx context.Context) error {
	p := tgbotapi.Params{"url": a.opts.WebhookURL, "secret_token": a.opts.WebhookSecret.Reveal()}
	if err := p.AddInterface("allowed_updates", allowedUpdates); err != nil {
		return err
	}
	if _, err := a.makeRequest(ctx, "setWebhook", p); err != nil {
		return fmt.Errorf("telegram: setWebhook for TELEGRAM_WEBHOOK_URL: %w", err)
	}
	return nil
}

// poll long-polls getUpdates until ctx is done, storing each batch in the
// inbox before the next call's offset confirms it to Telegram: a batch the
// inbox refused is asked for again. Cancelling ctx aborts the pending poll
// at once (the request is bound to ctx).
func (a *Adapter) poll(ctx context.Context) error {
	a.log.Info("telegram polling for updates", "bot", a.username)
	offset := 0
	backoff := minBackoff
	for ctx.Err() == nil {
		us, next, err := a.getUpdates(ctx, offset)
		if err == nil {
			err = a.store(ctx, us)
		}
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			if refused(err) {
				return fmt.Errorf("%w: getUpdates: %w", ErrTokenRefused, err)
			}
			a.log.Warn("telegram updates not taken, retrying", "err", err, "in", backoff)
			sleep(ctx, backoff)
			backoff = min(backoff*2, maxBackoff)
			continue
		}
		backoff = minBackoff
		offset = max(offset, next)
	}
	a.confirm(offset)
	return nil
}

// getUpdates long-polls one batch of updates from offset, each with its
// body as Telegram sent it, and returns the offset that confirms them.
// See https://core.telegram.org/bots/api#getupdates.
func (a *Adapter) getUpdates(ctx context.Context, offset int) ([]core.InboxUpdate, int, error) {
	pctx, cancel := context.WithTimeout(ctx, pollSeconds*time.Second+pollSlack)
	defer cancel()
	p := tgbotapi.Params{"timeout": strconv.Itoa(pollSeconds)}
	if offset != 0 {
		p["offset"] = strconv.Itoa(offset)
	}
	if err := p.AddInterface("allowed_updates", allowedUpdates); err != nil {
		return nil, offset, err
	}
	resp, err := a.with(pctx).MakeRequest("getUpdates", p)
	if err != nil {
		return nil, offset, err
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(resp.Result, &raws); err != nil {
		return nil, offset, fmt.Errorf("telegram: getUpdates answered no list of updates: %w", err)
	}
	now := time.Now()
	us := make([]core.InboxUpdate, 0, len(raws))
	for _, raw := range raws {
		u, err := inboxUpdate(raw, now)
		if err != nil {
			a.log.Warn("telegram getUpdates returned something that is not an update; skipped", "err", err)
			continue
		}
		if int(u.ID) < offset {
			continue
		}
		us = append(us, u)
		offset = int(u.ID) + 1
	}
	return us, offset, nil
}

// confirm tells Telegram the updates before offset were taken; without
// it the last batch would be delivered again after a restart (and dropped
// by the inbox).
func (a *Adapter) confirm(offset int) {
	if offset == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cfg := tgbotapi.UpdateConfig{Offset: offset, Limit: 1, AllowedUpdates: allowedUpdates}
	if _, err := a.with(ctx).GetUpdates(cfg); err != nil {
		a.log.Warn("telegram could not confirm the last updates", "err", err)
	}
}

// setRunning marks Run running or stopped; a stop cuts the long
// commands in flight (untilStop).
func (a *Adapter) setRunning(on bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case on && !a.running:
		a.quit = make(chan struct{})
	case !on && a.running:
		close(a.quit)
	}
	a.running = on
}

// untilStop returns ctx cancelled also when the adapter stops: a long
// command (a Moment's upload) is cut at a shutdown rather than waited for,
// and what it leaves is taken up by the next process.
func (a *Adapter) untilStop(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	a.mu.Lock()
	quit := a.quit
	a.mu.Unlock()
	if quit == nil {
		return ctx, cancel
	}
	go func() {
		select {
		case <-quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// stop waits for the updates in flight, albums being collected and long
// commands, at most the update timeout and the queue wait, or the time
// the last long command has left, whichever is longer, and a little more
// (every update and long command is bounded).
func (a *Adapter) stop() {
	a.setRunning(false)
	done := make(chan struct{})
	go func() { a.inflight.Wait(); close(done) }()
	a.mu.Lock()
	wait := max(a.opts.UpdateTimeout+a.opts.QueueWait+a.opts.AlbumWait, time.Until(a.longEnd))
	a.mu.Unlock()
	t := time.NewTimer(wait + 5*time.Second)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		a.log.Warn("telegram updates still running at shutdown")
	}
}

// refused reports whether the Bot API refused the token: 401, or the bare
// 404 "Not Found" Telegram answers for a malformed token (unlike "Not
// Found: method not found").
func refused(err error) bool {
	var apiErr *tgbotapi.Error
	if !errors.As(err, &apiErr) {
		return false
	}
	return apiErr.Code == http.StatusUnauthorized || (apiErr.Code == http.StatusNotFound && apiErr.Message == "Not Found")
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
