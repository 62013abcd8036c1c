package transport

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxMessage bounds, in characters, the service's message kept in an error,
// so a large HTML error page never ends up in a log line.
const MaxMessage = 200

// BodyText is a body that is not JSON as one line of text: invalid UTF-8
// replaced and runs of white space made one space.
func BodyText(body []byte) string {
	return strings.Join(strings.Fields(strings.ToValidUTF8(string(body), "?")), " ")
}

// RetryAfter reads a Retry-After header, in seconds or as an HTTP date, into
// a wait from now; anything else, or a date in the past, is zero. Waits are
// capped at a day.
func RetryAfter(v string, now time.Time) time.Duration {
	const maxWait = 24 * time.Hour
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(min(secs, int64(maxWait/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), maxWait)
	}
	return 0
}

// Truncate shortens s to at most n characters, marking the cut with "…".
func Truncate(s string, n int) string {
	count := 0
	for i := range s {
		if count == n {
			return s[:i] + "…"
		}
		count++
	}
	return s
}
