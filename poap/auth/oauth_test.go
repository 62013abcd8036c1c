package auth

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/wire"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
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
		{"WrongSecret", "not-the-secret-55", audience, 0, poap.ErrUnauthorized, 401, "access_denied"},
		{"AudienceNotGranted", "", "https://other.example", 0, poap.ErrUnauthorized, 403, "access_denied"},
		{"RateLimited", "", audience, http.StatusTooManyRequests, poap.ErrRateLimited, 429, ""},
		{"Unavailable", "", audience, http.StatusBadGateway, poap.ErrUnavailable, 502, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTokenEnv(t)
			tk := e.newTokens(t, openStore(t, migrated.SQLiteURL(t)), Options{ClientSecret: tt.secret})
			e.sb.FailNext(min(tt.fail, 1), tt.fail)
			_, err := tk.Token(t.Context(), tt.audience)
			var apiErr *poap.APIError
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
func tokenServer(t *testing.T, status int, body string) (string, *wire.TokenRequest) {
	t.Helper()
	var got wire.TokenRequest
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
		{"NoExpiresIn", 200, `{"access_token":"tok-1","token_type":"Bearer"}`, nil, DefaultLifetime},
		{"Malformed", 200, `{"access_token":`, poap.ErrUnavailable, 0},
		{"NoToken", 200, `{"token_type":"Bearer","expires_in":86400}`, poap.ErrUnavailable, 0},
		{"NotBearer", 200, `{"access_token":"tok-1","token_type":"mac"}`, poap.ErrUnavailable, 0},
		{"InvalidClient", 400, `{"error":"invalid_client","error_description":"bad secret %s"}`, poap.ErrUnauthorized, 0},
		{"UnauthorizedClient", 400, `{"error":"unauthorized_client"}`, poap.ErrUnauthorized, 0},
		{"InvalidRequest", 400, `{"error":"invalid_request","error_description":"echo %s"}`, nil, 0},
		{"PlainText", 500, `oops %s`, poap.ErrUnavailable, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, got := tokenServer(t, tt.status, tt.body)
			db := openStore(t, migrated.SQLiteURL(t))
			clock := newClock()
			tk, err := New(Options{AuthURL: url + "/", ClientID: testClientID, ClientSecret: testClientSecret, Store: db, Now: clock.Now})
			if err != nil {
				t.Fatal(err)
			}
			token, err := tk.Token(t.Context(), audience)
			want := wire.TokenRequest{ClientID: testClientID, ClientSecret: testClientSecret, Audience: audience, GrantType: "client_credentials"}
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
			// Stored under the client: the service without the trailing
			// slash, and the client id.
			_, expires, err := db.ServiceToken(t.Context(), core.TokenClient{Service: url, ID: testClientID}, audience)
			if token.Reveal() != "tok-1" || err != nil || !expires.Equal(clock.Now().Add(tt.expires)) {
				t.Errorf("stored token expires %v, %v, want %v", expires, err, clock.Now().Add(tt.expires))
			}
		})
	}
}

func TestNew(t *testing.T) {
	db := openStore(t, migrated.SQLiteURL(t))
	ok := Options{AuthURL: "https://auth.accounts.poap.xyz", ClientID: "id", ClientSecret: "hunter2", Store: db}
	if _, err := New(ok); err != nil {
		t.Errorf("New(%+v) = %v, want nil", ok, err)
	}
	bad := []func(o *Options){
		func(o *Options) { o.AuthURL = "" },
		func(o *Options) { o.AuthURL = "auth.accounts.poap.xyz" },
		func(o *Options) { o.ClientID = "" },
		func(o *Options) { o.ClientSecret = "" },
		func(o *Options) { o.Store = nil },
	}
	for i, change := range bad {
		o := ok
		change(&o)
		_, err := New(o)
		if err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("New(case %d) = %v, want an error without the secret", i, err)
		}
	}
}
