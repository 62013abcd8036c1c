package sandbox

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/poapbot/poapbot/poap/wire"
)

// tokenService is the Server's token state, guarded by its own lock.
type tokenService struct {
	clientID     string
	clientSecret string

	mu       sync.Mutex
	tokens   map[string]issuedToken // by token
	requests map[string][]time.Time // by client, the last hour's
	issued   map[string]int         // by client
	banned   bool
}

// issuedToken is what the Server remembers of an access token.
type issuedToken struct {
	audience string
	expires  time.Time
	revoked  bool
}

// bearer is what a request's access token is to the Server.
type bearer int

const (
	// bearerValid: a token the Server issued for the audience, alive.
	bearerValid bearer = iota
	// bearerMissing: no token, or one the Server never issued (or issued
	// for another audience).
	bearerMissing
	// bearerDenied: a token the Server issued for the audience that has
	// expired or been revoked.
	bearerDenied
)

// authorizerDeny is the message of the gateway's 403 when its authorizer
// denies a token it knows but no longer accepts (expired or revoked).
const authorizerDeny = "User is not authorized to access this resource with an explicit deny"

// authRoutes registers the token service.
func (s *Server) authRoutes() {
	s.handle(wire.OpAccessToken, "POST /oauth/token", open, s.issueToken)
}

// issueToken answers POST /oauth/token as the token service does, banning a
// client that asks for a fifth token within an hour, whatever the audiences.
func (s *Server) issueToken(w http.ResponseWriter, r *http.Request) {
	var req wire.TokenRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&req); err != nil {
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "Invalid request body")
		return
	}
	switch {
	case req.GrantType != wire.GrantClientCredentials:
		writeOAuthError(w, http.StatusBadRequest, "unsupported_grant_type", "Unsupported grant type: "+req.GrantType)
	case !s.auth.knows(req.ClientID, req.ClientSecret):
		writeOAuthError(w, http.StatusUnauthorized, "access_denied", "Unauthorized")
	case !s.auth.admit(req.ClientID, s.now()):
		writeOAuthError(w, http.StatusTooManyRequests, "too_many_requests", "Rate limit reached")
	case req.Audience != s.audience && req.Audience != s.momentsAudience:
		writeOAuthError(w, http.StatusForbidden, "access_denied", "Service not enabled within domain: "+req.Audience)
	default:
		token := s.auth.issue(req.Audience, s.now())
		s.auth.count(req.ClientID)
		writeJSON(w, http.StatusOK, wire.TokenResponse{
			AccessToken: token,
			TokenType:   wire.TokenTypeBearer,
			ExpiresIn:   wire.TokenLifetime.Seconds(),
			Scope:       scope(req.Audience, s.momentsAudience),
		})
	}
}

// scope is the scope granted with a token for audience.
func scope(audience, moments string) string {
	if audience == moments {
		return "write:moments"
	}
	return "read:events write:events write:qr-codes"
}

// writeOAuthError answers with the token service's error shape.
func writeOAuthError(w http.ResponseWriter, status int, code, description string) {
	writeJSON(w, status, wire.OAuthError{Error: code, Description: description})
}

// knows reports whether the credentials are the accepted ones; without a
// configured client id, any are.
func (ts *tokenService) knows(clientID, secret string) bool {
	if ts.clientID == "" {
		return true
	}
	idOK := subtle.ConstantTimeCompare([]byte(clientID), []byte(ts.clientID))
	secretOK := subtle.ConstantTimeCompare([]byte(secret), []byte(ts.clientSecret))
	return idOK&secretOK == 1
}

// admit counts a token request by client at now and reports whether it may
// be answered: a request over wire.TokenBudget in the last hour, for any
// audiences, bans the client (the service bans clients, not audiences), and
// a banned client is refused from then on.
func (ts *tokenService) admit(client string, now time.Time) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.banned {
		return false
	}
	if ts.requests == nil {
		ts.requests = map[string][]time.Time{}
	}
	recent := ts.requests[client][:0]
	for _, at := range ts.requests[client] {
		if now.Sub(at) < time.Hour {
			recent = append(recent, at)
		}
	}
	ts.requests[client] = append(recent, now)
	ts.banned = len(ts.requests[client]) > wire.TokenBudget
	return !ts.banned
}

