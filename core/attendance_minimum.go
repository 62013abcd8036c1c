package core

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MinimumError says why a minimum is refused; it matches
// ErrAttendanceMinimum.
type MinimumError struct {
	Minimum AttendanceMinimum
	// Max is the longest a session lasts, for "more than the session".
	Max    time.Duration
	Reason string
	// Zero is true for a minimum of zero (or less), which would count
	// everyone who passed by.
	Zero bool
}

func (e *MinimumError) Error() string {
	return fmt.Sprintf("attendance minimum %s: %s", e.Minimum, e.Reason)
}

// Unwrap returns ErrAttendanceMinimum.
func (e *MinimumError) Unwrap() error { return ErrAttendanceMinimum }

// MinimumKind says how a minimum is counted.
type MinimumKind string

// The kinds of minimum.
const (
	// MinimumMinutes asks for N minutes in the channel.
	MinimumMinutes MinimumKind = "minutes"
	// MinimumPercent asks for N percent of the time the session counted
	// (its length less the bot's downtime).
	MinimumPercent MinimumKind = "percent"
)

// AttendanceMinimum is what a member must attend to be eligible.
type AttendanceMinimum struct {
	Kind  MinimumKind
	Value int
}

// String writes the minimum as /attendance start takes it: "30m", "50%".
func (m AttendanceMinimum) String() string {
	if m.Kind == MinimumPercent {
		return strconv.Itoa(m.Value) + "%"
	}
	return strconv.Itoa(m.Value) + "m"
}

// ParseMinimum reads a minimum as a moderator types it: "30m", "30" (both
// minutes), "1h" (60 minutes) or "50%". It returns a *MinimumError for
// anything else, zero, or more than 100 %.
func ParseMinimum(text string) (AttendanceMinimum, error) {
	t := strings.ToLower(strings.TrimSpace(text))
	kind, unit := MinimumMinutes, 1
	switch {
	case strings.HasSuffix(t, "%"):
		kind, t = MinimumPercent, strings.TrimSuffix(t, "%")
	case strings.HasSuffix(t, "min"):
		t = strings.TrimSuffix(t, "min")
	case strings.HasSuffix(t, "m"):
		t = strings.TrimSuffix(t, "m")
	case strings.HasSuffix(t, "h"):
		t, unit = strings.TrimSuffix(t, "h"), 60
	}
	n, err := strconv.Atoi(strings.TrimSpace(t))
	if err != nil || n < 0 || n > 1_000_000 {
		return AttendanceMinimum{}, &MinimumError{Minimum: AttendanceMinimum{Kind: kind}, Reason: fmt.Sprintf("%q is not N minutes (30m) or N percent (50%%)", clip(text, 32))}
	}
	m := AttendanceMinimum{Kind: kind, Value: n * unit}
	return m, m.check(0)
}

// check refuses a minimum of zero, of more than 100 %, or of more minutes
// than max (when max is set).
func (m AttendanceMinimum) check(max time.Duration) error {
	switch {
	case m.Kind != MinimumMinutes && m.Kind != MinimumPercent:
		return &MinimumError{Minimum: m, Reason: "unknown kind"}
	case m.Value <= 0:
		return &MinimumError{Minimum: m, Max: max, Reason: "a minimum of zero would count everyone", Zero: true}
	case m.Kind == MinimumPercent && m.Value > 100:
		return &MinimumError{Minimum: m, Max: max, Reason: "more than 100 %"}
	case m.Kind == MinimumMinutes && max > 0 && time.Duration(m.Value)*time.Minute > max:
		return &MinimumError{Minimum: m, Max: max, Reason: "longer than a session lasts (" + max.String() + ")"}
	}
	return nil
}

// required returns the minimum as time, for a session that counted
// counted: N minutes, or N percent of counted rounded up to the second.
func (m AttendanceMinimum) required(counted time.Duration) time.Duration {
	if m.Kind == MinimumPercent {
		secs := (int64(counted/time.Second)*int64(m.Value) + 99) / 100
		return time.Duration(secs) * time.Second
	}
	return time.Duration(m.Value) * time.Minute
}
