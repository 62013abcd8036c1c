package bot

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBot_ParseLine(t *testing.T) {
	b, _ := newTestBot(nil)
	b.register(&Command{Name: "drop add", Options: []Option{
		{Name: "event", Type: IntegerOption, Required: true},
		{Name: "edit_code", Type: TextOption, Required: true},
		{Name: "codeword", Type: TextOption},
	}})
	b.register(&Command{Name: "plan", Options: []Option{
		{Name: "event", Type: IntegerOption},
		{Name: "starts", Type: DateTimeOption},
		{Name: "ends", Type: DateTimeOption},
		{Name: "note", Type: TextOption},
	}})
	b.register(&Command{Name: "say", Options: []Option{{Name: "message", Type: TextOption}}})
	tests := []struct {
		line     string
		wantCmd  string
		wantOpts map[string]string
	}{
		{"/poaps", "poaps", map[string]string{}},
		{"  /poaps 0xabc  ", "poaps", map[string]string{"wallet": "0xabc"}},
		{"/POAPS@MyBot 0xabc", "poaps", map[string]string{"wallet": "0xabc"}},
		{"/poaps member:alice", "poaps", map[string]string{"member": "alice"}},
		{"/poaps wallet:0xabc page:2", "poaps", map[string]string{"wallet": "0xabc", "page": "2"}},
		{"/poaps page:2 0xabc", "poaps", map[string]string{"wallet": "0xabc", "page": "2"}},
		{"/drop add 123 654321", "drop add", map[string]string{"event": "123", "edit_code": "654321"}},
		{`/drop add 123 654321 "open sesame"`, "drop add", map[string]string{"event": "123", "edit_code": "654321", "codeword": "open sesame"}},
		{"/drop add 123 654321 open sesame", "drop add", map[string]string{"event": "123", "edit_code": "654321", "codeword": "open sesame"}},
		{`/drop add event:7 edit_code:"111 222"`, "drop add", map[string]string{"event": "7", "edit_code": "111 222"}},
		// The README's own example: the time follows the date unquoted.
		{"/plan 7 starts:2026-12-01 18:00 ends:2026-12-02 18:30:15", "plan",
			map[string]string{"event": "7", "starts": "2026-12-01 18:00", "ends": "2026-12-02 18:30:15"}},
		{"/plan 7 2026-12-01 18:00 2026-12-02T09:00:00Z at the venue", "plan",
			map[string]string{"event": "7", "starts": "2026-12-01 18:00", "ends": "2026-12-02T09:00:00Z", "note": "at the venue"}},
		// Words of a message that only look like options stay text.
		{"/say Note: doors at 18:00, see https://x.test/a", "say", map[string]string{"message": "Note: doors at 18:00, see https://x.test/a"}},
	}
	for _, tt := range tests {
		cmd, opts, err := b.ParseLine(tt.line, "mybot")
		if err != nil {
			t.Errorf("ParseLine(%q) error = %v", tt.line, err)
			continue
		}
		if cmd.Name != tt.wantCmd || !cmp.Equal(opts, tt.wantOpts) {
			t.Errorf("ParseLine(%q) = %q %v, want %q %v", tt.line, cmd.Name, opts, tt.wantCmd, tt.wantOpts)
		}
	}
}

func TestBot_ParseLine_Errors(t *testing.T) {
	b, _ := newTestBot(nil)
	var optErr *OptionError
	tests := []struct {
		line string
		want func(error) bool
	}{
		{"hello", func(err error) bool { return errors.Is(err, ErrNotACommand) }},
		{"/", func(err error) bool { return errors.Is(err, ErrNotACommand) }},
		{"/nope", func(err error) bool { return errors.Is(err, ErrUnknownCommand) }},
		{"/poaps@OtherBot 0xabc", func(err error) bool { return errors.Is(err, ErrUnknownCommand) }},
		{`/poaps "0xabc`, func(err error) bool { return errors.As(err, &optErr) }},
		{"/help extra words", func(err error) bool { return errors.As(err, &optErr) }},
		{"/poaps colour:red", func(err error) bool {
			return errors.As(err, &optErr) && optErr.Reason == "there is no option `colour` for `/poaps`; its options are `wallet`, `member`"
		}},
		{"/poaps wallet:", func(err error) bool { return errors.As(err, &optErr) && optErr.Option == "wallet" }},
		{"/drop topup 7 count:", func(err error) bool { return errors.As(err, &optErr) && optErr.Option == "count" }},
	}
	for _, tt := range tests {
		_, _, err := b.ParseLine(tt.line, "mybot")
		if !tt.want(err) {
			t.Errorf("ParseLine(%q) error = %v, not the expected kind", tt.line, err)
		}
	}
}

func TestPlainText(t *testing.T) {
	in := "**POAPs of `0xabc`**\n1. **Drop** · [image](https://x.test/a.png?size=small)\n```\ncode *here*\n```"
	want := "POAPs of 0xabc\n1. Drop · image <https://x.test/a.png?size=small>\n" + CodeBegin + "\ncode *here*\n" + CodeEnd
	if got := PlainText(in); got != want {
		t.Errorf("PlainText() = %q, want %q", got, want)
	}
}

