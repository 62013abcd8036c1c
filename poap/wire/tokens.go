package wire

import "time"

// Limits of the token service, as production documents them.
const (
	// TokenLifetime is how long an access token lives.
	TokenLifetime = 24 * time.Hour
	// TokenBudget is how many token requests a client may make in a
	// rolling hour, for all audiences together; the next one earns the
	// client a ban.
	TokenBudget = 4
)

// Values of the token service's fields.
const (
	// GrantClientCredentials is the grant_type of a TokenRequest.
	GrantClientCredentials = "client_credentials"
	// TokenTypeBearer is the token_type of a TokenResponse.
	TokenTypeBearer = "Bearer"
)

// TokenRequest is the body of POST /oauth/token (OpAccessToken): the OAuth
// client-credentials grant of a token for Audience.
type TokenRequest struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	Audience     string `json:"audience"`
	GrantType    string `json:"grant_type"`
}

// TokenResponse is the token service's answer to a TokenRequest.
type TokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	// ExpiresIn is the token's life in seconds.
	ExpiresIn float64 `json:"expires_in"`
	Scope     string  `json:"scope"`
}

// OAuthError is the token service's error body.
type OAuthError struct {
	// Error is the OAuth error code: access_denied, invalid_client...
	Error       string `json:"error"`
	Description string `json:"error_description"`
}
