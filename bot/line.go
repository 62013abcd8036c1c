package bot

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// ErrUnknownCommand means a command line names no command of the table.
var ErrUnknownCommand = errors.New("unknown command")

// ErrNotACommand means a line does not start with a slash.
var ErrNotACommand = errors.New("not a command")

// ParseLine reads a typed command line, as on Telegram and the console:
// "/poaps 0xabc", "/drop add 123 456789 delivery:mint", "/claim@MyBot drop".
// Words fill the visible options in declared order; "name:value" sets an
// option by name; double quotes group words; words left over join the last
// text option. botName, when not empty, is accepted after an "@" on the
// command word. It returns the command and the options by name, or
// ErrNotACommand, ErrUnknownCommand, or an *OptionError: also for a line
// that is not valid UTF-8 (with the command it names, when it names one),
// which is refused whole rather than read with its bad bytes replaced.
func (b *Bot) ParseLine(line, botName string) (*Command, map[string]string, error) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") {
		return nil, nil, ErrNotACommand
	}
	if !utf8.ValidString(line) {
		return b.invalidLine(line, botName)
	}
	words, err := splitWords(line[1:])
	if err != nil {
		return nil, nil, err
	}
	if len(words) == 0 {
		return nil, nil, ErrNotACommand
	}
	cmd, rest := b.lookup(words, botName)
	if cmd == nil {
		return nil, nil, ErrUnknownCommand
	}
	opts, err := bindWords(cmd, rest)
	return cmd, opts, err
}

// errInvalidText is the refusal of a typed line that is not UTF-8: its
// words would otherwise be read with U+FFFD in place of the bad bytes, and
// a wallet such as "\xff\xfe@example.org" linked as another.
var errInvalidText = &OptionError{Reason: "that line is not valid text: some of its bytes are not UTF-8, so nothing was done. Type it again"}

// invalidLine refuses a line that is not UTF-8, with the command its
// words name, if any, for the reply to point at.
func (b *Bot) invalidLine(line, botName string) (*Command, map[string]string, error) {
	words := strings.Fields(strings.ToValidUTF8(line[1:], "\uFFFD"))
	if len(words) == 0 {
		return nil, nil, errInvalidText
	}
	cmd, _ := b.lookup(words, botName)
	return cmd, nil, errInvalidText
}

// lookup finds the command named by the first one or two words.
func (b *Bot) lookup(words []string, botName string) (*Command, []string) {
	first := strings.ToLower(words[0])
	if name, at, ok := strings.Cut(first, "@"); ok {
		if botName != "" && !strings.EqualFold(at, botName) {
			return nil, nil
		}
		first = name
	}
	if len(words) > 1 {
		if c := b.byName[first+" "+strings.ToLower(words[1])]; c != nil {
			return c, words[2:]
		}
	}
	return b.byName[first], words[1:]
}

// optionName is what a word must start with, before a colon, to name an
// option: "codeword:sesame", not "18:00" nor "https://...".
var optionName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// clock is the time part of a date and time typed as a word of its own.
var clock = regexp.MustCompile(`^\d{1,2}:\d{2}(:\d{2})?$`)

// bindWords assigns words to the command's options: "name:value" by name,
// the others in declared order. The time of a date-and-time option may
// follow its date as a word of its own.
func bindWords(cmd *Command, words []string) (map[string]string, error) {
	opts := map[string]string{}
	var positional []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		name, value, ok := strings.Cut(w, ":")
		if !ok || !optionName.MatchString(name) || strings.HasPrefix(value, "//") {
			positional = append(positional, w)
			continue
		}
		o := cmd.Option(strings.ToLower(name))
		switch {
		case o == nil && value == "":
			positional = append(positional, w) // "Note:" in a message
			continue
		case o == nil:
			return nil, unknownOption(cmd, name)
		case value == "":
			return nil, &OptionError{Option: o.Name, Reason: "needs a value after " + codeSpan(o.Name+":")}
		}
		if o.Type == DateTimeOption && i+1 < len(words) && clock.MatchString(words[i+1]) {
			value += " " + words[i+1]
			i++
		}
		opts[o.Name] = value
	}
	return opts, bindPositional(cmd, opts, positional)
}

// bindPositional gives the words not bound by name to the options not
// given, in declared order; words left over join the last one when it is
// text.
func bindPositional(cmd *Command, opts map[string]string, positional []string) error {
	var last *Option
	for i := range cmd.Options {
		o := &cmd.Options[i]
		if o.Hidden || o.Type == AttachmentOption {
			continue
		}
		if _, given := opts[o.Name]; given {
			continue
		}
		if len(positional) == 0 {
			break
		}
		opts[o.Name], positional = positional[0], positional[1:]
		if o.Type == DateTimeOption && len(positional) > 0 && clock.MatchString(positional[0]) {
			opts[o.Name] += " " + positional[0]
			positional = positional[1:]
		}
		last = o
	}
	if len(positional) == 0 {
		return nil
	}
	if last == nil || last.Type != TextOption {
		// The words are not repeated: one of them may be a secret typed
		// in the wrong place.
		return &OptionError{Reason: fmt.Sprintf("too many words: %d more than the command takes (put text with spaces in double quotes)", len(positional))}
	}
	opts[last.Name] += " " + strings.Join(positional, " ")
	return nil
}

