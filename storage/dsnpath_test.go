package storage

import "testing"

func TestSQLitePath(t *testing.T) {
	tests := []struct {
		url    string
		want   string
		wantOK bool
	}{
		{"", "bot.db", true},
		{"sqlite:/var/lib/poap/bot.db", "/var/lib/poap/bot.db", true},
		{"sqlite://data/my.sqlite", "data/my.sqlite", true},
		{"postgres://u:pw@db:5432/poap", "", false},
		{"mysql://x", "", false},
		{"sqlite:a.db?mode=ro", "", false},
	}
	for _, tc := range tests {
		if got, ok := SQLitePath(tc.url); got != tc.want || ok != tc.wantOK {
			t.Errorf("SQLitePath(%q) = %q, %v, want %q, %v", tc.url, got, ok, tc.want, tc.wantOK)
		}
	}
}
