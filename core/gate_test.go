package core_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/core"
)

func TestParseGateMode(t *testing.T) {
	tests := []struct {
		in   string
		want core.GateMode
		ok   bool
	}{
		{"", core.GateAny, true},
		{"any", core.GateAny, true},
		{" ALL ", core.GateAll, true},
		{"atleast:2", core.GateMode{AtLeast: 2}, true},
		{"atleast:3", core.GateMode{AtLeast: 3}, true},
		{"atleast:4", core.GateMode{}, false},
		{"atleast:0", core.GateMode{}, false},
		{"atleast:x", core.GateMode{}, false},
		{"most", core.GateMode{}, false},
	}
	for _, tt := range tests {
		got, err := core.ParseGateMode(tt.in, 3)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseGateMode(%q, 3) = %+v, %v; want %+v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
		if tt.ok && tt.in != "" {
			if again, err := core.ParseGateMode(got.String(), 3); err != nil || again != got {
				t.Errorf("ParseGateMode(%q) does not read back its String %q", tt.in, got)
			}
		}
	}
}

func TestEvaluateGate(t *testing.T) {
	holds := func(ids ...int64) []core.Holding {
		var hs []core.Holding
		for _, id := range ids {
			hs = append(hs, core.Holding{DropID: id})
		}
		return hs
	}
	drops := []int64{10, 20, 30}
	tests := []struct {
		name     string
		drops    []int64
		mode     core.GateMode
		holdings []core.Holding
		want     core.GateVerdict
	}{
		{"AnyOne", drops, core.GateAny, holds(20, 99), core.GateVerdict{Qualifies: true, Held: []int64{20}, Missing: []int64{10, 30}, Needed: 1}},
		{"AnyNone", drops, core.GateAny, holds(99), core.GateVerdict{Missing: drops, Needed: 1}},
		{"AllEvery", drops, core.GateAll, holds(30, 10, 20), core.GateVerdict{Qualifies: true, Held: drops, Needed: 3}},
		{"AllButOne", drops, core.GateAll, holds(10, 30), core.GateVerdict{Held: []int64{10, 30}, Missing: []int64{20}, Needed: 3}},
		{"AtLeastTwo", drops, core.GateMode{AtLeast: 2}, holds(10, 30), core.GateVerdict{Qualifies: true, Held: []int64{10, 30}, Missing: []int64{20}, Needed: 2}},
		{"AtLeastTwoOfOne", drops, core.GateMode{AtLeast: 2}, holds(30, 30), core.GateVerdict{Held: []int64{30}, Missing: []int64{10, 20}, Needed: 2}},
		{"NoHoldings", drops, core.GateAny, nil, core.GateVerdict{Missing: drops, Needed: 1}},
		{"NoDrops", nil, core.GateAll, holds(10), core.GateVerdict{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, core.EvaluateGate(tt.drops, tt.mode, tt.holdings)); diff != "" {
				t.Errorf("EvaluateGate(%v, %s) (-want +got):\n%s", tt.drops, tt.mode, diff)
			}
		})
	}
}