// unknownOption is the error of a "name:value" word that names no option
// of the command.
func unknownOption(cmd *Command, name string) error {
	var names []string
	for _, o := range cmd.Options {
		if !o.Hidden {
			names = append(names, codeSpan(o.Name))
		}
	}
	reason := "there is no option " + codeSpan(strings.ToLower(name)) + " for " + codeSpan("/"+cmd.Name)
	if len(names) == 0 {
		return &OptionError{Reason: reason + ": it takes none"}
	}
	return &OptionError{Reason: reason + "; its options are " + strings.Join(names, ", ")}
}

// splitWords splits on spaces, keeping double-quoted text together.
func splitWords(s string) ([]string, error) {
	var (
		words  []string
		cur    strings.Builder
		quoted bool
		inWord bool
	)
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
			inWord = true
		case !quoted && (r == ' ' || r == '\t' || r == '\n'):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		return nil, &OptionError{Reason: "a double quote is not closed"}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// editCodeShape is a run of six digits standing alone, however it is
// punctuated: the shape of a drop's edit code.
var editCodeShape = regexp.MustCompile(`(?:^|\D)(\d{6})(?:\D|$)`)

// MayCarrySecret reports whether a typed command line may carry a drop's
// edit code or codeword, for adapters that must remove such a line from
// where others read it (a Telegram group). It errs on the side of
// removing: a moderator command with a Secret option, or giving a
// Confidential option, or with six digits standing alone anywhere
// but as the whole value of a whole-number option (a drop's id, a count);
// also a line of a moderator command group ("/drop ...") whose
// subcommand is mistyped, or whose quotes do not close. A line that names
// no moderator command carries none.
func (b *Bot) MayCarrySecret(line, botName string) bool {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") {
		return false
	}
	cmd, rest, ok := b.moderatorCommand(line[1:], botName)
	switch {
	case !ok:
		return false
	case cmd == nil:
		return editCodeShape.MatchString(line)
	}
	for _, o := range cmd.Options {
		if o.Secret {
			return true
		}
	}
	opts, _ := bindWords(cmd, rest)
	for name, v := range opts {
		if o := cmd.Option(name); o != nil && o.Confidential && strings.TrimSpace(v) != "" {
			return true
		}
	}
	numbers := map[string]int{}
	for name, v := range opts {
		o := cmd.Option(name)
		switch {
		case o == nil:
		case o.Type == IntegerOption:
			numbers[strings.TrimSpace(v)]++
		case o.IDs:
			for _, id := range strings.FieldsFunc(v, isIDSeparator) {
				numbers[id]++
			}
		}
	}
	for _, w := range rest {
		if _, v, found := strings.Cut(w, ":"); found && optionName.MatchString(w[:strings.IndexByte(w, ':')]) {
			w = v
		}
		for _, part := range strings.FieldsFunc(w, isIDSeparator) {
			if numbers[part] > 0 {
				numbers[part]--
				continue
			}
			if editCodeShape.MatchString(part) {
				return true
			}
		}
	}
	return false
}

// isIDSeparator separates the ids of a list option (IDs).
func isIDSeparator(r rune) bool { return r == ',' || r == ';' || r == ' ' }

// moderatorCommand finds the moderator command a line (without its slash)
// names: the command and its words, ok true; or, ok true with a nil
// command, when the line is in a moderator command group but its
// subcommand is unknown or its words cannot be read; ok false for a line
// of no moderator command.
func (b *Bot) moderatorCommand(line, botName string) (*Command, []string, bool) {
	words, err := splitWords(line)
	if err != nil {
		words = strings.Fields(line)
	}
	if len(words) == 0 {
		return nil, nil, false
	}
	cmd, rest := b.lookup(words, botName)
	if cmd != nil && (cmd.Access == ManageDrops || cmd.Access == ManageRoles) {
		if err != nil {
			return nil, nil, true
		}
		return cmd, rest, true
	}
	if cmd == nil {
		group, _, _ := strings.Cut(strings.ToLower(words[0]), "@")
		for _, c := range b.commands {
			if c.Group() == group && c.Sub() != "" && (c.Access == ManageDrops || c.Access == ManageRoles) {
				return nil, nil, true
			}
		}
	}
	return nil, nil, false
}
