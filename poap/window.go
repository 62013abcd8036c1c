package poap

import (
	"cmp"
	"context"
	"strings"
	"time"

	"github.com/poapbot/poapbot/poap/internal/transport"
)

// A secret request's window reaches the client in the member's words: the
// interface says "hh:mm", members type a date and time without a zone. The
// OpenAPI definition of POST and PUT /secret-requests wants date-times
// (format date-time, "YYYY-MM-DDTHH-MM-SSZ"), so the client resolves the
// bounds to instants and sends them as RFC 3339 in UTC, with timezone 0.

// clockLayout is an hh:mm bound, a time of day with no day.
const clockLayout = "15:04"

// zonelessLayouts are the date and time forms without a zone a bound may
// take; fractional seconds are accepted after the seconds.
var zonelessLayouts = []string{
	"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04",
}

// bound is one end of a window, as parsed: an instant, or a time of day
// still to be placed on a day.
type bound struct {
	at    time.Time // the instant, unless clock
	clock bool
	hour  int
	min   int
}

// parseBound reads a window bound in one of the forms SecretRequest.From
// names; a bound without a zone is in loc.
func parseBound(v string, loc *time.Location) (bound, bool) {
	v = strings.TrimSpace(v)
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return bound{at: t}, true
	}
	for _, layout := range zonelessLayouts {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return bound{at: t}, true
		}
	}
	if t, err := time.Parse(clockLayout, v); err == nil {
		return bound{clock: true, hour: t.Hour(), min: t.Minute()}, true
	}
	return bound{}, false
}

// checkBound refuses a window bound in none of the accepted forms.
func checkBound(op, field, v string) error {
	if _, ok := parseBound(v, time.UTC); !ok {
		return fieldError(op, field, "%q is neither hh:mm nor a date and time such as 2025-07-18T18:00",
			transport.Truncate(v, 40))
	}
	return nil
}

// window resolves in.From and in.To to instants in UTC. An hh:mm bound is
// placed on the drop's start day (From) or end day (To), in in.Location,
// which takes a read of the drop: GET /events/id/{id}. Errors: a
// *FieldError for a bound that does not parse, a drop without the day an
// hh:mm bound needs, or an end not after the start; those of Drop.
func (c *Client) window(ctx context.Context, op string, in SecretRequest) (from, to time.Time, err error) {
	loc := cmp.Or(in.Location, time.UTC)
	f, okFrom := parseBound(in.From, loc)
	t, okTo := parseBound(in.To, loc)
	if !okFrom || !okTo {
		return time.Time{}, time.Time{}, firstError(checkBound(op, "from", in.From), checkBound(op, "to", in.To))
	}
	if f.clock || t.clock {
		d, err := c.Drop(ctx, in.EventID)
		if err != nil {
			return time.Time{}, time.Time{}, err
		}
		if f, err = f.on(op, "from", d.StartDate, loc); err != nil {
			return time.Time{}, time.Time{}, err
		}
		if t, err = t.on(op, "to", d.EndDate, loc); err != nil {
			return time.Time{}, time.Time{}, err
		}
	}
	if !t.at.After(f.at) {
		return time.Time{}, time.Time{}, fieldError(op, "to", "%s is not after from, %s",
			t.at.UTC().Format(time.RFC3339), f.at.UTC().Format(time.RFC3339))
	}
	return f.at.UTC(), t.at.UTC(), nil
}

// on places a time of day on day, in loc; an instant stays as it is.
func (b bound) on(op, field string, day Date, loc *time.Location) (bound, error) {
	if !b.clock {
		return b, nil
	}
	if day.IsZero() {
		return bound{}, fieldError(op, field, "the drop has no date to place %02d:%02d on; give a date and time", b.hour, b.min)
	}
	return bound{at: time.Date(day.Year, day.Month, day.Day, b.hour, b.min, 0, 0, loc)}, nil
}
