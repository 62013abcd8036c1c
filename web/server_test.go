package web

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/internal/testlog"
)

// fakePinger answers Ping with err, or blocks until ctx ends when block is set.
type fakePinger struct {
	err   error
	block bool
}

func (p fakePinger) Ping(ctx context.Context) error {
	if p.block {
		<-ctx.Done()
		return ctx.Err()
	}
	return p.err
}

// startServer serves s on 127.0.0.1 until the test ends and returns its base
// URL. The test fails if Serve does not return nil after cancellation.
func startServer(t *testing.T, s *Server) string {
	t.Helper()
	if err := s.Listen(); err != nil {
		t.Fatalf("Listen() = %v, want nil", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve() = %v, want nil", err)
		}
	})
	return "http://" + s.Addr()
}

// newTestServer returns a server on a free loopback port logging into log.
func newTestServer(t *testing.T, db Pinger, log *testlog.Buffer) (*Server, *Metrics) {
	t.Helper()
	m := NewMetrics()
	var lg *slog.Logger
	if log != nil {
		lg = log.Logger()
	}
	return NewServer("127.0.0.1:0", db, m, lg), m
}

// get fetches url and returns the status code and body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", url, err)
	}
	return resp.StatusCode, string(body)
}

type response struct {
	Status int
	Body   string
}

func TestServer_Healthz(t *testing.T) {
	s, _ := newTestServer(t, fakePinger{err: errors.New("down")}, nil)
	base := startServer(t, s)

	code, body := get(t, base+"/healthz")
	got := response{code, body}
	if diff := cmp.Diff(response{http.StatusOK, "ok\n"}, got); diff != "" {
		t.Errorf("GET /healthz mismatch (-want +got):\n%s", diff)
	}
}

func TestServer_Readyz(t *testing.T) {
	const secret = "postgres://bot:hunter2@db.internal:5432/poapbot"
	tests := []struct {
		name    string
		db      fakePinger
		timeout time.Duration
		want    response
	}{
		{"Ready", fakePinger{}, readyTimeout, response{http.StatusOK, "ready\n"}},
		{"PingFails", fakePinger{err: errors.New("dial " + secret + ": connection refused")}, readyTimeout,
			response{http.StatusServiceUnavailable, "not ready: database unavailable\n"}},
		{"PingTimesOut", fakePinger{block: true}, 50 * time.Millisecond,
			response{http.StatusServiceUnavailable, "not ready: database did not answer in time\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log testlog.Buffer
			s, _ := newTestServer(t, tt.db, &log)
			s.readyTimeout = tt.timeout
			base := startServer(t, s)

			code, body := get(t, base+"/readyz")
			if diff := cmp.Diff(tt.want, response{code, body}); diff != "" {
				t.Errorf("GET /readyz mismatch (-want +got):\n%s", diff)
			}
			if strings.Contains(body, "hunter2") || strings.Contains(body, "db.internal") {
				t.Errorf("GET /readyz body = %q, leaks the connection string", body)
			}
			if tt.db.err != nil && !strings.Contains(log.String(), "level=WARN msg=\"readiness check failed\"") {
				t.Errorf("log = %q, want a warn line for the failed check", log.String())
			}
		})
	}
}

func TestServer_Metrics(t *testing.T) {
	s, m := newTestServer(t, fakePinger{}, nil)
	base := startServer(t, s)
	m.ObserveCommand("discord", "claim", "ok")
	m.ObserveCommand("discord", "claim", "ok")
	m.ObserveRequest("claim_link", "200", 30*time.Millisecond)
	m.ObserveRequest("claim_link", "timeout", 40*time.Second)

	code, body := get(t, base+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics status = %d, want %d", code, http.StatusOK)
	}
	for _, want := range []string{
		`poapbot_commands_total{command="claim",outcome="ok",platform="discord"} 2`,
		`poapbot_poap_requests_total{operation="claim_link",status="200"} 1`,
		`poapbot_poap_requests_total{operation="claim_link",status="timeout"} 1`,
		`poapbot_poap_request_duration_seconds_bucket{operation="claim_link",le="0.05"} 1`,
		`poapbot_poap_request_duration_seconds_bucket{operation="claim_link",le="30"} 1`,
		`poapbot_poap_request_duration_seconds_count{operation="claim_link"} 2`,
		"go_goroutines ",
		"process_start_time_seconds ",
	} {
		if !hasLinePrefix(body, want) {
			t.Errorf("GET /metrics has no line starting %q", want)
		}
	}
}

// hasLinePrefix reports whether a line of text starts with prefix.
func hasLinePrefix(text, prefix string) bool {
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, prefix) {
			return true
		}
	}
	return false
}

