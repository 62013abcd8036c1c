// Package web is the bot's HTTP side: liveness and readiness probes, the
// Prometheus metrics endpoint, and a mux on which the wallet-verification
// page and the Telegram webhook are mounted. It serves on HTTP_ADDR, and the
// operators' endpoints (probes and metrics, nothing members reach) also on
// METRICS_ADDR when that is set.
package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

const (
	// readyTimeout bounds one readiness probe: an orchestrator probing every
	// few seconds must get an answer before its own timeout.
	readyTimeout = 2 * time.Second
	// shutdownTimeout bounds the graceful stop: in-flight requests get this
	// long to finish before connections are closed.
	shutdownTimeout = 5 * time.Second
)

// Pinger reports whether a dependency the bot needs to serve (the database)
// answers. Ping returns a non-nil error when it does not, or when ctx ends
// first.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Server is the bot's HTTP server. Create it with NewServer, add routes with
// Handle, bind with Listen, then run Serve until its context ends.
type Server struct {
	addr         string
	variable     string // the configuration variable of addr, for errors
	db           Pinger
	log          *slog.Logger
	mux          *http.ServeMux
	srv          *http.Server
	readyTimeout time.Duration

	mu sync.Mutex
	ln net.Listener
}

// NewServer returns the public Server that will listen on addr
// (HTTP_ADDR), with GET /healthz, GET /readyz (which pings db) and, when
// metrics is not nil, GET /metrics (metrics' registry) already routed.
// Pass a nil metrics when they are served on a listener of their own
// (NewMetricsServer): /metrics then answers 404 here. db must not be nil;
// a nil log discards log lines.
func NewServer(addr string, db Pinger, metrics *Metrics, log *slog.Logger) *Server {
	s := newServer("HTTP_ADDR", addr, db, log)
	if metrics != nil {
		s.handleMetrics(metrics)
	}
	return s
}

// NewMetricsServer returns the operators' Server that will listen on addr
// (METRICS_ADDR): GET /healthz, GET /readyz and GET /metrics, and nothing
// else is ever routed on it. db and metrics must not be nil; a nil log
// discards log lines.
func NewMetricsServer(addr string, db Pinger, metrics *Metrics, log *slog.Logger) *Server {
	s := newServer("METRICS_ADDR", addr, db, log)
	s.handleMetrics(metrics)
	return s
}

// newServer returns a Server on addr, named variable in its errors, with
// the probes routed.
func newServer(variable, addr string, db Pinger, log *slog.Logger) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		addr:         addr,
		variable:     variable,
		db:           db,
		log:          log,
		mux:          http.NewServeMux(),
		readyTimeout: readyTimeout,
	}
	s.mux.HandleFunc("GET /healthz", s.healthz)
	s.mux.HandleFunc("GET /readyz", s.readyz)
	s.srv = &http.Server{
		Handler:           s.recoverPanics(s.accessLog(s.mux)),
		ReadHeaderTimeout: 5 * time.Second,
		// Webhook bodies and verification forms are small; 30 s is generous
		// for a slow client and still stops a slow-loris body.
		ReadTimeout:    30 * time.Second,
		WriteTimeout:   30 * time.Second,
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	return s
}

// handleMetrics routes GET /metrics to the registry of metrics.
func (s *Server) handleMetrics(metrics *Metrics) {
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(metrics.Registry(), promhttp.HandlerOpts{
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}))
}

// Handle routes pattern (http.ServeMux syntax, e.g. "POST /webhook/telegram")
// to h, behind the same access log and panic recovery as the built-in routes.
// The access log records pattern, never the request's path or query, so a
// wildcard segment ("/verify/{nonce}") may carry a secret; a literal
// segment of pattern may not.
// It may be called before or after Serve starts, and panics, as
// http.ServeMux.Handle does, when pattern is invalid or already taken.
func (s *Server) Handle(pattern string, h http.Handler) {
	s.mux.Handle(pattern, h)
}

// Listen binds the address, so a port already in use is reported before the
// rest of the bot starts. The error names the address's variable (HTTP_ADDR
// or METRICS_ADDR) and the address and wraps
// the system error (e.g. syscall.EADDRINUSE). Calling it again is a no-op.
func (s *Server) Listen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln != nil {
		return nil
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("listen on %s %q: %w", s.variable, s.addr, err)
	}
	s.ln = ln
	return nil
}

// Addr returns the bound address (with the real port when the address
// asked for port 0), or the configured address before Listen.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return s.addr
	}
	return s.ln.Addr().String()
}

// Serve serves HTTP until ctx ends, then shuts down gracefully: it stops
// accepting, lets in-flight requests finish for up to 5 s, closes the rest.
// It calls Listen first if that has not been done. It returns nil after a
// clean stop, the Listen error, or the error that stopped serving early.
// A Server serves once.
func (s *Server) Serve(ctx context.Context) error {
	if err := s.Listen(); err != nil {
		return err
	}
	s.mu.Lock()
	ln := s.ln
	s.mu.Unlock()

	s.log.Info("http server listening", "addr", ln.Addr().String(), "variable", s.variable)
	errc := make(chan error, 1)
	go func() { errc <- s.srv.Serve(ln) }()

	select {
	case err := <-errc:
		return fmt.Errorf("serve http on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}

	// The serving context is already done; shutdown needs a fresh deadline.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	err := s.srv.Shutdown(sctx)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		s.log.Warn("http server stopped with error", "err", serr)
	}
	if err != nil {
		s.srv.Close()
		return fmt.Errorf("shut down http server: %w", err)
	}
	s.log.Info("http server stopped")
	return nil
}

// healthz answers liveness: the process runs and serves HTTP. It checks no
// dependency, so a database outage never gets the process restarted.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeText(w, http.StatusOK, "ok")
}

// readyz answers readiness: 200 when the database answers within
// readyTimeout, 503 otherwise. The body carries only a short reason; the
// error, which may name hosts or driver internals, goes to the log.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), s.readyTimeout)
	defer cancel()

	// Ping runs in its own goroutine so the probe's deadline holds even for
	// a Pinger that ignores its context.
	errc := make(chan error, 1)
	go func() { errc <- s.db.Ping(ctx) }()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err == nil {
		writeText(w, http.StatusOK, "ready")
		return
	}
	reason := "database unavailable"
	if errors.Is(err, context.DeadlineExceeded) {
		reason = "database did not answer in time"
	}
	s.log.Warn("readiness check failed", "err", err)
	writeText(w, http.StatusServiceUnavailable, "not ready: "+reason)
}

// writeText writes a short plain-text body that no cache keeps.
func writeText(w http.ResponseWriter, code int, body string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	fmt.Fprintln(w, body)
}
