package main

import (
	"net/http"
	"strings"
	"testing"
)

func TestConfig_ListenAddrs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                  string
		httpAddr, metrics     string
		console               bool
		wantHTTP, wantMetrics string
	}{
		{"Defaults", "", "", false, ":8080", ""},
		// Under -console without HTTP_ADDR the page and probes stay on
		// loopback; an explicit HTTP_ADDR is honoured.
		{"ConsoleDefault", "", "", true, "127.0.0.1:8080", ""},
		{"ConsoleExplicit", ":8080", "", true, ":8080", ""},
		{"ConsoleAllInterfaces", "0.0.0.0:9000", "", true, "0.0.0.0:9000", ""},
		// METRICS_ADDR without a host is loopback; a host given is kept.
		{"MetricsPortOnly", "", ":9090", false, ":8080", "127.0.0.1:9090"},
		{"MetricsHost", "", "0.0.0.0:9090", false, ":8080", "0.0.0.0:9090"},
		{"MetricsIPv6", "", "[::]:9090", false, ":8080", "[::]:9090"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Config{HTTPAddr: tt.httpAddr, MetricsAddr: tt.metrics}
			gotHTTP, gotMetrics := c.listenAddrs(tt.console)
			if gotHTTP != tt.wantHTTP || gotMetrics != tt.wantMetrics {
				t.Errorf("listenAddrs(%t) = %q, %q; want %q, %q", tt.console, gotHTTP, gotMetrics, tt.wantHTTP, tt.wantMetrics)
			}
		})
	}
}

func TestSameListener(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want bool
	}{
		{":9090", "127.0.0.1:9090", true},
		{"0.0.0.0:9090", "10.0.0.5:9090", true},
		{"[::]:9090", "127.0.0.1:9090", true},
		{"127.0.0.1:9090", "127.0.0.1:9090", true},
		{"LOCALHOST:9090", "localhost:9090", true},
		{"127.0.0.1:9090", "10.0.0.5:9090", false},
		{":8080", "127.0.0.1:9090", false},
	}
	for _, tt := range tests {
		if got := sameListener(tt.a, tt.b); got != tt.want {
			t.Errorf("sameListener(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestLoadConfig_HTTPAddrUnset: only an unset HTTP_ADDR takes the
// default (which -console narrows to loopback); set empty, it is refused.
func TestLoadConfig_HTTPAddrUnset(t *testing.T) {
	t.Parallel()
	c, err := configFrom(mapLookup(nil))
	if err != nil || c.HTTPAddr != "" {
		t.Fatalf("LoadConfig() without HTTP_ADDR = %q, %v; want \"\" (the default, chosen at start)", c.HTTPAddr, err)
	}
	if got, _ := c.listenAddrs(true); got != consoleHTTPAddr {
		t.Errorf("listen address under -console = %q, want %q", got, consoleHTTPAddr)
	}
}

// TestRun_ListenerConfiguration runs run, which reads the process
// environment: it and its subtests stay sequential (cleanEnv).
func TestRun_ListenerConfiguration(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"EmptyHTTPAddr", map[string]string{"HTTP_ADDR": ""}, "HTTP_ADDR must not be empty"},
		{"MetricsNoPort", map[string]string{"METRICS_ADDR": "localhost"}, "METRICS_ADDR must be host:port or :port"},
		{"MetricsOnHTTPAddr", map[string]string{"HTTP_ADDR": "127.0.0.1:9090", "METRICS_ADDR": ":9090"}, "METRICS_ADDR must use another port than HTTP_ADDR"},
		{"MetricsOnAllInterfaces", map[string]string{"HTTP_ADDR": ":9090", "METRICS_ADDR": ":9090"}, "METRICS_ADDR must use another port than HTTP_ADDR"},
		{"MetricsOnDefault", map[string]string{"METRICS_ADDR": "10.0.0.5:8080"}, "METRICS_ADDR must use another port than HTTP_ADDR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cleanEnv(t, tt.env)
			var stdout, stderr strings.Builder
			code := run([]string{"-console", "-sandbox"}, strings.NewReader(""), &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), tt.want) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("run() = %d, stderr %q; want 2 and one line with %q", code, stderr.String(), tt.want)
			}
		})
	}
}

// TestMain_MetricsAddr runs the bot with METRICS_ADDR: /metrics answers
// there and no longer on HTTP_ADDR, and the probes answer on both (load
// balancers keep probing HTTP_ADDR).
func TestMain_MetricsAddr(t *testing.T) {
	t.Parallel()
	s := startMainWith(t, map[string]string{"METRICS_ADDR": "127.0.0.1:0"}, true)
	if s.m.MetricsWeb == nil {
		t.Fatal("Main.MetricsWeb is nil with METRICS_ADDR set")
	}
	public, ops := "http://"+s.m.Web.Addr(), "http://"+s.m.MetricsWeb.Addr()
	if public == ops {
		t.Fatalf("HTTP_ADDR and METRICS_ADDR are one listener: %s", public)
	}
	if body := get(t, ops+"/metrics"); !strings.Contains(body, "poapbot_") {
		t.Errorf("GET /metrics on METRICS_ADDR lacks the bot's metrics:\n%.500s", body)
	}
	resp, err := http.Get(public + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /metrics on HTTP_ADDR = %d, want 404", resp.StatusCode)
	}
	for _, base := range []string{public, ops} {
		get(t, base+"/healthz")
		get(t, base+"/readyz")
	}
}
