package web

import (
	"errors"
	"net/http"
	"runtime/debug"
	"time"
)

// statusWriter remembers the status code and the size of the body a handler
// wrote, for the access log and for panic recovery.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach Flush, deadlines and the like on
// the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter {
	return w.ResponseWriter
}

// accessLog logs one debug line per request. It logs the route the request
// matched, never its path or query: paths carry live verification nonces
// (/verify/<nonce>), and queries may carry tokens.
func (s *Server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw, ok := w.(*statusWriter)
		if !ok {
			sw = &statusWriter{ResponseWriter: w}
		}
		next.ServeHTTP(sw, r)
		status := sw.status
		if status == 0 {
			status = http.StatusOK
		}
		s.log.DebugContext(r.Context(), "http request",
			"method", r.Method,
			"route", route(r),
			"status", status,
			"bytes", sw.bytes,
			"duration", time.Since(start),
		)
	})
}

// route names the pattern r matched, such as "GET /verify/{nonce}", for log
// lines: the mux sets r.Pattern on the request it routes, and a handler
// with a mux of its own (the verification page) refines it. A request no
// pattern matched is "unmatched": its path, which may be a mistyped link
// holding a nonce, is not logged.
func route(r *http.Request) string {
	if r.Pattern == "" {
		return "unmatched"
	}
	return r.Pattern
}

// recoverPanics turns a panicking handler into a 500 and a log line with the
// stack, so one bad request never takes the bot down. http.ErrAbortHandler
// is re-raised: it is how a handler asks net/http to drop the connection.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(v)
			}
			s.log.ErrorContext(r.Context(), "http handler panicked",
				"method", r.Method,
				"route", route(r),
				"panic", v,
				"stack", string(debug.Stack()),
			)
			if sw.status == 0 {
				http.Error(sw, "internal server error", http.StatusInternalServerError)
			}
		}()
		next.ServeHTTP(sw, r)
	})
}
