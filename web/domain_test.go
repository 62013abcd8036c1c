package web

import (
	"strings"
	"testing"

	"github.com/poapbot/poapbot/core"
	dto "github.com/prometheus/client_model/go"
)

// counterValue is the value of the act's counter with labels.
func counterValue(t *testing.T, m *Metrics, act core.Act, labels ...string) float64 {
	t.Helper()
	var out dto.Metric
	if err := m.domain.acts[act].WithLabelValues(labels...).Write(&out); err != nil {
		t.Fatal(err)
	}
	return out.GetCounter().GetValue()
}

func TestMetrics_Count(t *testing.T) {
	m := NewMetrics()
	m.Count(core.Tallied{Act: core.ActClaim, Platform: core.Discord, Method: core.ClaimMint, Outcome: core.OutcomeMinted})
	m.Count(core.Tallied{Act: core.ActClaim, Platform: core.Discord, Method: core.ClaimMint, Outcome: core.OutcomeMinted})
	m.Count(core.Tallied{Act: core.ActClaim, Platform: core.Telegram, Outcome: core.OutcomeRefused})
	m.Count(core.Tallied{Act: core.ActMoment, Platform: "matrix", Outcome: "exploded"})
	m.Count(core.Tallied{Act: core.ActJoinRequest, Platform: core.Telegram, Outcome: core.OutcomeDeclined})
	m.Count(core.Tallied{Act: "teleport", Platform: core.Console, Outcome: core.OutcomeDone})

	tests := []struct {
		name   string
		act    core.Act
		labels []string
		want   float64
	}{
		{"Counted", core.ActClaim, []string{"discord", "mint", "minted"}, 2},
		{"NoMethod", core.ActClaim, []string{"telegram", "none", "refused"}, 1},
		{"UnknownValues", core.ActMoment, []string{"other", "other"}, 1},
		{"OtherAct", core.ActJoinRequest, []string{"telegram", "declined"}, 1},
		{"StartsAtZero", core.ActRoleRemoval, []string{"console", "failed"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := counterValue(t, m, tt.act, tt.labels...)
			if got != tt.want {
				t.Errorf("%s%v = %v, want %v", tt.act, tt.labels, got, tt.want)
			}
		})
	}
	// Every act has its family; an undeclared act made none.
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range families {
		names[f.GetName()] = true
		if strings.Contains(f.GetName(), "teleport") {
			t.Errorf("an undeclared act made a family: %s", f.GetName())
		}
	}
	for _, act := range core.Acts() {
		if !names[actMetrics[act].name] {
			t.Errorf("no %s family for act %s", actMetrics[act].name, act)
		}
	}
}
