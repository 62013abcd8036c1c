package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Messages the backend writes. Those production is known to write (see
// poap-api-facts) are kept word for word; the rest are worded to name the
// field or the rule, led by the documented error code where there is one
// ([GUESS] the errors page lists the codes, not where a body carries them).
const (
	msgInvalidAddress   = "Address is not valid"
	msgNoToken          = "Address does not have token for this event"
	msgQRNotFound       = "Qr Claim not found"
	msgQRMissing        = "Please send qr_hash as querystring parameter"
	msgQRClaimed        = "QR Claim already claimed"
	msgQRExpired        = "QR Claim expired"
	msgAlreadyMinted    = "You already minted a POAP for this drop."
	msgInvalidSecret    = "Invalid secret"
	msgInvalidEditCode  = "Invalid edit code"
	msgEditCodeMissing  = "SECRET_CODE_MISSING: secret_code is required"
	msgEventNotFound    = "Event not found"
	msgLimitExceeded    = "LIMIT_EXCEEDED"
	msgDeliveryClaimed  = "Delivery already claimed"
	msgDeliveryNotFound = "Delivery not found"
)

// errorBody is the backend's error shape: {"statusCode","error","message"}.
type errorBody struct {
	StatusCode int    `json:"statusCode"`
	Error      string `json:"error"`
	Message    string `json:"message"`
}

// gatewayBody is the shape of errors the gateway writes before the backend
// is reached, such as a refused key.
type gatewayBody struct {
	Message string `json:"message"`
}

// apiError is a refusal a handler answers with the backend's error shape.
type apiError struct {
	status  int
	message string
}

func (e *apiError) Error() string { return e.message }

// badRequest returns a 400 refusal; message is a format for args.
func badRequest(message string, args ...any) error {
	return &apiError{http.StatusBadRequest, fmt.Sprintf(message, args...)}
}

// notFoundError returns a 404 refusal.
func notFoundError(message string) error {
	return &apiError{http.StatusNotFound, message}
}

// writeJSON writes v as the service does: JSON, HTML characters unescaped.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// writeError answers with the backend's error shape.
func writeError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, errorBody{StatusCode: status, Error: http.StatusText(status), Message: message})
}

// writeResult answers v with 200, or err in the backend's error shape: an
// *apiError with its status, anything else as a 500.
func writeResult(w http.ResponseWriter, v any, err error) {
	var refusal *apiError
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, v)
	case errors.As(err, &refusal):
		writeError(w, refusal.status, refusal.message)
	default:
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}

// writeGatewayError answers with the gateway's error shape, the status text
// as message; a 429 also says to come back in a second.
func writeGatewayError(w http.ResponseWriter, status int) {
	if status == http.StatusTooManyRequests {
		writeThrottled(w, time.Second)
		return
	}
	writeJSON(w, status, gatewayBody{Message: http.StatusText(status)})
}

// writeThrottled answers the gateway's 429, its Retry-After wait in whole
// seconds, rounded up and at least 1: the header counts seconds, and a
// client told 0 would come straight back.
func writeThrottled(w http.ResponseWriter, wait time.Duration) {
	secs := max(1, (wait+time.Second-1)/time.Second)
	w.Header().Set("Retry-After", strconv.FormatInt(int64(secs), 10))
	status := http.StatusTooManyRequests
	writeJSON(w, status, gatewayBody{Message: http.StatusText(status)})
}

// notFound answers a route the service does not have, worded as the
// backend's router words it.
func notFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotFound, "Route "+r.Method+":"+r.URL.Path+" not found")
}

// maxJSONBody bounds the JSON bodies the Server reads.
const maxJSONBody = 1 << 20

// readJSON decodes r's JSON body into v; the error is a 400 refusal.
func readJSON(r *http.Request, v any) error {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxJSONBody+1))
	switch {
	case err != nil:
		return badRequest("body could not be read")
	case len(b) > maxJSONBody:
		return badRequest("body must be at most %d bytes", maxJSONBody)
	case len(bytes.TrimSpace(b)) == 0:
		return badRequest("body must be a JSON object")
	}
	if err := json.Unmarshal(b, v); err != nil {
		return badRequest("body is not valid: %v", err)
	}
	return nil
}

// number is a JSON integer, or a string holding one, as the service's
// validator coerces it; Set says the field was given and not null.
type number struct {
	V   int64
	Set bool
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *number) UnmarshalJSON(b []byte) error {
	s := string(bytes.TrimSpace(b))
	if s == "null" {
		*n = number{}
		return nil
	}
	if unquoted, err := strconv.Unquote(s); err == nil {
		s = strings.TrimSpace(unquoted)
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("%.40s must be an integer", b)
	}
	*n = number{V: v, Set: true}
	return nil
}
