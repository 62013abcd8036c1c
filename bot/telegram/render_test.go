package telegram

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/poapbot/poapbot/bot"
)

func TestRenderHTML(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"Plain", "hello", "hello"},
		{"Escapes", "a < b && c > d", "a &lt; b &amp;&amp; c &gt; d"},
		{"TagsTypedByMembers", "<b>not bold</b> <script>", "&lt;b&gt;not bold&lt;/b&gt; &lt;script&gt;"},
		{"EntityTypedByMember", "&lt; stays text", "&amp;lt; stays text"},
		{"Bold", "**POAPs** of x", "<b>POAPs</b> of x"},
		{"Code", "type `/poaps <wallet>`", "type <code>/poaps &lt;wallet&gt;</code>"},
		{"NoMarkupInCode", "`**x** [a](https://b.test)`", "<code>**x** [a](https://b.test)</code>"},
		{"UnpairedBackquote", "a `b` c ` d", "a <code>b</code> c ` d"},
		{"Link", "[image](https://img.test/1.png?size=small&x=1)", `<a href="https://img.test/1.png?size=small&amp;x=1">image</a>`},
		{"LinkWithQuote", `[x](https://a.test/"onmouseover)`, `<a href="https://a.test/&quot;onmouseover">x</a>`},
		{"NotALink", "[x](javascript:alert(1))", "[x](javascript:alert(1))"},
		{"BoldLabel", "[**x**](https://a.test)", `<a href="https://a.test"><b>x</b></a>`},
		{"Fence", "before\n```\nfn <T>() && **x**\n```\nafter", "before\n<pre>fn &lt;T&gt;() &amp;&amp; **x**</pre>\nafter"},
		{"FenceWithLanguage", "```go\nx := 1\n```", "<pre>x := 1</pre>"},
		{"UnclosedFence", "```\n<x>", "<pre>&lt;x&gt;</pre>"},
		{"Holding", "1. **Drop 14** · drop #14 · Gnosis", "1. <b>Drop 14</b> · drop #14 · Gnosis"},
		{"BackquotesInCode", "`` `id`@x.org ``", "<code>`id`@x.org</code>"},
		{"FenceLikeCode", "``` a``b@x.org ``` holds none\nnext", "<code>a``b@x.org</code> holds none\nnext"},
		{"EscapedMarkup", `**a\*b\_c** \[x\](https://a.test) \<`, "<b>a*b_c</b> [x](https://a.test) \\&lt;"},
		{"EscapedBackquote", "\\`not code\\` `code`", "`not code` <code>code</code>"},
		{"MentionRole", "for members with " + bot.RoleMention("-1001"), "for members with the role or group <code>-1001</code>"},
		{"MentionChannel", "in " + bot.ChannelMention("-1002") + ".", "in <code>-1002</code>."},
		{"MentionMember", bot.MemberMention("42") + " <b>", "<code>42</code> &lt;b&gt;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := renderHTML(tt.in); got != tt.want {
				t.Errorf("renderHTML(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestChunks(t *testing.T) {
	t.Run("Short", func(t *testing.T) {
		if got := chunks("one\ntwo"); len(got) != 1 || got[0] != "one\ntwo" {
			t.Errorf("chunks(short) = %q, want it whole", got)
		}
	})
	t.Run("SplitsAtLines", func(t *testing.T) {
		line := strings.Repeat("a", 99)
		in := strings.TrimSuffix(strings.Repeat(line+"\n", 100), "\n") // 10 000 characters
		got := chunks(in)
		if len(got) != 3 {
			t.Fatalf("chunks(10 000 chars) = %d parts, want 3", len(got))
		}
		if strings.Join(got, "\n") != in {
			t.Errorf("parts do not join back to the input")
		}
		for i, p := range got {
			if n := utf16Len(renderHTML(p)); n > maxMessage {
				t.Errorf("part %d renders to %d units, over %d", i, n, maxMessage)
			}
		}
	})
	t.Run("EscapingCounts", func(t *testing.T) {
		in := strings.Repeat("&&&&&&&&&\n", 500) // 5000 characters, 25 000 escaped
		for i, p := range chunks(in) {
			if n := utf16Len(renderHTML(p)); n > maxMessage {
				t.Errorf("part %d renders to %d units, over %d", i, n, maxMessage)
			}
		}
	})
	t.Run("FenceReopened", func(t *testing.T) {
		in := "```\n" + strings.Repeat(strings.Repeat("x", 99)+"\n", 60) + "```"
		got := chunks(in)
		if len(got) != 2 {
			t.Fatalf("chunks(fenced 6000 chars) = %d parts, want 2", len(got))
		}
		for i, p := range got {
			h := renderHTML(p)
			if !strings.HasPrefix(h, "<pre>") || !strings.HasSuffix(h, "</pre>") || strings.Count(h, "<pre>") != 1 {
				t.Errorf("part %d = %.40q…%q, want one whole <pre> block", i, h, h[len(h)-10:])
			}
		}
	})
	t.Run("LongLine", func(t *testing.T) {
		in := strings.Repeat("é", 9000)
		got := chunks(in)
		total := 0
		for i, p := range got {
			total += utf8.RuneCountInString(p)
			if n := utf16Len(renderHTML(p)); n > maxMessage {
				t.Errorf("part %d renders to %d units, over %d", i, n, maxMessage)
			}
		}
		if total < 9000 {
			t.Errorf("parts hold %d runes, want all 9000", total)
		}
	})
}
