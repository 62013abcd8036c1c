package poap

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/poapbot/poapbot/poap/internal/transport"
	"github.com/poapbot/poapbot/poap/wire"
)

// Sentinel errors, matched with errors.Is on what the client returns.
var (
	// ErrNotFound means the thing asked for does not exist: the service
	// answered 404 (for ScanEvent, the address does not hold a POAP of the
	// event), or 400 "Qr Claim not found" for an unknown mint link, or
	// INVALID_SECRET for an unknown website claim name.
	ErrNotFound = errors.New("not found")
	// ErrUnauthorized means the service answered 401 or 403: the API key
	// (or access token) was refused, or is not active yet.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrRateLimited means the service answered 429; APIError.RetryAfter
	// says how long to wait when the service said so.
	ErrRateLimited = errors.New("rate limited")
	// ErrInvalidAddress means the service refused the address, ENS name or
	// e-mail with a 400.
	ErrInvalidAddress = errors.New("invalid address")
	// ErrUnavailable means the service failed (5xx), timed out, could not
	// be reached or sent a response that does not decode.
	ErrUnavailable = errors.New("service unavailable")
	// ErrQRClaimed means the mint link was used already: a 400 saying
	// "QR Claim already claimed" (formerly "QR is already Claimed"), or a
	// status read showing it claimed.
	ErrQRClaimed = errors.New("mint link already claimed")
	// ErrQRExpired means the mint link is no longer active: a 400 saying
	// "QR Claim expired", or a status read showing it inactive.
	ErrQRExpired = errors.New("mint link expired")
	// ErrAlreadyMinted means the address or e-mail already holds a POAP of
	// the drop: a 400 saying "You already minted a POAP for this drop"
	// (formerly "... already claimed a code for this event"), or "Delivery
	// already claimed" from a delivery claim.
	ErrAlreadyMinted = errors.New("already minted this drop")
	// ErrInvalidEditCode means the drop's 6-digit edit code (secret_code)
	// was refused: a 400 INVALID_SECRET_CODE, SECRET_CODE_MISSING or
	// "Invalid edit code", or a code that is not 6 digits, refused before
	// sending.
	ErrInvalidEditCode = errors.New("invalid edit code")
	// ErrLimitExceeded means a website claim has no mints left (400
	// LIMIT_EXCEEDED).
	ErrLimitExceeded = errors.New("no mints left")
	// ErrEventExpired means the drop can no longer be minted (400
	// EVENT_EXPIRED, or "expired" from a website claim).
	ErrEventExpired = errors.New("drop expired")
	// ErrTokenBudget means another access-token request now could exceed
	// the service's limit of 4 an hour, which earns a ban; none was sent.
	// The TokenSource returns it (poap/auth's Tokens does), the client
	// passes it on.
	ErrTokenBudget = errors.New("access-token budget spent")
	// ErrNotSent means the call never reached the service, so the service
	// did nothing: no access token could be had, the request could not be
	// built or was refused by local checks (*FieldError), the context ended
	// before it left, or the service refused its access token (401, or
	// the gateway's 403) before acting and no other could be had. It comes
	// with the error that says why. A write that fails without it may have
	// happened.
	ErrNotSent = errors.New("request not sent")
	// ErrMediaInvalid means Moments refused an uploaded media file (its
	// content does not match its type, or it is not processed).
	ErrMediaInvalid = errors.New("media invalid")
	// ErrMediaTimeout means an uploaded file was still processing at the
	// deadline of WaitForMedia; it comes with ErrUnavailable.
	ErrMediaTimeout = errors.New("media still processing")
	// ErrRequestPending means the service refused a distribution request
	// (RequestMintLinks, CreateSecretRequest) because one of the same
	// method is still pending review: only one may be. The service
	// documents neither the status nor a code of this refusal, so the
	// client does not read its wording: a 400 or 409 that means nothing
	// else, while GET /redeem-requests/active/count shows a request of the
	// method pending, is this refusal.
	ErrRequestPending = errors.New("a request of this method is already pending review")
	// ErrNotListed means a delivery claim named an address that is not on
	// the delivery's list: a 400 of POST /actions/claim-delivery-v2 saying
	// the address is "not on the delivery"'s list, "not in the delivery",
	// or "not allowed to claim this delivery". The service documents
	// neither the code nor the words of this refusal; those are the
	// sandbox's and their likely variants.
	ErrNotListed = errors.New("address not on the delivery list")
	// ErrSlugTaken means POST /deliveries refused a slug another delivery
	// has: a 400 or 409 whose message says the slug is "already taken",
	// "already exists" or "in use", or one that means nothing else while
	// GET /delivery/slug/{slug} finds a delivery (see CreateDelivery).
	ErrSlugTaken = errors.New("delivery slug taken")
	// ErrSecretExists means POST /secret-requests refused a request
	// because the drop has a claim of that type (website, word) already:
	// a 400 or 409 saying the drop "already has" one. The service
	// documents neither the code nor the words; those are the sandbox's
	// and their likely variants (see secretRefusal).
	ErrSecretExists = errors.New("the drop has a claim of that type already")
	// ErrClaimNameTaken means POST or PUT /secret-requests refused a
	// claim name another claim has: a 400 or 409 whose message names the
	// claim name and says it is "already taken", "already exists" or "in
	// use".
	ErrClaimNameTaken = errors.New("claim name taken")
	// ErrMediaChanged means an upload's reader held fewer or more bytes
	// than the size given: the file changed while it was uploading.
	ErrMediaChanged = errors.New("media changed while uploading")
)

