package poap

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/wire"
	"github.com/poapbot/poapbot/storage/storagetest"
)

func TestTokens_ServiceErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		secret   core.Secret
		audience string
		fail     int
		want     error
		status   int
		code     string
	}{
		{"WrongSecret", "not-the-secret-55", audience, 0, ErrUnauthorized, 401, "access_denied"},
		{"AudienceNotGranted", "", "https://other.example", 0, ErrUnauthorized, 403, "access_denied"},
		{"RateLimited", "", audience, http.StatusTooManyRequests, ErrRateLimited, 429, ""},
		{"Unavailable", "", audience, http.StatusBadGateway, ErrUnavailable, 502, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTokenEnv(t)
			tk := e.newTokens(t, openStore(t, storagetest.SQLiteURL(t)), TokensOptions{ClientSecret: tt.secret})
			e.sb.FailNext(min(tt.fail, 1), tt.fail)
			_, err := tk.Token(t.Context(), tt.audience)
			var apiErr *APIError
			if !errors.Is(err, tt.want) || !errors.As(err, &apiErr) ||
				apiErr.Operation != wire.OpAccessToken || apiErr.Status != tt.status || apiErr.Code != tt.code {
				t.Errorf("Token() = %#v, want %v from %s with status %d and code %q", err, tt.want, wire.OpAccessToken, tt.status, tt.code)
			}
			if err != nil && (strings.Contains(err.Error(), testClientSecret) || strings.Contains(err.Error(), "not-the-secret")) {
				t.Errorf("Token() error %q holds the secret", err)
			}
			if n := e.tokenRequests(); n != 1 {
				t.Errorf("%d token requests, want 1: token requests are never retried", n)
			}
		})
	}
}

// tokenServer answers POST /oauth/token with status and body, which may
// quote what it got with %s, and remembers the last request.
func tokenServer(t *testing.T, status int, body string) (string, *tokenRequestJSON) {
	t.Helper()
	var got tokenRequestJSON
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/oauth/token" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("request %s %s (%s), want POST /oauth/token as JSON", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		}
		json.NewDecoder(r.Body).Decode(&got)
		w.WriteHeader(status)
		w.Write([]byte(strings.ReplaceAll(body, "%s", got.ClientSecret)))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &got
}

func TestTokens_Response(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		status  int
		body    string
		want    error
		expires time.Duration
	}{
		{"OK", 200, `{"access_token":"tok-1","token_type":"Bearer","expires_in":3600,"scope":"x"}`, nil, time.Hour},
		{"NoExpiresIn", 200, `{"access_token":"tok-1","token_type":"Bearer"}`, nil, DefaultTokenLifetime},
		{"Malformed", 200, `{"access_token":`, ErrUnavailable, 0},
		{"NoToken", 200, `{"token_type":"Bearer","expires_in":86400}`, ErrUnavailable, 0},
		{"NotBearer", 200, `{"access_token":"tok-1","token_type":"mac"}`, ErrUnavailable, 0},
		{"InvalidClient", 400, `{"error":"invalid_client","error_description":"bad secret %s"}`, ErrUnauthorized, 0},
		{"UnauthorizedClient", 400, `{"error":"unauthorized_client"}`, ErrUnauthorized, 0},
		{"InvalidRequest", 400, `{"error":"invalid_request","error_description":"echo %s"}`, nil, 0},
		{"PlainText", 500, `oops %s`, ErrUnavailable, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, got := tokenServer(t, tt.status, tt.body)
			db := openStore(t, storagetest.SQLiteURL(t))
			clock := newTestClock()
			tk, err := NewTokens(TokensOptions{AuthURL: url + "/", ClientID: testClientID, ClientSecret: testClientSecret, Store: db, Now: clock.Now})
			if err != nil {
				t.Fatal(err)
			}
			token, err := tk.Token(t.Context(), audience)
			want := tokenRequestJSON{ClientID: testClientID, ClientSecret: testClientSecret, Audience: audience, GrantType: "client_credentials"}
			if *got != want {
				t.Errorf("token request = %+v, want %+v", *got, want)
			}
			if tt.status != 200 && err == nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("Token() = %v, want %v", err, tt.want)
			}
			if err != nil {
				if strings.Contains(err.Error(), testClientSecret) {
					t.Errorf("Token() error %q holds the secret", err)
				}
				return
			}
			_, expires, err := db.ServiceToken(t.Context(), audience)
			if token.Reveal() != "tok-1" || err != nil || !expires.Equal(clock.Now().Add(tt.expires)) {
				t.Errorf("stored token expires %v, %v, want %v", expires, err, clock.Now().Add(tt.expires))
			}
		})
	}
}

