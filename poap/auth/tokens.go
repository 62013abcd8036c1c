package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/wire"
)

// renewRetry spaces the attempts to renew, ahead of time, a token that
// still works, after one failed. Without it, a token service outage would
// spend the hourly budget on the first four calls; 20 minutes allows 3
// attempts an hour and keeps one token request free for a refused token.
const renewRetry = 20 * time.Minute

// expiryMargin is the least life a token must have left to be handed out,
// so it does not expire between Token and the request it is for.
const expiryMargin = time.Minute

// Store keeps access tokens and the times they were issued, for every
// process sharing a database: storage.DB implements it. Tokens belong to a
// client (the token service's address and the client id) and an audience;
// issues are counted, and locks held, per client, across its audiences.
type Store interface {
	// ServiceToken returns the stored token of client for audience and
	// its expiry, or an error wrapping core.ErrNotFound when none is
	// stored.
	ServiceToken(ctx context.Context, client core.TokenClient, audience string) (core.Secret, time.Time, error)
	// SaveServiceToken stores client's token for audience, replacing the
	// previous one of that client and audience only.
	SaveServiceToken(ctx context.Context, client core.TokenClient, audience string, token core.Secret, expiresAt time.Time) error
	// RecordTokenIssue notes a token request by client for audience at
	// at.
	RecordTokenIssue(ctx context.Context, client core.TokenClient, audience string, at time.Time) error
	// TokenIssuesSince counts the token requests by client, for any
	// audience, at or after since.
	TokenIssuesSince(ctx context.Context, client core.TokenClient, since time.Time) (int, error)
	// LockTokens runs fn while no other caller, in this process or another
	// sharing the store, holds client's lock.
	LockTokens(ctx context.Context, client core.TokenClient, fn func(ctx context.Context) error) error
}

// Tokens is the poap.TokenSource of a poap.Client: it gets access tokens
// from the token service with the client credentials, keeps them in memory
// and in the store for other processes and restarts, renews them ahead of
// expiry, and never requests more than the budget allows, counted for the
// client across its audiences. Its tokens are stored under the client (the
// token service's address and the client id): another token service or
// client id on the same store, such as a -sandbox run's, never reads,
// replaces or spends them. Requests are made one at a time, in this process
// and across those sharing the store. It is safe for concurrent use.
type Tokens struct {
	url         string
	client      core.TokenClient
	secret      core.Secret
	store       Store
	http        *http.Client
	timeout     time.Duration
	log         *slog.Logger
	observer    poap.Observer
	now         func() time.Time
	renewBefore time.Duration
	budget      int

	mu        sync.Mutex
	audiences map[string]*audienceTokens
}

var _ poap.TokenSource = (*Tokens)(nil)

// audienceTokens is what Tokens keeps for one audience.
type audienceTokens struct {
	// turn holds a value while a goroutine checks or renews the token:
	// one at a time, and the others then find the new one in memory.
	turn chan struct{}
	// token, expires and failed (the last failed early renewal) are
	// guarded by Tokens.mu.
	token   core.Secret
	expires time.Time
	failed  time.Time
}

// Token returns an access token for audience: the one in memory while it
// is fresh, else the stored one, else a new one from the token service. A
// token due for renewal that still works is returned when renewal fails. It
// returns an error wrapping poap.ErrTokenBudget when a request could exceed
// the hourly budget (none is sent), poap.ErrUnauthorized when the
// credentials are refused, poap.ErrUnavailable or poap.ErrRateLimited when
// the token service fails, the store's error, or the context's.
func (t *Tokens) Token(ctx context.Context, audience string) (core.Secret, error) {
	a := t.audience(audience)
	if token, ok := t.fresh(a); ok {
		return token, nil
	}
	if err := a.wait(ctx); err != nil {
		return "", fmt.Errorf("poap: %s: %w", wire.OpAccessToken, err)
	}
	defer a.done()
	if token, ok := t.fresh(a); ok {
		return token, nil
	}
	return t.refresh(ctx, audience, a, "")
}

