package bot

import (
	"errors"
	"strings"
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
// ErrNotACommand, ErrUnknownCommand, or an *OptionError.
func (b *Bot) ParseLine(line, botName string) (*Command, map[string]string, error) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") {
		return nil, nil, ErrNotACommand
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

// bindWords assigns words to the command's options.
func bindWords(cmd *Command, words []string) (map[string]string, error) {
	opts := map[string]string{}
	var positional []string
	for _, w := range words {
		if name, value, ok := strings.Cut(w, ":"); ok {
			if o := cmd.Option(strings.ToLower(name)); o != nil {
				opts[o.Name] = value
				continue
			}
		}
		positional = append(positional, w)
	}
	var last *Option
	for i := range cmd.Options {
		o := &cmd.Options[i]
		if o.Hidden || o.Type == Attachment {
			continue
		}
		if _, given := opts[o.Name]; given {
			continue
		}
		if len(positional) == 0 {
			break
		}
		opts[o.Name], positional = positional[0], positional[1:]
		last = o
	}
	if len(positional) > 0 {
		if last == nil || last.Type != String {
			return nil, &OptionError{Option: "", Reason: "too many words: " + strings.Join(positional, " ")}
		}
		opts[last.Name] += " " + strings.Join(positional, " ")
	}
	return opts, nil
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
