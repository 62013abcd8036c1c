package sandbox

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

// Messages the backend writes.
const (
	msgInvalidAddress = "Address is not valid"
	msgNoToken        = "Address does not have token for this event"
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

// writeGatewayError answers with the gateway's error shape, the status text
// as message; a 429 also says when to come back.
func writeGatewayError(w http.ResponseWriter, status int) {
	if status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, status, gatewayBody{Message: http.StatusText(status)})
}

// notFound answers a route the service does not have, worded as the
// backend's router words it.
func notFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotFound, "Route "+r.Method+":"+r.URL.Path+" not found")
}