// issue makes a token for audience, living wire.TokenLifetime from now.
func (ts *tokenService) issue(audience string, now time.Time) string {
	var b [24]byte
	rand.Read(b[:])
	token := "sbx_" + hex.EncodeToString(b[:])
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.tokens == nil {
		ts.tokens = map[string]issuedToken{}
	}
	ts.tokens[token] = issuedToken{audience: audience, expires: now.Add(wire.TokenLifetime)}
	return token
}

// count notes a token issued to client.
func (ts *tokenService) count(client string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.issued == nil {
		ts.issued = map[string]int{}
	}
	ts.issued[client]++
}

// refuseBearer answers r, and reports true, when a route of access needs
// an access token that r lacks: the issuing service's gateway answers as
// writeBearerRefusal says; Moments sits behind another gateway, whose
// refusals are 401 whatever the token's trouble.
func (s *Server) refuseBearer(w http.ResponseWriter, r *http.Request, acc access) bool {
	switch acc {
	case keyAndBearer:
		if b := s.bearerOf(r, s.audience); b != bearerValid {
			writeBearerRefusal(w, b)
			return true
		}
	case bearerOnly:
		if s.bearerOf(r, s.momentsAudience) != bearerValid {
			writeGatewayError(w, http.StatusUnauthorized)
			return true
		}
	}
	return false
}

// bearerOf says what r's access token is for audience.
func (s *Server) bearerOf(r *http.Request, audience string) bearer {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return bearerMissing
	}
	return s.tokenState(token, audience)
}

// tokenState says what token is for audience.
func (s *Server) tokenState(token, audience string) bearer {
	now := s.now()
	s.auth.mu.Lock()
	defer s.auth.mu.Unlock()
	t, ok := s.auth.tokens[token]
	switch {
	case !ok || token == "" || t.audience != audience:
		return bearerMissing
	case t.revoked || !now.Before(t.expires):
		return bearerDenied
	}
	return bearerValid
}

// writeBearerRefusal answers a request whose token the gateway refuses as
// production's does: 401 when there is none it knows, and its authorizer's
// 403 deny for one that expired or was revoked.
func writeBearerRefusal(w http.ResponseWriter, b bearer) {
	if b == bearerDenied {
		writeJSON(w, http.StatusForbidden, struct {
			Message string `json:"Message"`
		}{authorizerDeny})
		return
	}
	writeGatewayError(w, http.StatusUnauthorized)
}

// ValidToken reports whether token is an access token the Server issued for
// audience that has neither expired nor been revoked, for test servers
// that guard routes of their own with the Server's tokens.
func (s *Server) ValidToken(token, audience string) bool {
	return s.tokenState(token, audience) == bearerValid
}

// IssueToken returns a new access token for audience without a request,
// for tests that bring their own TokenSource. It does not count against
// the ban nor in TokensIssued.
func (s *Server) IssueToken(audience string) string {
	return s.auth.issue(audience, s.now())
}

// TokensIssued returns how many access tokens the token service issued to
// clientID.
func (s *Server) TokensIssued(clientID string) int {
	s.auth.mu.Lock()
	defer s.auth.mu.Unlock()
	return s.auth.issued[clientID]
}

// Banned reports whether a client asked for more tokens than the budget
// allows and got the ban.
func (s *Server) Banned() bool {
	s.auth.mu.Lock()
	defer s.auth.mu.Unlock()
	return s.auth.banned
}

// ExpireTokens makes every token issued so far expire now, as if a day had
// passed, to exercise renewal: the issuing service's protected routes then
// answer them with the gateway's 403 deny, as production's authorizer does.
func (s *Server) ExpireTokens() {
	now := s.now()
	s.auth.mu.Lock()
	defer s.auth.mu.Unlock()
	for token, t := range s.auth.tokens {
		t.expires = now
		s.auth.tokens[token] = t
	}
}

// RevokeTokens makes every token issued so far invalid, to exercise the
// client's renewal after a refusal: the issuing service's protected routes
// answer them with the gateway's 403 deny, Moments with 401.
func (s *Server) RevokeTokens() {
	s.auth.mu.Lock()
	defer s.auth.mu.Unlock()
	for token, t := range s.auth.tokens {
		t.revoked = true
		s.auth.tokens[token] = t
	}
}
