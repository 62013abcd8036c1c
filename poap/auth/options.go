package auth

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/internal/transport"
	"github.com/poapbot/poapbot/poap/wire"
)

// Defaults of Options.
const (
	// DefaultBudget is the service's limit: more than 4 access tokens an
	// hour earns a ban.
	DefaultBudget = wire.TokenBudget
	// DefaultRenewBefore renews a token 2 hours before it expires. Tokens
	// live 24 hours, so this costs one token a day like any other choice,
	// and leaves two hours of a working token to ride out a token service
	// outage, or an hour of budget refusals, before callers see a failure.
	DefaultRenewBefore = 2 * time.Hour
	// DefaultLifetime is assumed when the token service leaves expires_in
	// out: the 24 hours the documentation promises. A token that dies
	// sooner is caught by the refusal (401 or 403) that renews it.
	DefaultLifetime = wire.TokenLifetime
)

// Options configures Tokens. AuthURL, ClientID, ClientSecret and Store are
// required.
type Options struct {
	// AuthURL is the token service's address, without /oauth/token
	// (https://auth.accounts.poap.xyz in production, or a sandbox's URL).
	// With ClientID it names the client whose tokens the store keeps.
	AuthURL string
	// ClientID and ClientSecret are the client credentials; the secret is
	// never logged or put in an error.
	ClientID     string
	ClientSecret core.Secret
	// Store keeps the tokens and their issue times (storage.DB).
	Store Store
	// HTTPClient sends the requests; nil means one that follows redirects
	// only within the same scheme and host, so the secret stays there.
	HTTPClient *http.Client
	// Timeout bounds each token request; zero or less means
	// poap.DefaultTimeout.
	Timeout time.Duration
	// Logger receives a line per token issued or refused; nil discards.
	Logger *slog.Logger
	// Observer is told about every token request, as wire.OpAccessToken;
	// nil means none.
	Observer poap.Observer
	// Now tells the time; nil is time.Now.
	Now func() time.Time
	// RenewBefore is how long before its expiry a token is renewed; zero
	// or less means DefaultRenewBefore.
	RenewBefore time.Duration
	// Budget is the most token requests of the client, all audiences
	// together, in any rolling hour; zero or less means DefaultBudget.
	// More risks the service's ban, which is the client's.
	Budget int
}

// New returns Tokens for opts, filling the defaults described on Options.
// It fails when a required option is missing or AuthURL is not an absolute
// http or https URL.
func New(opts Options) (*Tokens, error) {
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
	// The host's case is not the service's: one service, one budget.
	u.Host = strings.ToLower(u.Host)
	t := &Tokens{
		url:         u.String() + "/oauth/token",
		client:      core.TokenClient{Service: u.String(), ID: opts.ClientID},
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
		t.timeout = poap.DefaultTimeout
	}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	if t.observer == nil {
		t.observer = poap.ObserverFunc(func(string, string, time.Duration) {})
	}
	if t.now == nil {
		t.now = time.Now
	}
	if t.renewBefore <= 0 {
		t.renewBefore = DefaultRenewBefore
	}
	if t.budget <= 0 {
		t.budget = DefaultBudget
	}
}