// addressOperations are the operations whose only input the service can
// refuse with a 400 is the address; any 400 from them means ErrInvalidAddress.
var addressOperations = map[string]bool{wire.OpScan: true, wire.OpScanEvent: true}

// APIError is a non-2xx answer of the service. It matches the sentinels with
// errors.Is according to its status and message (see Is).
type APIError struct {
	// Operation is the client's name of the call (wire.OpScan...).
	Operation string
	// Status is the HTTP status code.
	Status int
	// Code is the body's "code" or "error" field ("Not Found",
	// "INVALID_SECRET_CODE"), empty for gateway and plain-text bodies.
	Code string
	// Message is the body's "message" (or gateway "Message"), or the text of
	// a non-JSON body, shortened to 200 characters.
	Message string
	// RetryAfter is the wait the Retry-After header asked for, or zero.
	RetryAfter time.Duration
}

// Error describes the failure in one line, prefixed by the operation.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "poap: %s: status %d", e.Operation, e.Status)
	if e.Code != "" {
		fmt.Fprintf(&b, " (%s)", transport.Truncate(e.Code, transport.MaxMessage))
	}
	if e.Message != "" {
		b.WriteString(": " + transport.Truncate(e.Message, transport.MaxMessage))
	}
	return b.String()
}

// Is reports whether e matches target: ErrNotFound for 404, ErrUnauthorized
// for 401 and 403, ErrRateLimited for 429, ErrUnavailable for 5xx, for a
// 400 the one sentinel its message or code means (see badRequest), and
// ErrSlugTaken for a 409 of POST /deliveries, ErrSecretExists and
// ErrClaimNameTaken for a 409 of /secret-requests, that say so.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.Status == http.StatusNotFound || e.badRequest() == ErrNotFound
	case ErrUnauthorized:
		return e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden
	case ErrRateLimited:
		return e.Status == http.StatusTooManyRequests
	case ErrUnavailable:
		return e.Status >= 500
	case ErrSlugTaken:
		return e.badRequest() == target || e.Status == http.StatusConflict && e.slugTaken()
	case ErrSecretExists, ErrClaimNameTaken:
		return (e.Status == http.StatusBadRequest || e.Status == http.StatusConflict) && e.secretRefusal() == target
	case ErrInvalidAddress, ErrInvalidEditCode, ErrQRClaimed, ErrQRExpired,
		ErrAlreadyMinted, ErrLimitExceeded, ErrEventExpired, ErrNotListed:
		return e.badRequest() == target
	}
	return false
}

// mintOperations read or use a mint link, where "expired" means the link.
var mintOperations = map[string]bool{wire.OpMint: true, wire.OpClaimStatus: true}

