package web

import (
	"net/http"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestMetrics_Registry(t *testing.T) {
	s, m := newTestServer(t, fakePinger{}, nil)
	extra := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "poapbot_gate_sweeps_total",
		Help: "Gate sweeps run.",
	})
	if err := m.Registry().Register(extra); err != nil {
		t.Fatalf("Registry().Register() = %v, want nil", err)
	}
	extra.Inc()
	base := startServer(t, s)

	code, body := get(t, base+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics status = %d, want %d", code, http.StatusOK)
	}
	if want := "poapbot_gate_sweeps_total 1"; !hasLinePrefix(body, want) {
		t.Errorf("GET /metrics has no line starting %q", want)
	}
}

func TestNewMetrics_Independent(t *testing.T) {
	// Two Metrics in one process must not collide: each has its own registry.
	a, b := NewMetrics(), NewMetrics()
	a.ObserveCommand("telegram", "help", "ok")
	if a.Registry() == b.Registry() {
		t.Fatal("NewMetrics() twice returned the same registry")
	}
	families, err := b.Registry().Gather()
	if err != nil {
		t.Fatalf("Gather() = %v, want nil", err)
	}
	for _, f := range families {
		if f.GetName() == "poapbot_commands_total" && len(f.GetMetric()) != 0 {
			t.Errorf("second registry has %d command series, want 0", len(f.GetMetric()))
		}
	}
}

// TestMetrics_DiscordVoiceDropped checks that the drops of the Discord
// adapter's voice queue are exposed, both reasons present from the start.
func TestMetrics_DiscordVoiceDropped(t *testing.T) {
	s, m := newTestServer(t, fakePinger{}, nil)
	base := startServer(t, s)
	_, body := get(t, base+"/metrics")
	for _, want := range []string{`poapbot_discord_voice_dropped_total{reason="full"} 0`, `poapbot_discord_voice_dropped_total{reason="closing"} 0`} {
		if !hasLinePrefix(body, want) {
			t.Errorf("GET /metrics before any drop has no line starting %q", want)
		}
	}
	m.CountDiscordVoiceDropped("full", 1)
	m.CountDiscordVoiceDropped("full", 2)
	_, body = get(t, base+"/metrics")
	if want := `poapbot_discord_voice_dropped_total{reason="full"} 3`; !hasLinePrefix(body, want) {
		t.Errorf("GET /metrics has no line starting %q", want)
	}
}
