package poap

import (
	"errors"
	"net/http"
	"strings"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/wire"
)

// secretOperations are the operations that file or change a secret-word or
// website claim.
var secretOperations = map[string]bool{wire.OpCreateSecretRequest: true, wire.OpEditSecretRequest: true}

// secretRefusal returns ErrSecretExists or ErrClaimNameTaken when e is a
// secret request refused for one of those reasons, else nil. The service
// documents neither refusal's words: a claim name refused names the claim
// name ("claim_name", "claim name", "name") and says it is taken; a drop
// that has a claim already is said to "already have" one.
func (e *APIError) secretRefusal() error {
	if !secretOperations[e.Operation] {
		return nil
	}
	msg := strings.ToLower(e.Message)
	taken := strings.Contains(msg, "already taken") || strings.Contains(msg, "already exists") ||
		strings.Contains(msg, "in use") || strings.Contains(msg, "is taken")
	switch {
	case strings.Contains(msg, "name") && taken:
		return ErrClaimNameTaken
	case strings.Contains(msg, "already has") || strings.Contains(msg, "already have"):
		return ErrSecretExists
	}
	return nil
}

// quotedName returns the first double-quoted word of the message of the
// *APIError in err that could be a claim name (letters, digits, - and _),
// or "".
func quotedName(err error) string {
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		return ""
	}
	parts := strings.Split(apiErr.Message, `"`)
	for i := 1; i < len(parts)-1; i += 2 {
		name := parts[i]
		if name != "" && len(name) <= core.MaxWebsiteName &&
			strings.Trim(strings.ToLower(name), "abcdefghijklmnopqrstuvwxyz0123456789-_") == "" {
			return name
		}
	}
	return ""
}

// refusal returns err, when it is a refusal of the service, as a
// *core.IssuerRefusal carrying its status and words, or nil when err is
// not one: a 4xx answer but 401 and 403 (the credentials) and 429 (slow
// down), which have words of their own. Callers first translate the
// refusals they know (a 404 that means an unknown drop, say); what is left
// is a refusal all the same.
func refusal(err error) *core.IssuerRefusal {
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status < 400 || apiErr.Status > 499 {
		return nil
	}
	switch apiErr.Status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusTooManyRequests:
		return nil
	}
	return core.NewIssuerRefusal(apiErr.Status, apiErr.Message, momentsOperations[apiErr.Operation])
}

// momentsOperations are the operations of the Moments service.
var momentsOperations = map[string]bool{
	wire.OpMediaUploadURL: true, wire.OpMediaUpload: true, wire.OpMediaStatus: true,
	wire.OpCreateMoment: true, wire.OpMomentsQuery: true,
}
