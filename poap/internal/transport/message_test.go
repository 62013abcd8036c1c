package transport

import (
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, time.March, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"-5", 0},
		{" 30 ", 30 * time.Second},
		{"Sat, 01 Mar 2025 12:01:30 GMT", 90 * time.Second},
		{"Sat, 01 Mar 2025 11:59:00 GMT", 0},
		{"99999999999999", 24 * time.Hour},
		{"Sun, 01 Mar 2026 12:00:00 GMT", 24 * time.Hour},
		{"later", 0},
	}
	for _, tc := range tests {
		if got := RetryAfter(tc.in, now); got != tc.want {
			t.Errorf("RetryAfter(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"too long", 3, "too…"},
		{"ééééé", 2, "éé…"},
	}
	for _, tc := range tests {
		if got := Truncate(tc.in, tc.n); got != tc.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
