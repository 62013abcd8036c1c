package telegram

import (
	"regexp"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/poapbot/poapbot/bot"
)

// maxMessage is the Bot API's limit on a message text, in UTF-16 code
// units after entity parsing. Chunks are measured on their HTML, which is
// never shorter than what Telegram counts, so they always fit.
const maxMessage = 4096

var (
	// Applied to escaped text: "&" in a URL is already "&amp;".
	htmlLink = regexp.MustCompile(`\[([^\]]+)\]\((https?://[^)\s]+)\)`)
	htmlBold = regexp.MustCompile(`\*\*([^*]+)\*\*`)
)

// escapeHTML escapes the three characters Telegram's HTML requires.
// See https://core.telegram.org/bots/api#html-style.
var escapeHTML = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace

// renderHTML renders the reply Markdown subset (**bold**, `code`, fenced
// blocks, [label](url)) as Telegram HTML. Text is escaped before any tag
// is added, so nothing a member typed can become markup.
func renderHTML(md string) string {
	md = bot.RenderMentions(md, bot.Mention.Plain)
	var (
		out     []string
		fence   []string
		inFence bool
	)
	for line := range strings.SplitSeq(md, "\n") {
		if isFence(line) {
			if inFence {
				out = append(out, "<pre>"+escapeHTML(strings.Join(fence, "\n"))+"</pre>")
				fence = nil
			}
			inFence = !inFence
			continue
		}
		if inFence {
			fence = append(fence, line)
			continue
		}
		out = append(out, renderLine(line))
	}
	if inFence {
		out = append(out, "<pre>"+escapeHTML(strings.Join(fence, "\n"))+"</pre>")
	}
	return strings.Join(out, "\n")
}

func isFence(line string) bool { return bot.IsFence(line) }

// renderLine renders one line outside fences: code spans verbatim, links
// and bold elsewhere, escaped characters as plain ones. A backquote that
// opens no code span stays a backquote.
func renderLine(line string) string {
	var b strings.Builder
	for _, seg := range bot.SplitCode(line) {
		if seg.Code {
			b.WriteString("<code>" + escapeHTML(seg.Text) + "</code>")
			continue
		}
		b.WriteString(bot.RenderText(seg.Text, renderMarkup, func(r rune) string { return escapeHTML(string(r)) }))
	}
	return b.String()
}

// renderMarkup renders links and bold in text outside code spans.
func renderMarkup(text string) string {
	text = htmlLink.ReplaceAllStringFunc(escapeHTML(text), func(m string) string {
		sub := htmlLink.FindStringSubmatch(m)
		return `<a href="` + strings.ReplaceAll(sub[2], `"`, "&quot;") + `">` + sub[1] + "</a>"
	})
	return htmlBold.ReplaceAllString(text, "<b>$1</b>")
}

// chunks splits Markdown text at line boundaries into parts whose HTML
// fits in one message. A code fence cut in two is closed at the end of a
// part and reopened in the next. A single line too long for a message is
// cut into pieces first.
func chunks(md string) []string {
	var (
		out     []string
		cur     []string
		inFence bool
	)
	fits := func(lines []string, open bool) bool {
		text := strings.Join(lines, "\n")
		if open {
			text += "\n```"
		}
		return utf16Len(renderHTML(text)) <= maxMessage
	}
	for _, line := range splitLongLines(md) {
		if len(cur) > 0 && !fits(append(cur, line), inFence != isFence(line)) {
			if inFence {
				cur = append(cur, "```")
			}
			out = append(out, strings.Join(cur, "\n"))
			cur = nil
			if inFence {
				cur = append(cur, "```")
			}
		}
		cur = append(cur, line)
		if isFence(line) {
			inFence = !inFence
		}
	}
	if len(cur) > 0 {
		out = append(out, strings.Join(cur, "\n"))
	}
	return out
}

// pieceRunes is the longest piece a long line is cut into: even if every
// rune were escaped to "&amp;" it stays under maxMessage.
const pieceRunes = maxMessage / 6

// splitLongLines returns the lines of s, with lines longer than a message
// allows cut into pieces.
func splitLongLines(s string) []string {
	var out []string
	for line := range strings.SplitSeq(s, "\n") {
		for utf8.RuneCountInString(line) > pieceRunes {
			r := []rune(line)
			out = append(out, string(r[:pieceRunes]))
			line = string(r[pieceRunes:])
		}
		out = append(out, line)
	}
	return out
}

func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }
