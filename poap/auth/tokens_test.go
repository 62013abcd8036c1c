package auth

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/storage"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

func TestTokens_Restarts(t *testing.T) {
	t.Parallel()
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		e := newTokenEnv(t)
		databaseURL := newURL()
		var first core.Secret
		for i := range 5 {
			db := openStore(t, databaseURL)
			got, err := e.newTokens(t, db, Options{}).Token(t.Context(), audience)
			if err != nil {
				t.Fatalf("run %d: Token() = %v", i, err)
			}
			if i == 0 {
				first = got
			}
			if got != first || !e.sb.ValidToken(got.Reveal(), audience) {
				t.Errorf("run %d: Token() is another or an invalid token, want the first run's", i)
			}
			db.Close()
		}
		if n := e.tokenRequests(); n != 1 {
			t.Errorf("5 runs made %d token requests, want 1", n)
		}
		if strings.Contains(e.logs.String(), first.Reveal()) {
			t.Errorf("logs hold the access token")
		}
	})
}

func TestTokens_Concurrent(t *testing.T) {
	t.Parallel()
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		e := newTokenEnv(t)
		databaseURL := newURL()
		// Two replicas: two handles on PostgreSQL; on SQLite, which one
		// process holds, two Tokens on the one handle.
		first := openStore(t, databaseURL)
		second := first
		if first.Dialect() == storage.DialectPostgres {
			second = openStore(t, databaseURL)
		}
		replicas := []*Tokens{e.newTokens(t, first, Options{}), e.newTokens(t, second, Options{})}
		start := make(chan struct{})
		got := make([]core.Secret, 50)
		var wg sync.WaitGroup
		for i := range got {
			wg.Go(func() {
				<-start
				var err error
				if got[i], err = replicas[i%2].Token(t.Context(), audience); err != nil {
					t.Errorf("Token() = %v", err)
				}
			})
		}
		close(start)
		wg.Wait()
		for i := range got {
			if got[i] != got[0] || got[i].IsZero() {
				t.Fatalf("caller %d got another token than caller 0", i)
			}
		}
		if n := e.tokenRequests(); n != 1 {
			t.Errorf("50 callers on 2 replicas made %d token requests, want 1", n)
		}
	})
}

func TestTokens_Budget(t *testing.T) {
	t.Parallel()
	t.Run("StoredIssues", func(t *testing.T) {
		e := newTokenEnv(t)
		db := openStore(t, migrated.SQLiteURL(t))
		// Another replica spent the budget in the last hour.
		for _, ago := range []time.Duration{50, 40, 30, 10} {
			if err := db.RecordTokenIssue(t.Context(), e.client(), audience, e.clock.Now().Add(-ago*time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		tk := e.newTokens(t, db, Options{})
		if _, err := tk.Token(t.Context(), audience); !errors.Is(err, poap.ErrTokenBudget) {
			t.Errorf("Token() with the budget spent = %v, want %v", err, poap.ErrTokenBudget)
		}
		if n := e.tokenRequests(); n != 0 {
			t.Errorf("%d token requests reached the service, want 0", n)
		}
		if logs := e.logs.String(); !strings.Contains(logs, "level=ERROR") || !strings.Contains(logs, "budget") {
			t.Errorf("logs = %q, want an error line about the budget", logs)
		}
		// Ten minutes on, the oldest issue has left the window.
		e.clock.Add(10*time.Minute + time.Second)
		if _, err := tk.Token(t.Context(), audience); err != nil {
			t.Errorf("Token() once the window has room = %v, want nil", err)
		}
	})
	t.Run("FifthRenewal", func(t *testing.T) {
		e := newTokenEnv(t)
		tk := e.newTokens(t, openStore(t, migrated.SQLiteURL(t)), Options{})
		token, err := tk.Token(t.Context(), audience)
		if err != nil {
			t.Fatalf("Token() = %v", err)
		}
		for range 3 {
			e.sb.RevokeTokens()
			if token, err = tk.Renew(t.Context(), audience, token); err != nil {
				t.Fatalf("Renew() = %v", err)
			}
		}
		if _, err := tk.Renew(t.Context(), audience, token); !errors.Is(err, poap.ErrTokenBudget) {
			t.Errorf("fifth token within an hour = %v, want %v", err, poap.ErrTokenBudget)
		}
		if n := e.tokenRequests(); n != DefaultBudget {
			t.Errorf("%d token requests, want %d", n, DefaultBudget)
		}
	})
}

func TestTokens_RenewAhead(t *testing.T) {
	t.Parallel()
	e := newTokenEnv(t)
	db := openStore(t, migrated.SQLiteURL(t))
	tk := e.newTokens(t, db, Options{})
	first, err := tk.Token(t.Context(), audience)
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Add(sandboxLifetime - DefaultRenewBefore - time.Minute)
	if got, err := tk.Token(t.Context(), audience); got != first || err != nil || e.tokenRequests() != 1 {
		t.Errorf("Token() before the renewal point = %v, %d requests, want the first token and 1", err, e.tokenRequests())
	}
	e.clock.Add(2 * time.Minute)
	second, err := tk.Token(t.Context(), audience)
	if err != nil || second == first || e.tokenRequests() != 2 {
		t.Fatalf("Token() past the renewal point = %v, %d requests, want a new token and 2", err, e.tokenRequests())
	}
	// A restart finds the renewed token in the store.
	if got, err := e.newTokens(t, db, Options{}).Token(t.Context(), audience); got != second || err != nil {
		t.Errorf("Token() after a restart = %v, want the renewed token", err)
	}
}

func TestTokens_RenewFailure(t *testing.T) {
	t.Parallel()
	t.Run("KeepsWorkingToken", func(t *testing.T) {
		e := newTokenEnv(t)
		tk := e.newTokens(t, openStore(t, migrated.SQLiteURL(t)), Options{})
		first, _ := tk.Token(t.Context(), audience)
		e.clock.Add(sandboxLifetime - time.Hour)
		e.sb.FailNext(1, 503)
		if got, err := tk.Token(t.Context(), audience); got != first || err != nil {
			t.Errorf("Token() when renewal fails = %v, want the working token", err)
		}
		if !strings.Contains(e.logs.String(), "level=WARN") {
			t.Errorf("logs = %q, want a warning", e.logs)
		}
		// The next attempt waits a while, spending no budget meanwhile.
		if got, _ := tk.Token(t.Context(), audience); got != first || e.tokenRequests() != 2 {
			t.Errorf("Token() right after = %d requests, want the working token and 2", e.tokenRequests())
		}
		e.clock.Add(renewRetry)
		if got, err := tk.Token(t.Context(), audience); got == first || err != nil || e.tokenRequests() != 3 {
			t.Errorf("Token() later = %v, %d requests, want a new token and 3", err, e.tokenRequests())
		}
	})
	t.Run("ExpiredToken", func(t *testing.T) {
		e := newTokenEnv(t)
		tk := e.newTokens(t, openStore(t, migrated.SQLiteURL(t)), Options{})
		tk.Token(t.Context(), audience)
		e.clock.Add(sandboxLifetime)
		e.sb.FailNext(1, 503)
		if _, err := tk.Token(t.Context(), audience); !errors.Is(err, poap.ErrUnavailable) {
			t.Errorf("Token() with an expired token and renewal failing = %v, want %v", err, poap.ErrUnavailable)
		}
	})
}

func TestTokens_Renew(t *testing.T) {
	t.Parallel()
	e := newTokenEnv(t)
	tk := e.newTokens(t, openStore(t, migrated.SQLiteURL(t)), Options{})
	first, _ := tk.Token(t.Context(), audience)
	second, err := tk.Renew(t.Context(), audience, first)
	if err != nil || second == first || e.tokenRequests() != 2 {
		t.Fatalf("Renew(first) = %v, %d requests, want a new token and 2", err, e.tokenRequests())
	}
	// A caller still holding the refused token gets the renewed one.
	if got, err := tk.Renew(t.Context(), audience, first); got != second || err != nil || e.tokenRequests() != 2 {
		t.Errorf("Renew(first) again = %v, %d requests, want the second token and 2", err, e.tokenRequests())
	}
	// Many callers refused at once share one renewal.
	got := make([]core.Secret, 20)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i], _ = tk.Renew(t.Context(), audience, second) })
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[0] || got[i] == second || got[i].IsZero() {
			t.Fatalf("caller %d got another token than caller 0, or the refused one", i)
		}
	}
	if n := e.tokenRequests(); n != 3 {
		t.Errorf("%d token requests, want 3", n)
	}
}