// badRequest returns the sentinel a 400 answer means, or nil. The service
// words its refusals in the message (sometimes as a code such as
// INVALID_SECRET_CODE, sometimes as a sentence that changed over the years),
// so the checks go from the most specific wording to the least; the order
// matters, since "Email already claimed a code for this event" also contains
// "already claimed".
func (e *APIError) badRequest() error {
	if e.Status != http.StatusBadRequest {
		return nil
	}
	msg := strings.ToLower(e.Message)
	switch {
	case strings.Contains(msg, "address is not valid"):
		return ErrInvalidAddress
	case e.Operation == wire.OpClaimDelivery && notListed(msg):
		return ErrNotListed
	case e.slugTaken():
		return ErrSlugTaken
	case e.secretRefusal() != nil:
		return e.secretRefusal()
	case e.mentions("INVALID_SECRET_CODE") || e.mentions("SECRET_CODE_MISSING") ||
		strings.Contains(msg, "invalid edit code") || strings.Contains(msg, "invalid secret code"):
		return ErrInvalidEditCode
	case strings.Contains(msg, "already minted") || strings.Contains(msg, "claimed a code for this event") ||
		e.Operation == wire.OpClaimDelivery && strings.Contains(msg, "already claimed"):
		return ErrAlreadyMinted
	case strings.Contains(msg, "already claimed"):
		return ErrQRClaimed
	case strings.Contains(msg, "qr claim expired"):
		return ErrQRExpired
	case e.mentions("EVENT_EXPIRED") || e.Operation == wire.OpWebsiteClaim && strings.Contains(msg, "expired"):
		return ErrEventExpired
	case mintOperations[e.Operation] && strings.Contains(msg, "expired"):
		return ErrQRExpired
	case e.mentions("LIMIT_EXCEEDED") || strings.Contains(msg, "limit exceeded"):
		return ErrLimitExceeded
	case strings.Contains(msg, "claim not found") || e.Operation == wire.OpWebsiteClaim && e.mentions("INVALID_SECRET"):
		return ErrNotFound
	case addressOperations[e.Operation]:
		return ErrInvalidAddress
	}
	return nil
}

// notListed reports whether msg, a delivery claim's refusal in lower case,
// says the address is not on the delivery's list.
func notListed(msg string) bool {
	for _, words := range []string{"not on the delivery", "not in the delivery", "not allowed to claim this delivery",
		"not on the list", "not in the list"} {
		if strings.Contains(msg, words) {
			return true
		}
	}
	return false
}

// slugTaken reports whether e is POST /deliveries refusing a slug in use.
func (e *APIError) slugTaken() bool {
	msg := strings.ToLower(e.Message)
	if e.Operation != wire.OpCreateDelivery || !strings.Contains(msg, "slug") {
		return false
	}
	return strings.Contains(msg, "already taken") || strings.Contains(msg, "already exists") ||
		strings.Contains(msg, "in use") || strings.Contains(msg, "is taken")
}

// mentions reports whether the code or the message holds code as a whole
// word, so INVALID_SECRET does not match INVALID_SECRET_CODE.
func (e *APIError) mentions(code string) bool {
	for _, s := range []string{e.Code, e.Message} {
		for i := strings.Index(s, code); i >= 0; {
			end := i + len(code)
			if (i == 0 || !isWordByte(s[i-1])) && (end == len(s) || !isWordByte(s[end])) {
				return true
			}
			next := strings.Index(s[end:], code)
			if next < 0 {
				break
			}
			i = end + next
		}
	}
	return false
}

// isWordByte reports whether b can be part of an error code.
func isWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'A' <= b && b <= 'Z' || 'a' <= b && b <= 'z'
}

// errorJSON holds the error bodies seen in production: the backend's
// {"statusCode","error","message"} and the gateway's {"message"} or
// {"Message"}.
type errorJSON struct {
	StatusCode     int    `json:"statusCode"`
	Reason         string `json:"error"`
	Code           string `json:"code"`
	Message        string `json:"message"`
	GatewayMessage string `json:"Message"`
	// Errors is GraphQL's (Compass) list of errors.
	Errors []wire.GraphQLError `json:"errors"`
}

// message returns the first message the body carries.
func (b errorJSON) message() string {
	if m := cmp.Or(b.Message, b.GatewayMessage); m != "" || len(b.Errors) == 0 {
		return m
	}
	return b.Errors[0].Message
}

// apiError builds the APIError for a non-2xx response. The key and the
// request's secrets are blanked out of the message first, in case a server
// echoes the request back.
func (c *Client) apiError(op string, res transport.Response, secrets []string) *APIError {
	e := &APIError{
		Operation:  op,
		Status:     res.Status,
		RetryAfter: transport.RetryAfter(res.Header.Get("Retry-After"), time.Now()),
	}
	var body errorJSON
	if err := json.Unmarshal(res.Body, &body); err == nil {
		e.Code = cmp.Or(body.Code, body.Reason)
		e.Message = body.message()
	} else {
		e.Message = transport.BodyText(res.Body)
	}
	if !c.key.IsZero() {
		secrets = append(secrets, c.key.Reveal())
	}
	for _, s := range secrets {
		if s = strings.TrimSpace(s); s != "" {
			e.Message = strings.ReplaceAll(e.Message, s, "[redacted]")
			e.Code = strings.ReplaceAll(e.Code, s, "[redacted]")
		}
	}
	e.Code = transport.Truncate(e.Code, transport.MaxMessage)
	e.Message = transport.Truncate(e.Message, transport.MaxMessage)
	return e
}
