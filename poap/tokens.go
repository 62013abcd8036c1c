package poap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/internal/transport"
	"github.com/poapbot/poapbot/poap/wire"
)

// Defaults of TokensOptions.
const (
	// DefaultTokenBudget is the service's limit: more than 4 access tokens
	// an hour earns a ban.
	DefaultTokenBudget = 4
	// DefaultRenewBefore renews a token 2 hours before it expires. Tokens
	// live 24 hours, so this costs one token a day like any other choice,
	// and leaves two hours of a working token to ride out a token service
	// outage, or an hour of budget refusals, before callers see a failure.
	DefaultRenewBefore = 2 * time.Hour
	// DefaultTokenLifetime is assumed when the token service leaves
	// expires_in out: the 24 hours the documentation promises. A token
	// that dies sooner is caught by the 401 that renews it.
	DefaultTokenLifetime = 24 * time.Hour
)

// renewRetry spaces the attempts to renew, ahead of time, a token that
// still works, after one failed. Without it, a token service outage would
// spend the hourly budget on the first four calls; 20 minutes allows 3
// attempts an hour and keeps one token request free for a 401.
const renewRetry = 20 * time.Minute

// expiryMargin is the least life a token must have left to be handed out,
// so it does not expire between Token and the request it is for.
const expiryMargin = time.Minute

// TokenStore keeps access tokens and the times they were issued, for every
// process sharing a database: storage.DB implements it.
type TokenStore interface {
	// ServiceToken returns the stored token for audience and its expiry,
	// or an error wrapping core.ErrNotFound when none is stored.
	ServiceToken(ctx context.Context, audience string) (core.Secret, time.Time, error)
	// SaveServiceToken stores token for audience, replacing the previous.
	SaveServiceToken(ctx context.Context, audience string, token core.Secret, expiresAt time.Time) error
	// RecordTokenIssue notes a token request for audience at at.
	RecordTokenIssue(ctx context.Context, audience string, at time.Time) error
	// TokenIssuesSince counts the token requests for audience at or after
	// since.
	TokenIssuesSince(ctx context.Context, audience string, since time.Time) (int, error)
	// LockTokens runs fn while no other caller, in this process or another
	// sharing the store, holds audience's lock.
	LockTokens(ctx context.Context, audience string, fn func(ctx context.Context) error) error
}

// TokensOptions configures Tokens. AuthURL, ClientID, ClientSecret and Store
// are required.
type TokensOptions struct {
	// AuthURL is the token service's address, without /oauth/token
	// (https://auth.accounts.poap.xyz in production, or a sandbox's URL).
	AuthURL string
	// ClientID and ClientSecret are the client credentials; the secret is
	// never logged or put in an error.
	ClientID     string
	ClientSecret core.Secret
	// Store keeps the tokens and their issue times (storage.DB).
	Store TokenStore
	// HTTPClient sends the requests; nil means one that follows redirects
	// only within the same scheme and host, so the secret stays there.
	HTTPClient *http.Client
	// Timeout bounds each token request; zero or less means
	// DefaultTimeout.
	Timeout time.Duration
	// Logger receives a line per token issued or refused; nil discards.
	Logger *slog.Logger
	// Observer is told about every token request, as wire.OpAccessToken; nil
	// means none.
	Observer Observer
	// Now tells the time; nil is time.Now.
	Now func() time.Time
	// RenewBefore is how long before its expiry a token is renewed; zero
	// or less means DefaultRenewBefore.
	RenewBefore time.Duration
	// Budget is the most token requests per audience in any rolling hour;
	// zero or less means DefaultTokenBudget. More risks the service's ban.
	Budget int
}

// Tokens is the TokenSource of a Client: it gets access tokens from the
// token service with the client credentials, keeps them in memory and in
// the store for other processes and restarts, renews them ahead of expiry,
// and never requests more than the budget allows. Requests for one audience
// are made one at a time, in this process and across those sharing the
// store. It is safe for concurrent use.
type Tokens struct {
	url         string
	clientID    string
	secret      core.Secret
	store       TokenStore
	http        *http.Client
	timeout     time.Duration
	log         *slog.Logger
	observer    Observer
	now         func() time.Time
	renewBefore time.Duration
	budget      int

	mu        sync.Mutex
	audiences map[string]*audienceTokens
}

var _ TokenSource = (*Tokens)(nil)

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

// NewTokens returns Tokens for opts, filling the defaults described on
// TokensOptions. It fails when a required option is missing or AuthURL is
// not an absolute http or https URL.
func NewTokens(opts TokensOptions) (*Tokens, error) {
	u, err := transport.ParseBaseURL(opts.AuthURL)
	if err != nil {
		return nil, fmt.Errorf("poap: new tokens: auth url: %w", err)
	}
	switch {
	case opts.ClientID == "" || opts.ClientSecret.IsZero():
		return nil, errors.New("poap: new tokens: the client id and secret are required")
	case opts.Store == nil:
		return nil, errors.New("poap: new tokens: a store is required")
	}
	t := &Tokens{
		url:         u.String() + "/oauth/token",
		clientID:    opts.ClientID,
		secret:      opts.ClientSecret,
		store:       opts.Store,
		http:        opts.HTTPClient,
		timeout:     opts.Timeout,
		log:         opts.Logger,
		observer:    opts.Observer,
		now:         opts.Now,
		renewBefore: opts.RenewBefore,
		budget:      opts.Budget,
		audiences:   map[string]*audienceTokens{},
	}
	t.fillDefaults()
	return t, nil
}

// fillDefaults replaces t's zero settings by the defaults.
func (t *Tokens) fillDefaults() {
	if t.http == nil {
		t.http = &http.Client{CheckRedirect: transport.SameHostRedirect}
	}
	if t.timeout <= 0 {
		t.timeout = DefaultTimeout
	}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	if t.observer == nil {
		t.observer = ObserverFunc(func(string, string, time.Duration) {})
	}
	if t.now == nil {
		t.now = time.Now
	}
	if t.renewBefore <= 0 {
		t.renewBefore = DefaultRenewBefore
	}
	if t.budget <= 0 {
		t.budget = DefaultTokenBudget
	}
}

// Token returns an access token for audience: the one in memory while it
// is fresh, else the stored one, else a new one from the token service. A
// token due for renewal that still works is returned when renewal fails. It
// returns an error wrapping ErrTokenBudget when a request could exceed the
// hourly budget (none is sent), ErrUnauthorized when the credentials are
// refused, ErrUnavailable or ErrRateLimited when the token service fails,
// the store's error, or the context's.
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
// just answered 401 to: the one another caller got meanwhile, or a new one.
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
