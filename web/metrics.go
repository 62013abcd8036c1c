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

	tgQueue     prometheus.Gauge
	tgReply     prometheus.Histogram
	tgThrottled prometheus.Counter
	tgDropped   *prometheus.CounterVec
	tgBacklog   prometheus.Gauge

	dcVoiceDropped *prometheus.CounterVec

	domain domainMetrics
}

// replyBuckets suit the time from a Telegram update to its reply: well
// under a second when the bot is idle, up to the two minutes a reply may
// wait for its turn under Telegram's flood limits.
var replyBuckets = []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 20, 30, 45, 60, 90, 120}

// NewMetrics returns Metrics whose registry already holds the Go runtime and
// process collectors and the bot's own metrics.
func NewMetrics() *Metrics {
	m := &Metrics{
		domain: newDomainMetrics(),
		reg:    prometheus.NewRegistry(),
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
		tgQueue: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "poapbot_telegram_queue",
			Help: "Telegram messages waiting for their turn under the flood limits.",
		}),
		tgReply: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "poapbot_telegram_reply_seconds",
			Help:    "Time from a Telegram update's arrival to the first message sent in answer.",
			Buckets: replyBuckets,
		}),
		tgThrottled: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "poapbot_telegram_throttled_total",
			Help: "429 Too Many Requests answers received from the Telegram Bot API.",
		}),
		tgDropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "poapbot_telegram_dropped_total",
			Help: "Telegram messages dropped after waiting their whole deadline for a turn, by priority (reply, edit, notice).",
		}, []string{"priority"}),
		tgBacklog: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "poapbot_telegram_inbox_backlog",
			Help: "Telegram updates stored and not yet handled, as last counted by the replica handling them.",
		}),
		dcVoiceDropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "poapbot_discord_voice_dropped_total",
			Help: "Discord voice events not recorded for attendance, by reason (full: too many waiting; closing: at shutdown).",
		}, []string{"reason"}),
	}
	for _, reason := range []string{"full", "closing"} {
		m.dcVoiceDropped.WithLabelValues(reason)
	}
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.commands,
		m.requests,
		m.duration,
		m.tgQueue, m.tgReply, m.tgThrottled, m.tgDropped, m.tgBacklog,
		m.dcVoiceDropped,
	)
	m.reg.MustRegister(m.domain.collectors()...)
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

// SetTelegramQueue reports how many Telegram messages wait for their turn.
func (m *Metrics) SetTelegramQueue(n int) { m.tgQueue.Set(float64(n)) }

// ObserveTelegramReply records the time from a Telegram update to its
// first message sent in answer.
func (m *Metrics) ObserveTelegramReply(d time.Duration) { m.tgReply.Observe(d.Seconds()) }

// CountTelegramThrottled counts one 429 from the Telegram Bot API.
func (m *Metrics) CountTelegramThrottled() { m.tgThrottled.Inc() }

// CountTelegramDropped counts one Telegram message dropped at its
// deadline; priority is "reply", "edit" or "notice".
func (m *Metrics) CountTelegramDropped(priority string) { m.tgDropped.WithLabelValues(priority).Inc() }

// SetTelegramBacklog reports how many stored Telegram updates wait to be
// handled.
func (m *Metrics) SetTelegramBacklog(n int) { m.tgBacklog.Set(float64(n)) }

// CountDiscordVoiceDropped counts n Discord voice events not recorded for
// attendance; reason is "full" or "closing".
func (m *Metrics) CountDiscordVoiceDropped(reason string, n int) {
	m.dcVoiceDropped.WithLabelValues(reason).Add(float64(n))
}
