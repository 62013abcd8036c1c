package poap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/wire"
)

// refresh does, under the store's lock, what Token and Renew do when memory
// holds no fresh token: it takes the newest stored token unless it is due
// for renewal (another process or an earlier run got it), else requests a
// new one; when that fails while the current token still works, it keeps
// the current one. refused, if not empty, is never returned.
func (t *Tokens) refresh(ctx context.Context, audience string, a *audienceTokens, refused core.Secret) (core.Secret, error) {
	if audience == "" {
		return "", fmt.Errorf("poap: %s: the audience is empty", wire.OpAccessToken)
	}
	var token core.Secret
	var refreshErr error
	err := t.store.LockTokens(ctx, audience, func(ctx context.Context) error {
		token, refreshErr = t.refreshLocked(ctx, audience, a, refused)
		return refreshErr
	})
	switch {
	case refreshErr != nil:
		return "", refreshErr
	case err != nil:
		return "", fmt.Errorf("poap: %s: lock: %w", wire.OpAccessToken, err)
	}
	return token, nil
}

// refreshLocked is refresh once the lock is held.
func (t *Tokens) refreshLocked(ctx context.Context, audience string, a *audienceTokens, refused core.Secret) (core.Secret, error) {
	current, expires := t.current(ctx, audience, a, refused)
	if !current.IsZero() {
		t.keep(a, current, expires)
		if t.now().Before(expires.Add(-t.renewBefore)) {
			return current, nil
		}
	}
	token, err := t.issue(ctx, audience, a)
	if err == nil {
		return token, nil
	}
	if current.IsZero() || !t.usable(expires) {
		return "", err
	}
	t.renewalFailed(a)
	t.log.LogAttrs(ctx, slog.LevelWarn, "poap access token renewal failed; using the current one meanwhile",
		slog.String("audience", audience),
		slog.Time("expires", expires),
		slog.Duration("next_attempt_in", renewRetry),
		slog.String("error", err.Error()))
	return current, nil
}

// current returns the newest token known for audience other than refused:
// the stored one or the one in memory, whichever expires later. Memory can
// be newer when saving failed; a store that cannot be read is logged and
// skipped, since a new token may still be requested within the budget.
func (t *Tokens) current(ctx context.Context, audience string, a *audienceTokens, refused core.Secret) (core.Secret, time.Time) {
	t.mu.Lock()
	token, expires := a.token, a.expires
	t.mu.Unlock()
	if token == refused {
		token, expires = "", time.Time{}
	}
	stored, storedExpires, err := t.store.ServiceToken(ctx, audience)
	switch {
	case err != nil && !errors.Is(err, core.ErrNotFound):
		t.log.LogAttrs(ctx, slog.LevelWarn, "poap stored access token unreadable",
			slog.String("audience", audience), slog.String("error", err.Error()))
	case err == nil && stored != refused && !stored.IsZero() && storedExpires.After(expires):
		token, expires = stored, storedExpires
	}
	return token, expires
}

// issue spends one request of the budget and gets a new token for audience
// from the token service, then saves it in the store and in memory. A
// failure to save is logged, not returned: the token works, and other
// processes will request their own within the budget.
func (t *Tokens) issue(ctx context.Context, audience string, a *audienceTokens) (core.Secret, error) {
	now := t.now()
	if err := t.spend(ctx, audience, now); err != nil {
		return "", err
	}
	token, expires, err := t.request(ctx, audience, now)
	if err != nil {
		return "", err
	}
	if err := t.store.SaveServiceToken(ctx, audience, token, expires); err != nil {
		t.log.LogAttrs(ctx, slog.LevelError, "poap access token not saved",
			slog.String("audience", audience), slog.String("error", err.Error()))
	}
	t.keep(a, token, expires)
	t.log.LogAttrs(ctx, slog.LevelInfo, "poap access token issued",
		slog.String("audience", audience), slog.Time("expires", expires))
	return token, nil
}

// spend checks that a token request for audience at now stays within the
// budget of the last hour, and records it before it is sent: the service
// may count a request whose answer never arrives. Over budget, it logs an
// error and returns one wrapping ErrTokenBudget.
func (t *Tokens) spend(ctx context.Context, audience string, now time.Time) error {
	n, err := t.store.TokenIssuesSince(ctx, audience, now.Add(-time.Hour))
	if err != nil {
		return fmt.Errorf("poap: %s: count recent requests: %w", wire.OpAccessToken, err)
	}
	if n >= t.budget {
		// The store keeps a count, not the times: an hour from now is
		// when the window is sure to have room again.
		freesBy := now.Add(time.Hour)
		t.log.LogAttrs(ctx, slog.LevelError, "poap access token budget spent; not requesting one, which could earn a ban",
			slog.String("audience", audience),
			slog.Int("requests_last_hour", n),
			slog.Int("budget", t.budget),
			slog.Time("frees_by", freesBy))
		return fmt.Errorf("poap: %s: %d requests for %s in the last hour, the budget is %d, room again by %s: %w",
			wire.OpAccessToken, n, audience, t.budget, freesBy.UTC().Format(time.RFC3339), ErrTokenBudget)
	}
	if err := t.store.RecordTokenIssue(ctx, audience, now); err != nil {
		return fmt.Errorf("poap: %s: record request: %w", wire.OpAccessToken, err)
	}
	return nil
}