// Renew returns a token for audience other than refused, which the service
// just refused (401, or the gateway's 403 for an expired or revoked token):
// the one another caller got meanwhile, or a new one.
// Its errors are those of Token; it never returns refused.
func (t *Tokens) Renew(ctx context.Context, audience string, refused core.Secret) (core.Secret, error) {
	a := t.audience(audience)
	if err := a.wait(ctx); err != nil {
		return "", fmt.Errorf("poap: %s: %w", wire.OpAccessToken, err)
	}
	defer a.done()
	t.mu.Lock()
	token, expires := a.token, a.expires
	t.mu.Unlock()
	if !token.IsZero() && token != refused && t.usable(expires) {
		return token, nil
	}
	return t.refresh(ctx, audience, a, refused)
}

// audience returns the state of audience, creating it on first use.
func (t *Tokens) audience(audience string) *audienceTokens {
	t.mu.Lock()
	defer t.mu.Unlock()
	a, ok := t.audiences[audience]
	if !ok {
		a = &audienceTokens{turn: make(chan struct{}, 1)}
		t.audiences[audience] = a
	}
	return a
}

// wait takes the audience's turn, or returns the context's error.
func (a *audienceTokens) wait(ctx context.Context) error {
	select {
	case a.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// done gives the turn back.
func (a *audienceTokens) done() { <-a.turn }

// fresh returns the token in memory if it is not yet due for renewal, or if
// it still works and its renewal failed less than renewRetry ago.
func (t *Tokens) fresh(a *audienceTokens) (core.Secret, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if a.token.IsZero() {
		return "", false
	}
	now := t.now()
	if now.Before(a.expires.Add(-t.renewBefore)) {
		return a.token, true
	}
	waiting := !a.failed.IsZero() && now.Before(a.failed.Add(renewRetry))
	return a.token, waiting && t.usable(a.expires)
}

// usable reports whether a token expiring at expires may still be used.
func (t *Tokens) usable(expires time.Time) bool {
	return t.now().Add(expiryMargin).Before(expires)
}

// keep puts token in memory.
func (t *Tokens) keep(a *audienceTokens, token core.Secret, expires time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if token != a.token {
		a.failed = time.Time{}
	}
	a.token, a.expires = token, expires
}

// renewalFailed notes that renewing a's working token failed now.
func (t *Tokens) renewalFailed(a *audienceTokens) {
	t.mu.Lock()
	defer t.mu.Unlock()
	a.failed = t.now()
}

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
	err := t.store.LockTokens(ctx, t.client, func(ctx context.Context) error {
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
	stored, storedExpires, err := t.store.ServiceToken(ctx, t.client, audience)
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
	if err := t.store.SaveServiceToken(ctx, t.client, audience, token, expires); err != nil {
		t.log.LogAttrs(ctx, slog.LevelError, "poap access token not saved",
			slog.String("audience", audience), slog.String("error", err.Error()))
	}
	t.keep(a, token, expires)
	t.log.LogAttrs(ctx, slog.LevelInfo, "poap access token issued",
		slog.String("audience", audience), slog.Time("expires", expires))
	return token, nil
}

// spend checks that a token request for audience at now stays within the
// client's budget of the last hour, for all its audiences (the service bans
// a client, not an audience), and records it before it is sent: the service
// may count a request whose answer never arrives. Over budget, it logs an
// error and returns one wrapping poap.ErrTokenBudget.
func (t *Tokens) spend(ctx context.Context, audience string, now time.Time) error {
	n, err := t.store.TokenIssuesSince(ctx, t.client, now.Add(-time.Hour))
	if err != nil {
		return fmt.Errorf("poap: %s: count recent requests: %w", wire.OpAccessToken, err)
	}
	if n >= t.budget {
		// The store keeps a count, not the times: an hour from now is
		// when the window is sure to have room again.
		freesBy := now.Add(time.Hour)
		t.log.LogAttrs(ctx, slog.LevelError, "poap access token budget spent; not requesting one, which could earn a ban",
			slog.String("audience", audience),
			slog.String("client_id", t.client.ID),
			slog.String("token_service", t.client.Service),
			slog.Int("requests_last_hour", n),
			slog.Int("budget", t.budget),
			slog.Time("frees_by", freesBy))
		return fmt.Errorf("poap: %s: %d requests by client %s of %s in the last hour, the budget is %d, room again by %s: %w",
			wire.OpAccessToken, n, t.client.ID, t.client.Service, t.budget, freesBy.UTC().Format(time.RFC3339), poap.ErrTokenBudget)
	}
	if err := t.store.RecordTokenIssue(ctx, t.client, audience, now); err != nil {
		return fmt.Errorf("poap: %s: record request: %w", wire.OpAccessToken, err)
	}
	return nil
}
