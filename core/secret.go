package core

import (
	"encoding/json"
	"log/slog"
)

// Secret holds a credential (API key, client secret, bot token, bearer token,
// edit code). Every way of printing it redacts it; Reveal is the one way to
// read it, and is used only where the value is sent to its service.
type Secret string

const redacted = "[redacted]"

// Reveal returns the secret's value.
func (s Secret) Reveal() string { return string(s) }

// IsZero reports whether the secret is empty.
func (s Secret) IsZero() bool { return s == "" }

// String redacts the secret.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString redacts the secret for %#v.
func (s Secret) GoString() string { return s.String() }

// LogValue redacts the secret in slog output.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON redacts the secret in JSON output.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// MarshalText redacts the secret in text encodings.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Decode lets envconfig fill a Secret from the environment.
func (s *Secret) Decode(value string) error {
	*s = Secret(value)
	return nil
}

// TokenClient names a client of a token service, whose access tokens are
// stored for restarts and replicas: a token belongs to its client and its
// audience, and the service's hourly budget, and its ban, count per client
// across audiences. Two clients differ when either field does, so a sandbox's
// token service never shares a token or a budget with production's.
type TokenClient struct {
	// Service is the token service's base address (POAP_AUTH_URL).
	Service string
	// ID is the client id (POAP_CLIENT_ID); not a secret.
	ID string
}
