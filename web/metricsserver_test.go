package web

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
)

// TestMetricsServer serves the public server without its metrics and the
// operators' server beside it, as with METRICS_ADDR set: /metrics answers
// only on the operators' listener, the probes on both, and what is
// mounted on the public server (a webhook, the verification page) never
// on the operators' one.
func TestMetricsServer(t *testing.T) {
	m := NewMetrics()
	m.ObserveCommand("telegram", "link", "ok")
	public := NewServer("127.0.0.1:0", fakePinger{}, nil, nil)
	public.Handle("POST /webhook/telegram", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	ops := NewMetricsServer("127.0.0.1:0", fakePinger{}, m, nil)
	publicURL, opsURL := startServer(t, public), startServer(t, ops)

	const line = `poapbot_commands_total{command="link",outcome="ok",platform="telegram"} 1`
	if code, body := get(t, opsURL+"/metrics"); code != http.StatusOK || !hasLinePrefix(body, line) {
		t.Errorf("GET /metrics on METRICS_ADDR = %d, has %q: %t; want 200 with it", code, line, hasLinePrefix(body, line))
	}
	if code, body := get(t, publicURL+"/metrics"); code != http.StatusNotFound || strings.Contains(body, "poapbot_") {
		t.Errorf("GET /metrics on HTTP_ADDR = %d %.200q, want 404 without metrics", code, body)
	}
	for _, base := range []string{publicURL, opsURL} {
		for path, want := range map[string]string{"/healthz": "ok\n", "/readyz": "ready\n"} {
			if code, body := get(t, base+path); code != http.StatusOK || body != want {
				t.Errorf("GET %s%s = %d %q, want 200 %q", base, path, code, body, want)
			}
		}
	}
	resp, err := http.Post(opsURL+"/webhook/telegram", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST /webhook/telegram on METRICS_ADDR = %d, want 404", resp.StatusCode)
	}
}

// TestMetricsServer_PortInUse: the operator reads which variable to
// change.
func TestMetricsServer_PortInUse(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	err = NewMetricsServer(busy.Addr().String(), fakePinger{}, NewMetrics(), nil).Listen()
	if !errors.Is(err, syscall.EADDRINUSE) || !strings.Contains(err.Error(), "METRICS_ADDR") {
		t.Errorf("Listen() = %v, want EADDRINUSE naming METRICS_ADDR", err)
	}
}
