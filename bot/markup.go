package bot

import (
	"strings"
)

// The reply's Markdown subset, as adapters read it: **bold**, `code` (a
// code span whose text has backquotes is fenced by more of them, as in
// CommonMark: `` a`b ``), fenced code blocks, [label](url), and a
// backslash before a markup character to show that character as it is.
// Discord reads the subset as its own Markdown; the Telegram and console
// renderers read it with SplitCode and RenderText.

// escaped are the characters Escape puts a backslash before: those of the
// subset, and those Discord's Markdown gives a meaning to.
const escaped = "\\*_~`|[]>#"

// Escape returns s, a name or text a member, a moderator or the issuing
// service chose, for reply text outside code: every markup character
// comes out as it is, none is dropped.
func Escape(s string) string {
	if !strings.ContainsAny(s, escaped) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(escaped, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// codeSpan marks s as inline code that shows s exactly, backquotes
// included: when s has any, it is fenced by one backquote more than its
// longest run of them and padded with a space on each side (which the
// renderers take off again).
func codeSpan(s string) string {
	if !strings.Contains(s, "`") {
		return "`" + s + "`"
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	return fence + " " + s + " " + fence
}

// IsFence reports whether a line opens or closes a fenced code block: three
// or more backquotes, then no backquote on the line (as in CommonMark), so
// that a line that starts with a code span fenced by three backquotes (a
// value with two backquotes in a row) is text.
func IsFence(line string) bool {
	line = strings.TrimSpace(line)
	n := runLength(line)
	return n >= 3 && !strings.Contains(line[n:], "`")
}

// Segment is a run of one line of reply text: a code span's text, shown as
// it is, or text in the subset's markup.
type Segment struct {
	Code bool
	Text string
}

// SplitCode splits a line into code spans and the text between them, as
// CommonMark does: a run of backquotes opens a span that the next run of
// the same length closes, and a run that nothing closes is text. One space
// is dropped from each end of a span's text padded on both sides.
func SplitCode(line string) []Segment {
	var out []Segment
	text := func(s string) {
		if s == "" {
			return
		}
		if n := len(out); n > 0 && !out[n-1].Code {
			out[n-1].Text += s
			return
		}
		out = append(out, Segment{Text: s})
	}
	for line != "" {
		i := strings.IndexByte(line, '`')
		if i < 0 {
			text(line)
			break
		}
		if i > 0 && isEscaped(line, i) {
			text(line[:i+1])
			line = line[i+1:]
			continue
		}
		n := runLength(line[i:])
		fence := line[i : i+n]
		end := closing(line[i+n:], n)
		if end < 0 {
			text(line[:i+n])
			line = line[i+n:]
			continue
		}
		text(line[:i])
		code := line[i+n : i+n+end]
		if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
			code = code[1 : len(code)-1]
		}
		out = append(out, Segment{Code: true, Text: code})
		line = line[i+n+end+len(fence):]
	}
	return out
}

// isEscaped reports whether the byte at i follows an odd number of
// backslashes.
func isEscaped(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// runLength counts the backquotes at the start of s.
func runLength(s string) int {
	n := 0
	for n < len(s) && s[n] == '`' {
		n++
	}
	return n
}

// closing returns where, in s, a run of exactly n backquotes starts, or -1.
func closing(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		m := runLength(s[i:])
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

// RenderText renders text outside code spans: render sees it with every
// escaped character hidden, so that its markup rules cannot take them, and
// literal writes each of them back as the platform shows a plain one.
func RenderText(text string, render func(string) string, literal func(rune) string) string {
	if !strings.Contains(text, `\`) {
		return render(text)
	}
	var hidden strings.Builder
	var kept []rune
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		if rs[i] == '\\' && i+1 < len(rs) && strings.ContainsRune(escaped, rs[i+1]) {
			hidden.WriteRune(placeholder(len(kept)))
			kept = append(kept, rs[i+1])
			i++
			continue
		}
		hidden.WriteRune(rs[i])
	}
	return restore(render(hidden.String()), kept, literal)
}

// Escaped characters travel through a renderer as characters of Unicode's
// private use area, one per character kept.
const placeholderBase = 0xF0000

func placeholder(i int) rune { return rune(placeholderBase + i) }

// restore writes back the characters that placeholders stand for.
func restore(s string, kept []rune, literal func(rune) string) string {
	var b strings.Builder
	for _, r := range s {
		if i := int(r) - placeholderBase; i >= 0 && i < len(kept) {
			b.WriteString(literal(kept[i]))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Shorten cuts s to at most n characters, marking a cut with "…".
func Shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