func TestRenderMentions(t *testing.T) {
	tests := []struct{ in, plain string }{
		{"with " + RoleMention("42") + ".", "with the role or group `42`."},
		{"in " + ChannelMention("-100") + " and " + MemberMention("7"), "in `-100` and `7`"},
		{"none here", "none here"},
		{"half \uE000role:42", "half \uE000role:42"},
		{"empty \uE000role:\uE001", "empty \uE000role:\uE001"},
	}
	for _, tt := range tests {
		if got := RenderMentions(tt.in, Mention.Plain); got != tt.plain {
			t.Errorf("RenderMentions(%q, Plain) = %q, want %q", tt.in, got, tt.plain)
		}
	}
	if got, want := PlainText("with "+RoleMention("42")), "with the role or group 42"; got != want {
		t.Errorf("PlainText(role mention) = %q, want %q", got, want)
	}
}

func TestBot_MayCarrySecret(t *testing.T) {
	b, _ := newTestBot(nil)
	tests := []struct {
		line string
		want bool
	}{
		{"/drop add 197001 123456", true},
		{"/drop@MyBot add", true},
		{"/drop info 197001 123456", true},
		{"/drop info 123456", false},
		{"/drop topup 197001 count:50", false},
		{"/distribute 197001", false},
		{`/distribute 197001 message:"the code is 123456"`, true},
		{"/drop refresh edit_code:123456", true},
		{"/claim 197001 123456", false},
		{"/poaps 123456", false},
		{"/gate add 123456,654321 all", false},
		{"/gate add drops:123456 mode:any", false},
		{"/gate add 197001 123456", true},
		{"hello 123456", false},
		{"/nosuch 123456", false},
		// Punctuated, quoted, misspelt: still a code in a moderator's line.
		{"/drop refresh 197001 123456,", true},
		{`/drop refresh 197001 "123456`, true},
		{"/drop info 197001 code=123456", true},
		{"/drop refrsh 197001 123456", true},
		{"/drop refrsh 197001", true}, // a drop id or a code: cannot tell
		{"/drop topup 197001 count:123456", false},
		// A codeword is told to those who attend, not to the group.
		{"/drop edit 197001 codeword:sesame", true},
		{"/drop edit 197001 codeword:none", true},
		{"/drop edit 197001 low_stock:5", false},
		{"/claim 197001 codeword:sesame", false},
	}
	for _, tt := range tests {
		if got := b.MayCarrySecret(tt.line, "mybot"); got != tt.want {
			t.Errorf("MayCarrySecret(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

// TestMarkup: what a member or the issuing service chose is shown exactly,
// markup characters included, on every renderer of the subset.
func TestMarkup(t *testing.T) {
	tests := []struct{ name, md, plain string }{
		{"BackquotesInCode", "Linked " + codeSpan("`id`@x.org") + ".", "Linked `id`@x.org."},
		{"PaddedCode", codeSpan("`"), "`"},
		{"PlainCode", codeSpan("0xabc"), "0xabc"},
		{"EscapedName", "**" + Escape(`a*b_c\d[e]`) + "** won", `a*b_c\d[e] won`},
		{"UnclosedBackquote", "a ` b", "a ` b"},
		{"EscapedBackquote", Escape("a`b") + " " + codeSpan("c"), "a`b c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PlainText(tt.md); got != tt.plain {
				t.Errorf("PlainText(%q) = %q, want %q", tt.md, got, tt.plain)
			}
		})
	}
	if got, want := SplitCode("`` a`b `` and `c`"), []Segment{{Code: true, Text: "a`b"}, {Text: " and "}, {Code: true, Text: "c"}}; !cmp.Equal(got, want) {
		t.Errorf("SplitCode() = %+v, want %+v", got, want)
	}
}

// FuzzBot_ParseLine: whatever is typed, the option binder does not panic,
// binds only options the command declares, and the checks every option
// goes through before a command runs do not panic either.
// go test -run '^$' -fuzz FuzzBot_ParseLine -fuzztime 60s ./bot/
func FuzzBot_ParseLine(f *testing.F) {
	for _, s := range []string{
		"/drop add 197001 123456 starts:2026-12-01 18:00 ends:2026-12-02", "/poaps wallet: page:2",
		`/distribute 1 "Note: doors at 18:00" colour:red`, "/claim@bot 1 codeword:\x00", "/drop info 1 2 3",
		"/link ｖｉｔａｌｉｋ.eth", "/poaps \"unterminated", "/drop topup 1 count:",
	} {
		f.Add(s)
	}
	b, _ := newTestBot(nil)
	f.Fuzz(func(t *testing.T, line string) {
		cmd, opts, err := b.ParseLine(line, "bot")
		b.MayCarrySecret(line, "bot")
		if err != nil {
			return
		}
		for name := range opts {
			if cmd.Option(name) == nil {
				t.Fatalf("ParseLine(%q) bound %q, which /%s does not declare", line, name, cmd.Name)
			}
		}
		_ = checkOptions(cmd, opts)
	})
}

// TestMarkup_FenceLike: a value with backquotes in a row, shown in a code
// span at the start of a line, is text, not a code block.
func TestMarkup_FenceLike(t *testing.T) {
	v := "a``b@x.org"
	md := codeSpan(v) + " holds no POAPs yet.\nsecond line"
	if got, want := PlainText(md), v+" holds no POAPs yet.\nsecond line"; got != want {
		t.Errorf("PlainText(%q) = %q, want %q", md, got, want)
	}
	for line, want := range map[string]bool{"```": true, "```go": true, "  ```": true, "``` a``b ```": false, "``": false} {
		if got := IsFence(line); got != want {
			t.Errorf("IsFence(%q) = %v, want %v", line, got, want)
		}
	}
}
