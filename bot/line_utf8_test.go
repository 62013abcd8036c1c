package bot

import (
	"errors"
	"testing"
)

// TestBot_ParseLine_InvalidUTF8: a typed line that is not UTF-8 is
// refused whole, never read with U+FFFD in place of its bad bytes; the
// command it names, if any, comes back for the reply to point at.
func TestBot_ParseLine_InvalidUTF8(t *testing.T) {
	b, _ := newTestBot(nil)
	tests := []struct{ line, wantCmd string }{
		{"/poaps \xff\xfe@example.org", "poaps"},
		{"/poaps wallet:0xab\xc0", "poaps"},
		{"/\xfe\xff", ""},
		{"/nope \xff", ""},
	}
	for _, tt := range tests {
		cmd, opts, err := b.ParseLine(tt.line, "")
		var optErr *OptionError
		if !errors.As(err, &optErr) || opts != nil {
			t.Errorf("ParseLine(%q) = %v, %v; want an *OptionError and no options", tt.line, opts, err)
		}
		got := ""
		if cmd != nil {
			got = cmd.Name
		}
		if got != tt.wantCmd {
			t.Errorf("ParseLine(%q) command = %q, want %q", tt.line, got, tt.wantCmd)
		}
	}
}
