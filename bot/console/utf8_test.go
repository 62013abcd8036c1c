package console_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/poapbot/poapbot/bot/console"
)

// TestConsole_Run_InvalidUTF8: a typed line whose bytes are not UTF-8 is
// refused whole, as the README says, and nothing is linked; the answer
// is valid text.
func TestConsole_Run_InvalidUTF8(t *testing.T) {
	in := strings.NewReader("/link \xff\xfe@example.org\n/\xfe\xff\n/wallet\n")
	var out strings.Builder
	if err := console.New(in, &out, false).Run(context.Background(), newBot()); err != nil {
		t.Fatalf("Run() = %v, want nil at end of input", err)
	}
	got := out.String()
	for _, want := range []string{
		"That line is not valid text: some of its bytes are not UTF-8, so nothing was done. Type it again. Type /help to see how to use /link.",
		"You have no wallet linked.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "not valid text") != 2 || !utf8.ValidString(got) || strings.Contains(got, "\uFFFD") {
		t.Errorf("output = %q, want both lines refused in valid text", got)
	}
}
