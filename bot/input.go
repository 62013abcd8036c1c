package bot

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/poapbot/poapbot/core"
)

// checkOptions refuses option values no command should see, whatever the
// platform they came from: text that is not UTF-8, control characters (a
// NUL among them) and the invisible marks that reverse the direction of
// text, and values longer than the option's limit. Line breaks and tabs
// are text in a text option. Refusing here gives every database the same
// input, so the same input gets the same answer on PostgreSQL and SQLite.
func checkOptions(cmd *Command, opts map[string]string) error {
	for i := range cmd.Options {
		o := &cmd.Options[i]
		value, given := opts[o.Name]
		if !given {
			continue
		}
		if !utf8.ValidString(value) {
			return &OptionError{Option: o.Name, Reason: "is not valid text: type it again"}
		}
		for _, r := range value {
			if invisible(r, o.Type == TextOption) {
				return &OptionError{Option: o.Name, Reason: fmt.Sprintf("has an invisible control character (U+%04X); type it again without it", r)}
			}
		}
		if n := utf8.RuneCountInString(value); n > o.Limit() {
			return &OptionError{Option: o.Name, Reason: fmt.Sprintf("is too long: at most %d characters", o.Limit())}
		}
	}
	return nil
}

// invisible reports whether r is a control character, a mark that embeds,
// overrides or isolates the direction of text, or a private-use character.
// Line breaks and tabs are allowed in text.
func invisible(r rune, text bool) bool {
	switch {
	case text && (r == '\n' || r == '\t'):
		return false
	case unicode.IsControl(r):
		return true
	case core.IsDirectionControl(r):
		return true
	case unicode.Is(unicode.Co, r):
		// Private use: the reply model's own marks (mentions, escapes)
		// travel as such characters and must not be forged.
		return true
	}
	return false
}
