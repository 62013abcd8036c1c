package web

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// requestBuckets suit an HTTP API seen from a bot: a few milliseconds for a
// local sandbox up to the 30 s a slow upstream may take before we give up.
var requestBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

// Metrics holds the bot's Prometheus metrics in a registry of its own, so
// tests and several bots in one process never collide on the global default
// registry.
//
// Every label value must come from a small fixed set: platform and command
// names from the command table, the Outcome* constants, operation names
// chosen by the issuing-service client, HTTP status codes. Never pass user
// input, ids or error text as a label value: each distinct value is a new
// time series kept in memory forever.
type Metrics struct {
	reg      *prometheus.Registry
	commands *prometheus.CounterVec
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewMetrics returns Metrics whose registry already holds the Go runtime and
// process collectors and the bot's own metrics.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		commands: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "poapbot_commands_total",
			Help: "Chat commands handled, by platform, command and outcome (ok, user_error, forbidden, error).",
		}, []string{"platform", "command", "outcome"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "poapbot_poap_requests_total",
			Help: "Requests to the POAP issuing service, by operation and status (HTTP code, timeout or error).",
		}, []string{"operation", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "poapbot_poap_request_duration_seconds",
			Help:    "Latency of requests to the POAP issuing service, by operation.",
			Buckets: requestBuckets,
		}, []string{"operation"}),
	}
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.commands,
		m.requests,
		m.duration,
	)
	return m
}

// Registry returns the registry behind /metrics, for features that register
// metrics of their own. The same label rules as for Metrics apply.
func (m *Metrics) Registry() *prometheus.Registry {
	return m.reg
}

// ObserveCommand counts one handled chat command. platform and command are
// names from the command table; outcome is one of the bot's outcomes
// (bot.OutcomeOK, OutcomeUserError, OutcomeForbidden, OutcomeError).
func (m *Metrics) ObserveCommand(platform, command, outcome string) {
	m.commands.WithLabelValues(platform, command, outcome).Inc()
}

// ObserveRequest records one request to the issuing service: operation is a
// fixed name chosen by the client ("claim_link", "token"...), status the HTTP
// status code as text or the client's poap.StatusTimeout or
// poap.StatusError, elapsed the time from
// sending to the end of the response or failure.
func (m *Metrics) ObserveRequest(operation, status string, elapsed time.Duration) {
	m.requests.WithLabelValues(operation, status).Inc()
	m.duration.WithLabelValues(operation).Observe(elapsed.Seconds())
}
