package poap

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/poapbot/poapbot/poap/internal/transport"
)

// Date is a calendar day without time of day or zone, as drops carry their
// start, end and expiry dates. The zero Date means "not set".
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// dateLayouts are the day formats the service writes or accepts: "07-Dec-2021"
// on output, YYYY-MM-DD and MM-DD-YYYY on input. Single-digit days and months
// are accepted too.
var dateLayouts = []string{"2-Jan-2006", "2006-1-2", "1-2-2006"}

// DateOf returns the day of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{Year: y, Month: m, Day: d}
}

// ParseDate reads a day written as DD-Mon-YYYY, YYYY-MM-DD, MM-DD-YYYY or an
// RFC 3339 timestamp (whose day, in its own offset, is kept).
func ParseDate(s string) (Date, error) {
	s = strings.TrimSpace(s)
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return DateOf(t), nil
		}
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return DateOf(t), nil
	}
	return Date{}, fmt.Errorf("poap: date %q is not DD-Mon-YYYY, YYYY-MM-DD or MM-DD-YYYY", transport.Truncate(s, 40))
}

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d == Date{} }

// In returns midnight of d in loc.
func (d Date) In(loc *time.Location) time.Time {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, loc)
}

// String returns d as YYYY-MM-DD, or "" for the zero Date.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day)
}

// MarshalText writes d as YYYY-MM-DD, a format the service accepts.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalJSON reads a JSON string in any format ParseDate accepts; null and
// "" give the zero Date.
func (d *Date) UnmarshalJSON(b []byte) error {
	s, err := jsonString(b)
	if err != nil || s == "" {
		*d = Date{}
		return err
	}
	parsed, err := ParseDate(s)
	if err != nil {
		return err
	}
	*d = parsed
	return nil
}

// timestampLayouts are the instant formats seen in production: "created" is
// "YYYY-MM-DD HH:MM:SS" in UTC; ISO 8601 forms are accepted too. time.Parse
// takes fractional seconds after the seconds even when the layout has none.
var timestampLayouts = []string{"2006-01-02 15:04:05", time.RFC3339, "2006-01-02T15:04:05"}

// timestamp decodes an instant written in one of timestampLayouts. A value
// without an offset is UTC. null and "" give the zero time.
type timestamp struct{ time.Time }

// UnmarshalJSON implements json.Unmarshaler.
func (t *timestamp) UnmarshalJSON(b []byte) error {
	s, err := jsonString(b)
	if err != nil {
		t.Time = time.Time{}
		return err
	}
	t.Time, err = parseTimestamp(s)
	return err
}

// parseTimestamp reads an instant written in one of timestampLayouts, in
// UTC; a value without an offset is UTC. Spaces around it are ignored, and
// "" gives the zero time.
func parseTimestamp(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range timestampLayouts {
		if parsed, err := time.Parse(layout, s); err == nil {
			return parsed.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("poap: time %q is not YYYY-MM-DD HH:MM:SS or RFC 3339", transport.Truncate(s, 40))
}

// jsonString decodes a JSON string, treating null as "".
func jsonString(b []byte) (string, error) {
	if string(b) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return "", err
	}
	return strings.TrimSpace(s), nil
}