func TestNewTokens(t *testing.T) {
	db := openStore(t, storagetest.SQLiteURL(t))
	ok := TokensOptions{AuthURL: "https://auth.accounts.poap.xyz", ClientID: "id", ClientSecret: "hunter2", Store: db}
	if _, err := NewTokens(ok); err != nil {
		t.Errorf("NewTokens(%+v) = %v, want nil", ok, err)
	}
	bad := []func(o *TokensOptions){
		func(o *TokensOptions) { o.AuthURL = "" },
		func(o *TokensOptions) { o.AuthURL = "auth.accounts.poap.xyz" },
		func(o *TokensOptions) { o.ClientID = "" },
		func(o *TokensOptions) { o.ClientSecret = "" },
		func(o *TokensOptions) { o.Store = nil },
	}
	for i, change := range bad {
		o := ok
		change(&o)
		_, err := NewTokens(o)
		if err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("NewTokens(case %d) = %v, want an error without the secret", i, err)
		}
	}
}

// protected serves the sandbox's token service and /protected, which
// answers 200 to a valid bearer token of the sandbox and 401 otherwise, and
// /refuse, which always answers 401. It counts the calls to each.
func protected(t *testing.T, e *tokenEnv) (string, func(path string) int) {
	t.Helper()
	var mu sync.Mutex
	calls := map[string]int{}
	count := func(path string) int {
		mu.Lock()
		defer mu.Unlock()
		return calls[path]
	}
	mux := http.NewServeMux()
	mux.Handle("/oauth/token", e.sb)
	guard := func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls[r.URL.Path]++
		mu.Unlock()
		token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if r.URL.Path == "/refuse" || !e.sb.ValidToken(token, audience) {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"message":"Unauthorized"}`))
			return
		}
		w.Write([]byte(`{}`))
	}
	mux.HandleFunc("/protected", guard)
	mux.HandleFunc("/refuse", guard)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, count
}

func TestClient_RenewOn401(t *testing.T) {
	e := newTokenEnv(t)
	base, calls := protected(t, e)
	e.url = base
	tk := e.newTokens(t, openStore(t, storagetest.SQLiteURL(t)), TokensOptions{})
	c, err := NewClient(Options{BaseURL: base, Tokens: tk, Audience: audience, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	// A mint-like request: never retried, but sent again after a 401.
	mint := request{op: "probe", method: http.MethodPost, path: "/protected", access: keyAndBearer}
	if err := c.do(t.Context(), mint, nil); err != nil || e.tokenRequests() != 1 {
		t.Fatalf("do() = %v, %d token requests, want nil and 1", err, e.tokenRequests())
	}
	for name, spoil := range map[string]func(){"Revoked": e.sb.RevokeTokens, "Expired": e.sb.ExpireTokens} {
		before := e.tokenRequests()
		spoil()
		if err := c.do(t.Context(), mint, nil); err != nil || e.tokenRequests() != before+1 {
			t.Errorf("%s: do() = %v, %d token requests, want nil and one more", name, err, e.tokenRequests()-before)
		}
	}
	t.Run("Concurrent", func(t *testing.T) {
		before := e.tokenRequests()
		e.sb.RevokeTokens()
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				if err := c.do(t.Context(), mint, nil); err != nil {
					t.Errorf("do() = %v", err)
				}
			})
		}
		wg.Wait()
		if n := e.tokenRequests() - before; n != 1 {
			t.Errorf("20 callers refused at once made %d token requests, want 1", n)
		}
	})
	t.Run("Second401", func(t *testing.T) {
		e.clock.Add(time.Hour + time.Second) // four tokens were requested: the budget
		before := e.tokenRequests()
		refused := request{op: "probe", method: http.MethodGet, path: "/refuse", access: keyAndBearer, idempotent: true}
		err := c.do(t.Context(), refused, nil)
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.Status != http.StatusUnauthorized || !errors.Is(err, ErrUnauthorized) {
			t.Errorf("do(always 401) = %v, want the second 401", err)
		}
		if calls("/refuse") != 2 || e.tokenRequests() != before+1 {
			t.Errorf("always 401: %d calls, %d token requests, want 2 and 1", calls("/refuse"), e.tokenRequests()-before)
		}
	})
}

func TestClient_NoTokens(t *testing.T) {
	c, _ := newTestClient(t, &script{statuses: []int{200}}, Options{})
	r := request{op: "probe", method: http.MethodGet, path: "/protected", access: keyAndBearer}
	if err := c.do(t.Context(), r, nil); !errors.Is(err, ErrUnauthorized) {
		t.Errorf("do() without a TokenSource = %v, want %v", err, ErrUnauthorized)
	}
}