// sandboxLifetime is the life of the sandbox's tokens.
const sandboxLifetime = 24 * time.Hour

func TestTokens_ContextDone(t *testing.T) {
	t.Parallel()
	e := newTokenEnv(t)
	tk := e.newTokens(t, openStore(t, migrated.SQLiteURL(t)), Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := tk.Token(ctx, audience); !errors.Is(err, context.Canceled) {
		t.Errorf("Token(canceled) = %v, want %v", err, context.Canceled)
	}
	if n := e.tokenRequests(); n != 0 {
		t.Errorf("%d token requests, want 0", n)
	}
}

func TestTokens_Clients(t *testing.T) {
	t.Parallel()
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		// Production's token service and a sandbox's, with the same
		// client id and audience, on one store: each keeps its own token
		// and budget.
		prod, sb := newTokenEnv(t), newTokenEnv(t)
		db := openStore(t, newURL())
		real, err := prod.newTokens(t, db, Options{}).Token(t.Context(), audience)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 * DefaultBudget {
			// Each run is a new sandbox at a new address, as every
			// -sandbox start is.
			run := newTokenEnv(t)
			if _, err := run.newTokens(t, db, Options{}).Token(t.Context(), audience); err != nil {
				t.Fatalf("sandbox run %d: Token() = %v", i, err)
			}
		}
		if _, err := sb.newTokens(t, db, Options{}).Token(t.Context(), audience); err != nil {
			t.Fatalf("Token() of another service = %v", err)
		}
		got, expires, err := db.ServiceToken(t.Context(), prod.client(), audience)
		if err != nil || got != real || !expires.After(prod.clock.Now()) {
			t.Errorf("the first service's stored token = %v, want the one it issued", err)
		}
		if got, err := prod.newTokens(t, db, Options{}).Token(t.Context(), audience); got != real || err != nil || prod.tokenRequests() != 1 {
			t.Errorf("Token() after a restart = %v, %d requests, want the first token and 1", err, prod.tokenRequests())
		}
		// Another client id of the same service is another client too.
		other, err := New(Options{AuthURL: prod.url, ClientID: "bot-client-8", ClientSecret: testClientSecret, Store: db, Now: prod.clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.ServiceToken(t.Context(), core.TokenClient{Service: prod.url, ID: "bot-client-8"}, audience); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("ServiceToken(another client id) = %v, want %v", err, core.ErrNotFound)
		}
		// The service knows no such client: it is asked, and refuses.
		if got, err := other.Token(t.Context(), audience); !got.IsZero() || !errors.Is(err, poap.ErrUnauthorized) {
			t.Errorf("Token() of another client id = %v, want the service's refusal, not the first client's token", err)
		}
	})
}

func TestTokens_BudgetAcrossAudiences(t *testing.T) {
	t.Parallel()
	e := newTokenEnv(t)
	db := openStore(t, migrated.SQLiteURL(t))
	// Three tokens for Moments in the last hour, one of another client.
	for _, ago := range []time.Duration{50, 40, 30} {
		if err := db.RecordTokenIssue(t.Context(), e.client(), sandbox.DefaultMomentsAudience, e.clock.Now().Add(-ago*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.RecordTokenIssue(t.Context(), core.TokenClient{Service: e.url, ID: "someone-else"}, audience, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	tk := e.newTokens(t, db, Options{})
	if _, err := tk.Token(t.Context(), audience); err != nil {
		t.Fatalf("fourth token in the hour = %v, want nil", err)
	}
	if _, err := tk.Token(t.Context(), sandbox.DefaultMomentsAudience); !errors.Is(err, poap.ErrTokenBudget) {
		t.Errorf("fifth token in the hour over two audiences = %v, want %v", err, poap.ErrTokenBudget)
	}
	if n := e.tokenRequests(); n != 1 {
		t.Errorf("%d token requests reached the service, want 1", n)
	}
}
