package sandbox

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap/wire"
)

// authClock is a settable clock for the token tests.
type authClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *authClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *authClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// authServer serves a Server that knows client "bot" with secret "s3cret",
// with two probe routes guarded by tokens, on a settable clock.
func authServer(t *testing.T, clientID string) (*Server, string, *authClock) {
	t.Helper()
	clock := &authClock{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	s := New(Options{ClientID: clientID, ClientSecret: "s3cret", Now: clock.Now})
	ok := func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }
	s.handle("probe", "GET /probe", keyAndBearer, ok)
	s.handle("probe_moments", "GET /probe-moments", bearerOnly, ok)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL, clock
}

// postToken asks for a token and returns the status and decoded body.
func postToken(t *testing.T, base string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	if s, ok := body.(string); ok {
		b = []byte(s)
	}
	resp, err := http.Post(base+"/oauth/token", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got map[string]any
	json.NewDecoder(resp.Body).Decode(&got)
	return resp.StatusCode, got
}

// grant is a client-credentials request.
func grant(client, secret, audience string) wire.TokenRequest {
	return wire.TokenRequest{ClientID: client, ClientSecret: secret, Audience: audience, GrantType: "client_credentials"}
}

func TestServer_Token(t *testing.T) {
	_, base, _ := authServer(t, "bot")
	wrongGrant := grant("bot", "s3cret", DefaultAudience)
	wrongGrant.GrantType = "password"
	tests := []struct {
		name   string
		body   any
		status int
		want   map[string]any
	}{
		{"WrongGrant", wrongGrant, 400, map[string]any{"error": "unsupported_grant_type", "error_description": "Unsupported grant type: password"}},
		{"WrongSecret", grant("bot", "nope", DefaultAudience), 401, map[string]any{"error": "access_denied", "error_description": "Unauthorized"}},
		{"UnknownClient", grant("other", "s3cret", DefaultAudience), 401, map[string]any{"error": "access_denied", "error_description": "Unauthorized"}},
		{"Audience", grant("bot", "s3cret", "https://x.example"), 403, map[string]any{"error": "access_denied", "error_description": "Service not enabled within domain: https://x.example"}},
		{"Malformed", "{", 400, map[string]any{"error": "invalid_request", "error_description": "Invalid request body"}},
	}
	for _, tt := range tests {
		status, got := postToken(t, base, tt.body)
		if status != tt.status || !cmp.Equal(got, tt.want) {
			t.Errorf("%s: POST /oauth/token = %d %v, want %d %v", tt.name, status, got, tt.status, tt.want)
		}
	}
	for _, audience := range []string{DefaultAudience, DefaultMomentsAudience} {
		status, got := postToken(t, base, grant("bot", "s3cret", audience))
		token, _ := got["access_token"].(string)
		if status != 200 || token == "" || got["token_type"] != "Bearer" || got["expires_in"] != 86400.0 || got["scope"] == "" {
			t.Errorf("POST /oauth/token for %s = %d %v, want a bearer token for a day", audience, status, got)
		}
	}
}

func TestServer_TokenDemoMode(t *testing.T) {
	s, base, _ := authServer(t, "")
	if status, got := postToken(t, base, grant("anyone", "anything", DefaultAudience)); status != 200 || got["access_token"] == "" {
		t.Errorf("POST /oauth/token in demo mode = %d %v, want a token", status, got)
	}
	if n := s.TokensIssued("anyone"); n != 1 {
		t.Errorf("TokensIssued(anyone) = %d, want 1", n)
	}
}

func TestServer_TokenBan(t *testing.T) {
	t.Run("FifthInAnHour", func(t *testing.T) {
		s, base, clock := authServer(t, "bot")
		for i := range wire.TokenBudget {
			if status, _ := postToken(t, base, grant("bot", "s3cret", DefaultAudience)); status != 200 || s.Banned() {
				t.Fatalf("request %d = %d, banned %v, want 200 and no ban", i+1, status, s.Banned())
			}
			clock.Add(10 * time.Minute)
		}
		status, got := postToken(t, base, grant("bot", "s3cret", DefaultAudience))
		want := map[string]any{"error": "too_many_requests", "error_description": "Rate limit reached"}
		if status != 429 || !cmp.Equal(got, want) || !s.Banned() {
			t.Errorf("fifth request = %d %v, banned %v, want 429 %v and the ban", status, got, s.Banned(), want)
		}
		clock.Add(2 * time.Hour)
		if status, _ := postToken(t, base, grant("bot", "s3cret", DefaultMomentsAudience)); status != 429 {
			t.Errorf("request once banned = %d, want 429", status)
		}
		if n := s.TokensIssued("bot"); n != wire.TokenBudget {
			t.Errorf("TokensIssued(bot) = %d, want %d", n, wire.TokenBudget)
		}
	})
	t.Run("AcrossAudiences", func(t *testing.T) {
		// The service bans a client, not an audience.
		s, base, clock := authServer(t, "bot")
		for i, audience := range []string{DefaultAudience, DefaultMomentsAudience, DefaultAudience, DefaultMomentsAudience} {
			if status, _ := postToken(t, base, grant("bot", "s3cret", audience)); status != 200 {
				t.Fatalf("request %d = %d, want 200", i+1, status)
			}
			clock.Add(10 * time.Minute)
		}
		if status, _ := postToken(t, base, grant("bot", "s3cret", DefaultMomentsAudience)); status != 429 || !s.Banned() {
			t.Errorf("fifth request in an hour, over two audiences = %d, banned %v, want 429 and the ban", status, s.Banned())
		}
	})
	t.Run("RollingHour", func(t *testing.T) {
		s, base, clock := authServer(t, "bot")
		for i := range 3 * wire.TokenBudget {
			postToken(t, base, grant("bot", "s3cret", []string{DefaultAudience, DefaultMomentsAudience}[i%2]))
			clock.Add(16 * time.Minute) // 4 in any hour
		}
		if s.Banned() || s.TokensIssued("bot") != 12 {
			t.Errorf("banned %v after %d tokens, want no ban after 12", s.Banned(), s.TokensIssued("bot"))
		}
	})
}

func TestServer_Bearer(t *testing.T) {
	s, base, clock := authServer(t, "bot")
	get := func(path, token string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	_, got := postToken(t, base, grant("bot", "s3cret", DefaultAudience))
	token := got["access_token"].(string)
	moments := s.IssueToken(DefaultMomentsAudience)
	checks := []struct {
		name, path, token string
		want              int
	}{
		{"NoToken", "/probe", "", 401},
		{"UnknownToken", "/probe", "sbx_forged", 401},
		{"Valid", "/probe", token, 200},
		{"WrongAudience", "/probe-moments", token, 401},
		{"IssueToken", "/probe-moments", moments, 200},
	}
	for _, c := range checks {
		if status := get(c.path, c.token); status != c.want {
			t.Errorf("%s: GET %s = %d, want %d", c.name, c.path, status, c.want)
		}
	}
	if s.TokensIssued("") != 0 || s.TokensIssued("bot") != 1 {
		t.Errorf("TokensIssued = %d and %d, want IssueToken not counted", s.TokensIssued(""), s.TokensIssued("bot"))
	}
	// A token the gateway knows but no longer accepts gets its
	// authorizer's 403 deny on the issuing service, 401 on Moments.
	denied := func(name, token string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, base+"/probe", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		json.NewDecoder(resp.Body).Decode(&body)
		want := map[string]any{"Message": "User is not authorized to access this resource with an explicit deny"}
		if resp.StatusCode != 403 || !cmp.Equal(body, want) {
			t.Errorf("GET /probe %s = %d %v, want 403 %v", name, resp.StatusCode, body, want)
		}
	}
	clock.Add(wire.TokenLifetime)
	denied("after a day", token)
	clock.Add(-time.Hour)
	s.ExpireTokens()
	denied("after ExpireTokens", token)
	fresh := s.IssueToken(DefaultAudience)
	s.RevokeTokens()
	denied("after RevokeTokens", fresh)
	if status := get("/probe-moments", moments); status != 401 {
		t.Errorf("GET /probe-moments after RevokeTokens = %d, want 401", status)
	}
	if s.ValidToken(fresh, DefaultAudience) {
		t.Error("ValidToken(revoked) = true, want false")
	}
}
