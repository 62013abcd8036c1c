package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/poapbot/poapbot/web"
)

// The addresses of the web server when HTTP_ADDR is not set. Under
// -console the bot is someone's rehearsal on their own machine: its
// verification page and probes stay on loopback rather than open to the
// network it happens to be on.
const (
	defaultHTTPAddr = ":8080"
	consoleHTTPAddr = "127.0.0.1:8080"
)

// metricsHost is the host of a METRICS_ADDR given without one: the
// metrics say how busy the bot is and who uses it, for operators only.
const metricsHost = "127.0.0.1"

// validateListeners checks the listeners' addresses: METRICS_ADDR, when
// set, is host:port or :port, and differs from HTTP_ADDR.
func (c *Config) validateListeners() error {
	if c.MetricsAddr == "" {
		return nil
	}
	if _, port, err := net.SplitHostPort(c.MetricsAddr); err != nil || port == "" {
		return fmt.Errorf("METRICS_ADDR must be host:port or :port (like :9090 or 10.0.0.5:9090), not %q", c.MetricsAddr)
	}
	if httpAddr, metricsAddr := c.listenAddrs(false); sameListener(httpAddr, metricsAddr) {
		return fmt.Errorf("METRICS_ADDR must use another port than HTTP_ADDR (%s): unset it to serve /metrics on HTTP_ADDR", httpAddr)
	}
	return nil
}

// sameListener reports whether two host:port addresses would take the
// same port: the same port, and the same host, or a host that listens on
// every interface (empty, 0.0.0.0, ::).
func sameListener(a, b string) bool {
	ha, pa, err1 := net.SplitHostPort(a)
	hb, pb, err2 := net.SplitHostPort(b)
	if err1 != nil || err2 != nil || pa != pb {
		return false
	}
	return anyHost(ha) || anyHost(hb) || strings.EqualFold(ha, hb)
}

// anyHost reports whether a listener on host listens on every interface.
func anyHost(host string) bool {
	ip := net.ParseIP(host)
	return host == "" || (ip != nil && ip.IsUnspecified())
}

// listenAddrs returns where the web server listens (HTTP_ADDR, or its
// default under -console or not) and where the metrics listener does
// (METRICS_ADDR with metricsHost when it names no host; "" when unset:
// /metrics is on the web server then).
func (c *Config) listenAddrs(console bool) (httpAddr, metricsAddr string) {
	httpAddr = c.HTTPAddr
	switch {
	case httpAddr != "":
	case console:
		httpAddr = consoleHTTPAddr
	default:
		httpAddr = defaultHTTPAddr
	}
	metricsAddr = c.MetricsAddr
	if host, port, err := net.SplitHostPort(metricsAddr); err == nil && host == "" {
		metricsAddr = net.JoinHostPort(metricsHost, port)
	}
	return httpAddr, metricsAddr
}

// openWeb builds the web server, and the metrics listener when
// METRICS_ADDR is set, and binds them.
func (m *Main) openWeb() error {
	httpAddr, metricsAddr := m.Config.listenAddrs(m.Console)
	m.Metrics = web.NewMetrics()
	if metricsAddr == "" {
		m.Web = web.NewServer(httpAddr, m.DB, m.Metrics, m.Logger)
		return m.Web.Listen()
	}
	m.Web = web.NewServer(httpAddr, m.DB, nil, m.Logger)
	m.MetricsWeb = web.NewMetricsServer(metricsAddr, m.DB, m.Metrics, m.Logger)
	return errors.Join(m.Web.Listen(), m.MetricsWeb.Listen())
}

// serveWeb serves the web server, and the metrics listener when there is
// one, until ctx ends.
func (m *Main) serveWeb(ctx context.Context) error {
	if m.MetricsWeb == nil {
		return m.Web.Serve(ctx)
	}
	done := make(chan error, 1)
	go func() { done <- m.MetricsWeb.Serve(ctx) }()
	err := m.Web.Serve(ctx)
	return errors.Join(err, <-done)
}