func TestServer_Handle(t *testing.T) {
	var log testlog.Buffer
	s, _ := newTestServer(t, fakePinger{}, &log)
	s.Handle("GET /hello", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "hi")
	}))
	s.Handle("GET /boom/{nonce}", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("kaboom")
	}))
	base := startServer(t, s)

	t.Run("Route", func(t *testing.T) {
		code, body := get(t, base+"/hello?token=s3cret")
		if diff := cmp.Diff(response{http.StatusOK, "hi"}, response{code, body}); diff != "" {
			t.Errorf("GET /hello mismatch (-want +got):\n%s", diff)
		}
		logs := log.String()
		if !strings.Contains(logs, `msg="http request" method=GET route="GET /hello" status=200 bytes=2`) {
			t.Errorf("log = %q, want an access line for /hello", logs)
		}
		if strings.Contains(logs, "s3cret") {
			t.Errorf("log = %q, leaks the query string", logs)
		}
	})
	t.Run("Panic", func(t *testing.T) {
		code, body := get(t, base+"/boom/n0nce-s3cret")
		if diff := cmp.Diff(response{http.StatusInternalServerError, "internal server error\n"}, response{code, body}); diff != "" {
			t.Errorf("GET /boom mismatch (-want +got):\n%s", diff)
		}
		if !strings.Contains(log.String(), `level=ERROR msg="http handler panicked" method=GET route="GET /boom/{nonce}" panic=kaboom`) {
			t.Errorf("log = %q, want an error line for the panic", log.String())
		}
		if strings.Contains(log.String(), "n0nce-s3cret") {
			t.Errorf("log = %q, leaks the path", log.String())
		}
	})
	t.Run("NotFound", func(t *testing.T) {
		if code, _ := get(t, base+"/nope"); code != http.StatusNotFound {
			t.Errorf("GET /nope status = %d, want %d", code, http.StatusNotFound)
		}
	})
}

func TestServer_Listen(t *testing.T) {
	t.Run("PortInUse", func(t *testing.T) {
		busy, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer busy.Close()

		s := NewServer(busy.Addr().String(), fakePinger{}, NewMetrics(), nil)
		err = s.Listen()
		if !errors.Is(err, syscall.EADDRINUSE) {
			t.Fatalf("Listen() = %v, want %v", err, syscall.EADDRINUSE)
		}
		// The message is what an operator reads: it must name the variable
		// to change and the address that was taken.
		if msg := err.Error(); !strings.Contains(msg, "HTTP_ADDR") || !strings.Contains(msg, busy.Addr().String()) {
			t.Errorf("Listen() = %q, want it to name HTTP_ADDR and %s", msg, busy.Addr())
		}
		if err := s.Serve(context.Background()); !errors.Is(err, syscall.EADDRINUSE) {
			t.Errorf("Serve() = %v, want %v", err, syscall.EADDRINUSE)
		}
	})
	t.Run("Addr", func(t *testing.T) {
		s := NewServer("127.0.0.1:0", fakePinger{}, NewMetrics(), nil)
		if got := s.Addr(); got != "127.0.0.1:0" {
			t.Errorf("Addr() before Listen = %q, want %q", got, "127.0.0.1:0")
		}
		if err := s.Listen(); err != nil {
			t.Fatalf("Listen() = %v, want nil", err)
		}
		if err := s.Listen(); err != nil {
			t.Fatalf("second Listen() = %v, want nil", err)
		}
		if got := s.Addr(); strings.HasSuffix(got, ":0") {
			t.Errorf("Addr() after Listen = %q, want the bound port", got)
		}
		// Serving with a context already done releases the port at once.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := s.Serve(ctx); err != nil {
			t.Errorf("Serve(done ctx) = %v, want nil", err)
		}
	})
}

func TestServer_Serve(t *testing.T) {
	s, _ := newTestServer(t, fakePinger{}, nil)
	if err := s.Listen(); err != nil {
		t.Fatalf("Listen() = %v, want nil", err)
	}
	base := "http://" + s.Addr()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()

	if code, _ := get(t, base+"/healthz"); code != http.StatusOK {
		t.Fatalf("GET /healthz status = %d, want %d", code, http.StatusOK)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve() = %v, want nil", err)
		}
	case <-time.After(shutdownTimeout + time.Second):
		t.Fatal("Serve() did not return after its context was cancelled")
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Errorf("GET /healthz after shutdown succeeded, want a connection error")
	}
}

// TestServer_AccessLogNoNonce requests a verification page and its
// signature endpoint, live nonces in their paths, and a path no route
// matches: the access log names the routes, never the nonce.
func TestServer_AccessLogNoNonce(t *testing.T) {
	var log testlog.Buffer
	s, _ := newTestServer(t, fakePinger{}, &log)
	s.HandleVerification(&fakeVerifier{challenge: testChallenge()}, VerificationOptions{})
	base := startServer(t, s)

	get(t, base+core.VerificationPath+testNonce)
	resp, err := http.Post(base+core.VerificationPath+testNonce, "application/json", strings.NewReader(`{"signature":"`+testSig+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	get(t, base+"/verify-typo/"+testNonce)

	logs := log.String()
	for _, want := range []string{
		`msg="http request" method=GET route="GET /verify/{nonce}" status=`,
		`msg="http request" method=POST route="POST /verify/{nonce}" status=`,
		`msg="http request" method=GET route=unmatched status=404`,
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, testNonce) {
		t.Errorf("log holds the nonce:\n%s", logs)
	}
}
