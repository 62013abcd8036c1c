package core

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// GateMode says how many of a gate's drops a member must hold.
type GateMode struct {
	// AtLeast is the number of the drops needed: 1 for "any", the number
	// of drops for "all".
	AtLeast int
	// All is true for "all", which follows the drops if they change.
	All bool
}

// The modes of a gate, as moderators type them.
var (
	// GateAny needs at least one of the drops (the default).
	GateAny = GateMode{AtLeast: 1}
	// GateAll needs every one of them.
	GateAll = GateMode{All: true}
)

// ParseGateMode reads a mode as typed: "any" (or nothing), "all", or
// "atleast:N" with N from 1 to the number of drops. It returns an error
// that says what is accepted.
func ParseGateMode(s string, drops int) (GateMode, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "", "any":
		return GateAny, nil
	case "all":
		return GateAll, nil
	}
	n, ok := strings.CutPrefix(s, "atleast:")
	if !ok {
		return GateMode{}, fmt.Errorf("a mode is any, all or atleast:N, not %q", s)
	}
	count, err := strconv.Atoi(n)
	if err != nil || count < 1 || count > drops {
		return GateMode{}, fmt.Errorf("atleast:N needs a number from 1 to %d, the number of drops", drops)
	}
	return GateMode{AtLeast: count}, nil
}

// String writes the mode as moderators type it.
func (m GateMode) String() string {
	switch {
	case m.All:
		return "all"
	case m.AtLeast <= 1:
		return "any"
	}
	return "atleast:" + strconv.Itoa(m.AtLeast)
}

// GateVerdict is what a gate says of a member's holdings.
type GateVerdict struct {
	// Qualifies is true when the holdings meet the gate.
	Qualifies bool
	// Held are the gate's drops the holdings include, in the gate's
	// order; Missing the others.
	Held    []int64
	Missing []int64
	// Needed is how many of the drops the gate asks for.
	Needed int
}

// EvaluateGate says whether holdings meet a gate on drops with mode. It is
// pure: holdings are the POAPs of the member's verified wallets only
// (unverified wallets and e-mails never count, and the caller never passes
// them), and drops are not repeated. A gate on no drops qualifies no one.
func EvaluateGate(drops []int64, mode GateMode, holdings []Holding) GateVerdict {
	v := GateVerdict{Needed: min(max(mode.AtLeast, 1), len(drops))}
	if mode.All {
		v.Needed = len(drops)
	}
	for _, d := range drops {
		if slices.ContainsFunc(holdings, func(h Holding) bool { return h.DropID == d }) {
			v.Held = append(v.Held, d)
		} else {
			v.Missing = append(v.Missing, d)
		}
	}
	v.Qualifies = len(drops) > 0 && len(v.Held) >= v.Needed
	return v
}
